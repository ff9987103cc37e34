// GitHub packets against @octokit/webhooks-methods (ESM-only), and ours against Octokit's.

import {
  sign as octokitSign,
  verify as octokitVerify,
  verifyWithFallback,
} from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { githubScheme } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const SECRET = secret('gh-hook-secret-twin-1');
const OLD_SECRET = secret('gh-hook-secret-twin-0');
const BODY = JSON.stringify({
  action: 'opened',
  issue: { number: 1347, title: 'Found a bug ✓' },
  sender: { login: 'octocat' },
});

function sign(body = BODY, secrets: readonly string[] = [SECRET]): string {
  const headers = githubScheme.sign({
    body,
    secrets,
    timestampSec: 1_700_000_000,
    messageId: 'ignored',
  });
  expect(Object.keys(headers)).toEqual(['X-Hub-Signature', 'X-Hub-Signature-256']);
  return headers['X-Hub-Signature-256'] as string;
}

describe('github: packets accepted and refused by @octokit/webhooks-methods', () => {
  it("reproduces GitHub's documented test vector", () => {
    const headers = githubScheme.sign({
      body: 'Hello, World!',
      secrets: [secret("It's a Secret to Everybody")],
      timestampSec: 0,
      messageId: '',
    });
    expect(headers).toEqual({
      // The legacy SHA-1 header GitHub still sends beside the SHA-256 one (vector computed independently).
      'X-Hub-Signature': 'sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59',
      'X-Hub-Signature-256':
        'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    });
  });

  it('verify accepts our signature', async () => {
    expect(await octokitVerify(SECRET, BODY, sign())).toBe(true);
    expect(await octokitSign(SECRET, BODY)).toBe(sign());
  });

  it('signs with secrets[0]; verifyWithFallback finds it among the additional secrets', async () => {
    const header = sign(BODY, [SECRET, OLD_SECRET]);
    expect(await octokitVerify(SECRET, BODY, header)).toBe(true);
    expect(await octokitVerify(OLD_SECRET, BODY, header)).toBe(false);
    expect(await verifyWithFallback(OLD_SECRET, BODY, header, [SECRET])).toBe(true);
  });

  it('verify rejects a tampered body', async () => {
    expect(await octokitVerify(SECRET, BODY.replace('1347', '1348'), sign())).toBe(false);
  });

  it('verify rejects a wrong secret', async () => {
    expect(await octokitVerify(OLD_SECRET, BODY, sign())).toBe(false);
  });
});

describe('github: our verifier', () => {
  const verify = (
    header: string | string[] | undefined,
    opts: { body?: string | Uint8Array; secrets?: string[]; now?: number } = {},
  ) =>
    githubScheme.verify({
      headers: { 'X-GitHub-Event': 'issues', 'x-hub-signature-256': header },
      rawBody: opts.body ?? BODY,
      secrets: opts.secrets ?? [SECRET],
      nowSec: opts.now ?? 1_700_000_000,
    });

  it('accepts our packet and Octokit-signed packets, as string or bytes', async () => {
    expect(verify(sign())).toEqual({});
    expect(verify(await octokitSign(SECRET, BODY), { body: Buffer.from(BODY) })).toEqual({});
  });

  it('has no timestamp, so any clock passes', () => {
    expect(verify(sign(), { now: 0 })).toEqual({});
    expect(verify(sign(), { now: 9_999_999_999 })).toEqual({});
  });

  it('accepts when any configured secret matches', () => {
    expect(verify(sign(), { secrets: [OLD_SECRET, SECRET] })).toEqual({});
  });

  it('refuses a tampered body and a wrong secret', () => {
    expectTwinError(
      () => verify(sign(), { body: `${BODY}\n` }),
      'BAD_SIGNATURE',
      'headers.X-Hub-Signature-256',
    );
    expectTwinError(() => verify(sign(), { secrets: [OLD_SECRET] }), 'BAD_SIGNATURE');
  });

  it('refuses upper-case hex and a bare hex value, as Octokit does', async () => {
    const header = sign();
    expect(await octokitVerify(SECRET, BODY, header.slice('sha256='.length))).toBe(false);
    expectTwinError(() => verify(header.slice('sha256='.length)), 'BAD_SIGNATURE');
    expectTwinError(() => verify(`sha256=${header.slice(7).toUpperCase()}`), 'BAD_SIGNATURE');
  });

  it('refuses a missing or empty header', () => {
    expectTwinError(() => verify(undefined), 'MISSING_HEADER', 'headers.X-Hub-Signature-256');
    expectTwinError(() => verify(''), 'MISSING_HEADER');
    expectTwinError(() => verify([]), 'MISSING_HEADER');
  });
});
