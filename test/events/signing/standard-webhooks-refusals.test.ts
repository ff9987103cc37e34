// Every refusal of the Standard Webhooks signer and verifier says what was wrong, prefixed with
// the scheme and naming the header or argument — each malformed secret told apart, a signature
// list without a v1 entry told apart from one that does not match — and the header handling
// (repeated signature headers, the svix-* family chosen by its id) that must not change a verdict.
import { describe, expect, it } from 'vitest';
import { standardWebhooksScheme, type SignRequest } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const SECRET = secret(
  `whsec_${Buffer.from('standard-webhooks-refusal-key-01').toString('base64')}`,
);
const BODY = '{"type":"contact.created","data":{"id":"contact_refusal"}}';
const ID = 'msg_refusal0001';
const T = 1_760_000_000;
const sign = (over: Partial<SignRequest> = {}) =>
  standardWebhooksScheme.sign({
    body: BODY,
    secrets: [SECRET],
    timestampSec: T,
    messageId: ID,
    ...over,
  });
const headers = sign();
const SIG = headers['webhook-signature']!;
const verify = (
  h: Record<string, string | string[] | undefined>,
  over: { nowSec?: number; secrets?: string[] } = {},
) =>
  standardWebhooksScheme.verify({
    headers: h,
    rawBody: BODY,
    secrets: over.secrets ?? [SECRET],
    nowSec: over.nowSec ?? T,
  });
const message = (fn: () => unknown, code: Parameters<typeof expectTwinError>[1], path: string) =>
  expectTwinError(fn, code, path).message;
const secretProblem = (why: string) =>
  `standard-webhooks: secrets[0] ${why}; expected "whsec_" followed by standard base64 (the value is not shown).`;

describe('standard-webhooks secrets: each malformation named', () => {
  it('no whsec_ prefix, even when the rest happens to be base64', () => {
    for (const s of [secret('not-a-whsec-secret-value'), secret('abcdefQUJDREVGR0g=')]) {
      expect(message(() => sign({ secrets: [s] }), 'INVALID_ARGUMENT', 'secrets[0]')).toBe(
        secretProblem('does not start with "whsec_"'),
      );
    }
  });

  it('nothing after the prefix', () => {
    expect(message(() => sign({ secrets: ['whsec_'] }), 'INVALID_ARGUMENT', 'secrets[0]')).toBe(
      secretProblem('has nothing after "whsec_"'),
    );
  });

  it('characters outside base64 after the prefix', () => {
    const s = secret('whsec_abcd!efgh');
    expect(message(() => sign({ secrets: [s] }), 'INVALID_ARGUMENT', 'secrets[0]')).toBe(
      secretProblem('is not base64 after "whsec_"'),
    );
  });

  it('base64 that does not round-trip: unpadded, or a lone character that decodes to nothing', () => {
    for (const s of ['whsec_QUJ', 'whsec_A']) {
      expect(message(() => sign({ secrets: [s] }), 'INVALID_ARGUMENT', 'secrets[0]')).toBe(
        secretProblem('is not canonical padded base64 after "whsec_"'),
      );
    }
  });
});

describe('standard-webhooks refusals name the scheme, the header and the fault', () => {
  it('bad arguments to sign and verify', () => {
    expect(
      message(() => sign({ body: 7 as unknown as string }), 'INVALID_ARGUMENT', 'body'),
    ).toMatch(/^standard-webhooks: body must be the exact string/);
    expect(message(() => sign({ messageId: 'msg.1' }), 'INVALID_ARGUMENT', 'messageId')).toBe(
      'standard-webhooks: messageId must be non-empty printable ASCII without "." or whitespace (it becomes webhook-id and is part of the signed content).',
    );
    expect(
      message(() => verify(headers, { nowSec: Number.NaN }), 'INVALID_ARGUMENT', 'nowSec'),
    ).toMatch(/^standard-webhooks: nowSec must be a finite number/);
  });

  it('each missing header', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expect(
        message(
          () => verify({ ...headers, [name]: undefined }),
          'MISSING_HEADER',
          `headers.${name}`,
        ),
      ).toBe(`standard-webhooks: required header ${name} is missing or empty.`);
    }
  });

  it('a timestamp that is not integer seconds, and repeated different ids', () => {
    expect(
      message(
        () => verify({ ...headers, 'webhook-timestamp': '17e8' }),
        'BAD_SIGNATURE',
        'headers.webhook-timestamp',
      ),
    ).toBe('standard-webhooks: header webhook-timestamp must be integer Unix seconds, got "17e8".');
    expect(
      message(
        () => verify({ ...headers, 'webhook-id': [ID, 'msg_other'] }),
        'BAD_SIGNATURE',
        'headers.webhook-id',
      ),
    ).toMatch(/^standard-webhooks: header webhook-id was sent 2 times with different values/);
  });

  it('a signature list with no v1 entry: only other versions, or entries without a comma', () => {
    for (const list of [
      `v1a,${SIG.slice(3)}`,
      'v1x',
      `v2,${SIG.slice(3)} v1`,
      `,${SIG.slice(3)}`,
    ]) {
      expect(
        message(
          () => verify({ ...headers, 'webhook-signature': list }),
          'BAD_SIGNATURE',
          'headers.webhook-signature',
        ),
      ).toBe('standard-webhooks: webhook-signature has no v1,<base64> entry.');
    }
  });

  it('v1 entries that match no secret', () => {
    expect(
      message(
        () => verify({ ...headers, 'webhook-signature': `v1,${'A'.repeat(43)}=` }),
        'BAD_SIGNATURE',
        'headers.webhook-signature',
      ),
    ).toBe(
      'standard-webhooks: no v1 entry in webhook-signature matches the id, timestamp and body under any configured secret.',
    );
  });

  it('a stale timestamp', () => {
    expect(
      message(
        () => verify(headers, { nowSec: T + 301 }),
        'STALE_TIMESTAMP',
        'headers.webhook-timestamp',
      ),
    ).toBe(`standard-webhooks: signed timestamp ${T} is 301 s old; the tolerance is 300 s.`);
  });
});

describe('standard-webhooks header handling that must not change a verdict', () => {
  it('a repeated signature header is one list: any entry of any value may match', () => {
    const other = `v1,${'A'.repeat(43)}=`;
    expect(verify({ ...headers, 'webhook-signature': [other, SIG] })).toEqual({
      timestampSec: T,
      messageId: ID,
    });
    expect(verify({ ...headers, 'webhook-signature': [SIG, other] })).toEqual({
      timestampSec: T,
      messageId: ID,
    });
  });

  it('svix-* headers without a signature are named as svix-*, found by their id', () => {
    expect(
      message(
        () => verify({ 'svix-id': ID, 'svix-timestamp': String(T) }),
        'MISSING_HEADER',
        'headers.svix-signature',
      ),
    ).toBe('standard-webhooks: required header svix-signature is missing or empty.');
    expect(
      message(() => verify({ 'svix-id': ID }), 'MISSING_HEADER', 'headers.svix-timestamp'),
    ).toBe('standard-webhooks: required header svix-timestamp is missing or empty.');
  });
});
