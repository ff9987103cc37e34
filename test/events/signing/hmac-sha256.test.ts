// The generic scheme has no vendor verifier, so its convention is pinned against a hand-built
// node:crypto MAC, and its verifier is exercised like the vendor ones: v2 (sent) signs the
// delivery id, v1 (still accepted from legacy senders) signs only timestamp and body.

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256Scheme } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const SECRET = secret('plain-hmac-secret-twin');
const OTHER = secret('plain-hmac-secret-other');
const BODY = '{"event":"thing.happened","n":1}';
const T = 1_700_000_000;

const sign = (secrets: readonly string[] = [SECRET], body = BODY) =>
  hmacSha256Scheme.sign({ body, secrets, timestampSec: T, messageId: 'm1' });

/** A v1 packet, as senders before the delivery id was signed make it. */
const signV1 = (secret = SECRET, body = BODY, ts = T) => ({
  'X-Signature': `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`,
  'X-Timestamp': String(ts),
});

describe('hmac-sha256: convention', () => {
  it('sends X-Delivery-Id, X-Timestamp and X-Signature: v2=<hex of HMAC(secret, "v2.<id>.<ts>.<body>")>', () => {
    const mac = createHmac('sha256', SECRET).update(`v2.m1.${T}.${BODY}`).digest('hex');
    expect(sign()).toEqual({
      'X-Delivery-Id': 'm1',
      'X-Signature': `v2=${mac}`,
      'X-Timestamp': String(T),
    });
  });

  it('refuses to sign a delivery id that could blur where the id ends', () => {
    expectTwinError(
      () =>
        hmacSha256Scheme.sign({ body: BODY, secrets: [SECRET], timestampSec: T, messageId: 'a.b' }),
      'INVALID_ARGUMENT',
      'messageId',
    );
  });
});

describe('hmac-sha256: our verifier', () => {
  const verify = (
    headers: Record<string, string | undefined>,
    opts: { body?: string; secrets?: string[]; now?: number } = {},
  ) =>
    hmacSha256Scheme.verify({
      headers,
      rawBody: opts.body ?? BODY,
      secrets: opts.secrets ?? [SECRET],
      nowSec: opts.now ?? T,
    });

  it('accepts our packet and reports the timestamp and the signed delivery id', () => {
    expect(verify(sign())).toEqual({ timestampSec: T, messageId: 'm1', version: 2 });
    expect(verify(sign(), { secrets: [OTHER, SECRET] })).toEqual({
      timestampSec: T,
      messageId: 'm1',
      version: 2,
    });
  });

  it('refuses a tampered body, a wrong secret, a rewritten timestamp or a new delivery id (all signed)', () => {
    expectTwinError(
      () => verify(sign(), { body: `${BODY} ` }),
      'BAD_SIGNATURE',
      'headers.X-Signature',
    );
    expectTwinError(() => verify(sign(), { secrets: [OTHER] }), 'BAD_SIGNATURE');
    expectTwinError(
      () => verify({ ...sign(), 'X-Timestamp': String(T + 60) }, { now: T + 60 }),
      'BAD_SIGNATURE',
    );
    expectTwinError(
      () => verify({ ...sign(), 'X-Delivery-Id': 'm2' }),
      'BAD_SIGNATURE',
      'headers.X-Signature',
    );
    expectTwinError(
      () => verify({ ...sign(), 'X-Delivery-Id': undefined }),
      'MISSING_HEADER',
      'headers.X-Delivery-Id',
    );
  });

  it('accepts a v1 packet (timestamp and body signed, no id) and says so: its id cannot be trusted', () => {
    expect(verify(signV1())).toEqual({ timestampSec: T, version: 1 });
    expect(verify({ ...signV1(), 'X-Delivery-Id': 'anything' })).toEqual({
      timestampSec: T,
      version: 1,
    });
    expectTwinError(() => verify(signV1(OTHER)), 'BAD_SIGNATURE');
    // a v1 MAC presented as v2 never verifies: the v2 input starts with "v2."
    const v1mac = signV1()['X-Signature'].slice('sha256='.length);
    expectTwinError(
      () => verify({ ...signV1(), 'X-Signature': `v2=${v1mac}`, 'X-Delivery-Id': String(T) }),
      'BAD_SIGNATURE',
    );
  });

  it('refuses stale and future timestamps', () => {
    expectTwinError(
      () => verify(sign(), { now: T + 301 }),
      'STALE_TIMESTAMP',
      'headers.X-Timestamp',
    );
    expectTwinError(() => verify(sign(), { now: T - 301 }), 'STALE_TIMESTAMP');
  });

  it('refuses missing headers', () => {
    expectTwinError(
      () => verify({ ...sign(), 'X-Signature': undefined }),
      'MISSING_HEADER',
      'headers.X-Signature',
    );
    expectTwinError(
      () => verify({ ...sign(), 'X-Timestamp': undefined }),
      'MISSING_HEADER',
      'headers.X-Timestamp',
    );
  });
});
