// Every refusal of the GitHub verifier and signer says what was wrong, prefixed with the scheme,
// naming the header — a malformed header told apart from a signature that does not match — and
// the header handling (surrounding whitespace, repeated values) that must not change a verdict.
import { describe, expect, it } from 'vitest';
import { githubScheme, type SignRequest } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const SECRET = secret('gh-refusal-secret-000000000001');
const BODY = '{"action":"opened","number":7}';
const T = 1_760_000_000;
const signed = githubScheme.sign({
  body: BODY,
  secrets: [SECRET],
  timestampSec: T,
  messageId: 'ignored',
})['X-Hub-Signature-256']!;
const verify = (header: string | string[] | undefined, over: { nowSec?: number } = {}) =>
  githubScheme.verify({
    headers: header === undefined ? {} : { 'X-Hub-Signature-256': header },
    rawBody: BODY,
    secrets: [SECRET],
    nowSec: over.nowSec ?? T,
  });

describe('github refusals name the scheme, the header and the fault', () => {
  it('a missing header', () => {
    expect(
      expectTwinError(() => verify(undefined), 'MISSING_HEADER', 'headers.X-Hub-Signature-256')
        .message,
    ).toBe('github: required header X-Hub-Signature-256 is missing or empty.');
  });

  it('a value without the sha256= prefix is malformed, not merely a mismatch', () => {
    for (const header of [signed.slice('sha256='.length), `sha1=${'0'.repeat(40)}`]) {
      expect(
        expectTwinError(() => verify(header), 'BAD_SIGNATURE', 'headers.X-Hub-Signature-256')
          .message,
      ).toBe('github: X-Hub-Signature-256 must look like sha256=<hex>.');
    }
  });

  it('a well-formed signature that matches no secret', () => {
    expect(
      expectTwinError(
        () => verify(`sha256=${'0'.repeat(64)}`),
        'BAD_SIGNATURE',
        'headers.X-Hub-Signature-256',
      ).message,
    ).toBe('github: X-Hub-Signature-256 does not match the body under any configured secret.');
  });

  it('bad arguments to sign and verify', () => {
    const s = expectTwinError(
      () =>
        githubScheme.sign({
          body: BODY,
          secrets: [],
          timestampSec: T,
          messageId: 'x',
        } satisfies SignRequest),
      'INVALID_ARGUMENT',
      'secrets',
    );
    expect(s.message).toBe('github: secrets is empty; pass at least one signing secret.');
    const v = expectTwinError(() => verify(signed, { nowSec: Number.NaN }), 'INVALID_ARGUMENT');
    expect(v.path).toBe('nowSec');
    expect(v.message).toMatch(/^github: nowSec must be a finite number/);
  });
});

describe('github header handling that must not change a verdict', () => {
  it('whitespace around the value is ignored', () => {
    expect(verify(` ${signed} `)).toEqual({});
    expect(verify(`${signed}\t`)).toEqual({});
  });

  it('a repeated header passes when any one value matches, even beside a malformed one', () => {
    expect(verify(['garbage', signed])).toEqual({});
    expect(verify([`sha256=${'0'.repeat(64)}`, signed])).toEqual({});
  });
});
