// The generic scheme has no vendor verifier, so its convention is pinned against a hand-built
// node:crypto MAC, and its verifier is exercised like the vendor ones.

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

describe('hmac-sha256: convention', () => {
  it('sends X-Timestamp and X-Signature: sha256=<hex of HMAC(secret, "<ts>.<body>")>', () => {
    const mac = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(sign()).toEqual({ 'X-Signature': `sha256=${mac}`, 'X-Timestamp': String(T) });
  });
});

describe('hmac-sha256: our verifier', () => {
  const verify = (headers: Record<string, string | undefined>, opts: { body?: string; secrets?: string[]; now?: number } = {}) =>
    hmacSha256Scheme.verify({ headers, rawBody: opts.body ?? BODY, secrets: opts.secrets ?? [SECRET], nowSec: opts.now ?? T });

  it('accepts our packet and reports the timestamp', () => {
    expect(verify(sign())).toEqual({ timestampSec: T });
    expect(verify(sign(), { secrets: [OTHER, SECRET] })).toEqual({ timestampSec: T });
  });

  it('refuses a tampered body, a wrong secret, and a rewritten timestamp (it is signed)', () => {
    expectTwinError(() => verify(sign(), { body: `${BODY} ` }), 'BAD_SIGNATURE', 'headers.X-Signature');
    expectTwinError(() => verify(sign(), { secrets: [OTHER] }), 'BAD_SIGNATURE');
    expectTwinError(() => verify({ ...sign(), 'X-Timestamp': String(T + 60) }, { now: T + 60 }), 'BAD_SIGNATURE');
  });

  it('refuses stale and future timestamps', () => {
    expectTwinError(() => verify(sign(), { now: T + 301 }), 'STALE_TIMESTAMP', 'headers.X-Timestamp');
    expectTwinError(() => verify(sign(), { now: T - 301 }), 'STALE_TIMESTAMP');
  });

  it('refuses missing headers', () => {
    expectTwinError(() => verify({ ...sign(), 'X-Signature': undefined }), 'MISSING_HEADER', 'headers.X-Signature');
    expectTwinError(() => verify({ ...sign(), 'X-Timestamp': undefined }), 'MISSING_HEADER', 'headers.X-Timestamp');
  });
});
