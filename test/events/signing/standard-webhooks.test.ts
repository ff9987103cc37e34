// Standard Webhooks packets against the `standardwebhooks` and `svix` libraries (both read the
// real clock, so live packets are stamped "now"), and our verifier against their own signatures.

import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { standardWebhooksScheme } from '../../../src/events/signing/index.js';
import { expectTwinError, nowSec, secret } from './support.js';

const SECRET = secret(`whsec_${randomBytes(24).toString('base64')}`);
const NEXT_SECRET = secret(`whsec_${randomBytes(32).toString('base64')}`);
const OTHER_SECRET = secret(`whsec_${randomBytes(24).toString('base64')}`);
const BODY = JSON.stringify({
  type: 'contact.created',
  timestamp: '2026-11-29T10:00:00.000Z',
  data: { id: 'contact_01TWIN', name: 'Åda' },
});
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';

function sign(
  timestampSec: number,
  secrets: readonly string[] = [SECRET],
  body = BODY,
  messageId = ID,
) {
  return standardWebhooksScheme.sign({ body, secrets, timestampSec, messageId });
}

function toSvixNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k.replace(/^webhook-/, 'svix-'), v]),
  );
}

const libraries = [
  { name: 'standardwebhooks', make: (s: string) => new StandardWebhook(s) },
  { name: 'svix', make: (s: string) => new SvixWebhook(s) },
] as const;

describe('standard-webhooks: reference vector', () => {
  it('reproduces the Standard Webhooks test-suite signature', () => {
    const headers = standardWebhooksScheme.sign({
      body: '{"test": 2432232314}',
      secrets: [secret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')],
      timestampSec: 1614265330,
      messageId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    });
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });
});

describe.each(libraries)(
  'standard-webhooks: packets accepted and refused by $name',
  ({ name, make }) => {
    it('verify accepts our packet and returns the parsed body', () => {
      const parsed = make(SECRET).verify(BODY, sign(nowSec()));
      expect(parsed).toEqual(JSON.parse(BODY));
    });

    if (name === 'svix') {
      it('verify accepts our packet under svix-* header names', () => {
        expect(make(SECRET).verify(BODY, toSvixNames(sign(nowSec())))).toEqual(JSON.parse(BODY));
      });
    }

    it('rotation: two secrets give two space-separated v1 entries, each secret alone verifies', () => {
      const headers = sign(nowSec(), [SECRET, NEXT_SECRET]);
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
      expect(() => make(SECRET).verify(BODY, headers)).not.toThrow();
      expect(() => make(NEXT_SECRET).verify(BODY, headers)).not.toThrow();
      expect(() => make(OTHER_SECRET).verify(BODY, headers)).toThrow(/No matching signature found/);
    });

    it('produces the same signature as the library sign()', () => {
      const t = nowSec();
      expect(sign(t)['webhook-signature']).toBe(make(SECRET).sign(ID, new Date(t * 1000), BODY));
    });

    it('verify rejects a tampered body', () => {
      expect(() => make(SECRET).verify(BODY.replace('Åda', 'Ada'), sign(nowSec()))).toThrow(
        /No matching signature found/,
      );
    });

    it('verify rejects a wrong secret', () => {
      expect(() => make(OTHER_SECRET).verify(BODY, sign(nowSec()))).toThrow(
        /No matching signature found/,
      );
    });

    it('verify rejects a stale timestamp and one too far in the future', () => {
      expect(() => make(SECRET).verify(BODY, sign(nowSec() - 310))).toThrow(/too old/);
      expect(() => make(SECRET).verify(BODY, sign(nowSec() + 310))).toThrow(/too new/);
    });
  },
);

describe('standard-webhooks: our verifier', () => {
  const T = 1_700_000_000;
  const verify = (
    headers: Record<string, string | undefined>,
    opts: { body?: string | Uint8Array; secrets?: string[]; now?: number; tolerance?: number } = {},
  ) =>
    standardWebhooksScheme.verify({
      headers,
      rawBody: opts.body ?? BODY,
      secrets: opts.secrets ?? [SECRET],
      nowSec: opts.now ?? T,
      ...(opts.tolerance === undefined ? {} : { toleranceSec: opts.tolerance }),
    });

  it('accepts our packet and reports the signed id and timestamp', () => {
    expect(verify(sign(T))).toEqual({ timestampSec: T, messageId: ID });
    expect(verify(sign(T), { body: Buffer.from(BODY) })).toEqual({
      timestampSec: T,
      messageId: ID,
    });
  });

  it('accepts packets signed by the standardwebhooks and svix libraries, under either header family', () => {
    const t = nowSec();
    for (const { make } of libraries) {
      const sig = make(SECRET).sign(ID, new Date(t * 1000), BODY);
      const headers = {
        'webhook-id': ID,
        'webhook-timestamp': String(t),
        'webhook-signature': sig,
      };
      expect(verify(headers, { now: t })).toEqual({ timestampSec: t, messageId: ID });
      expect(verify(toSvixNames(headers), { now: t })).toEqual({ timestampSec: t, messageId: ID });
    }
  });

  it('accepts mixed-case header names and skips non-v1 entries', () => {
    const headers = sign(T);
    const shouty = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
      'Webhook-Signature': `v1a,${randomBytes(64).toString('base64')} ${headers['webhook-signature']}`,
    };
    expect(verify(shouty)).toEqual({ timestampSec: T, messageId: ID });
  });

  it('rotation: a packet signed with both secrets verifies under either alone', () => {
    const headers = sign(T, [SECRET, NEXT_SECRET]);
    expect(verify(headers, { secrets: [SECRET] })).toEqual({ timestampSec: T, messageId: ID });
    expect(verify(headers, { secrets: [NEXT_SECRET] })).toEqual({ timestampSec: T, messageId: ID });
    expect(verify(sign(T, [NEXT_SECRET]), { secrets: [OTHER_SECRET, NEXT_SECRET] })).toEqual({
      timestampSec: T,
      messageId: ID,
    });
  });

  it('refuses a tampered body, a wrong secret, and a swapped message id', () => {
    expectTwinError(
      () => verify(sign(T), { body: `${BODY} ` }),
      'BAD_SIGNATURE',
      'headers.webhook-signature',
    );
    expectTwinError(() => verify(sign(T), { secrets: [OTHER_SECRET] }), 'BAD_SIGNATURE');
    expectTwinError(() => verify({ ...sign(T), 'webhook-id': 'msg_other' }), 'BAD_SIGNATURE');
    expectTwinError(
      () => verify(toSvixNames(sign(T)), { secrets: [OTHER_SECRET] }),
      'BAD_SIGNATURE',
      'headers.svix-signature',
    );
  });

  it('refuses a comma-joined rotation list, as the official verifiers do', () => {
    const headers = sign(T, [SECRET, NEXT_SECRET]);
    const commaJoined = {
      ...headers,
      'webhook-signature': (headers['webhook-signature'] as string).replace(' ', ','),
    };
    expect(() =>
      new StandardWebhook(NEXT_SECRET).verify(BODY, {
        ...commaJoined,
        'webhook-timestamp': String(nowSec()),
      }),
    ).toThrow();
    expectTwinError(() => verify(commaJoined, { secrets: [NEXT_SECRET] }), 'BAD_SIGNATURE');
  });

  it('refuses stale and future timestamps beyond tolerance, in both header families', () => {
    expect(verify(sign(T), { now: T - 300 })).toEqual({ timestampSec: T, messageId: ID });
    expectTwinError(
      () => verify(sign(T), { now: T + 301 }),
      'STALE_TIMESTAMP',
      'headers.webhook-timestamp',
    );
    expectTwinError(() => verify(sign(T), { now: T - 301 }), 'STALE_TIMESTAMP');
    expectTwinError(
      () => verify(toSvixNames(sign(T)), { now: T + 301 }),
      'STALE_TIMESTAMP',
      'headers.svix-timestamp',
    );
    expect(verify(sign(T), { now: T + 301, tolerance: 600 })).toEqual({
      timestampSec: T,
      messageId: ID,
    });
  });

  it('refuses each missing header by name', () => {
    const headers = sign(T);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expectTwinError(
        () => verify({ ...headers, [name]: undefined }),
        'MISSING_HEADER',
        `headers.${name}`,
      );
    }
    expectTwinError(
      () => verify({ ...toSvixNames(headers), 'svix-id': undefined }),
      'MISSING_HEADER',
      'headers.svix-id',
    );
    expectTwinError(() => verify({}), 'MISSING_HEADER', 'headers.webhook-id');
  });

  it('validates secrets as whsec_ + canonical base64, naming the index and hiding the value', () => {
    const raw = secret('not-a-whsec-secret-value');
    const err = expectTwinError(
      () => verify(sign(T), { secrets: [SECRET, raw] }),
      'INVALID_ARGUMENT',
      'secrets[1]',
    );
    expect(err.message).toMatch(/whsec_/);
    expectTwinError(() => sign(T, [secret('whsec_')]), 'INVALID_ARGUMENT', 'secrets[0]');
    expectTwinError(() => sign(T, [secret('whsec_abc!def')]), 'INVALID_ARGUMENT', 'secrets[0]');
    expectTwinError(() => sign(T, [secret('whsec_QUJ')]), 'INVALID_ARGUMENT', 'secrets[0]'); // unpadded
    expect(() => sign(T, [secret('whsec_QUJD')])).not.toThrow();
  });

  it('validates the message id', () => {
    expectTwinError(() => sign(T, [SECRET], BODY, ''), 'INVALID_ARGUMENT', 'messageId');
    expectTwinError(() => sign(T, [SECRET], BODY, 'msg.1'), 'INVALID_ARGUMENT', 'messageId');
    expectTwinError(() => sign(T, [SECRET], BODY, 'msg 1'), 'INVALID_ARGUMENT', 'messageId');
  });
});
