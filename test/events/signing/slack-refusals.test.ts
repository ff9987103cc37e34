// Every refusal of the Slack verifier (the timestamped-HMAC shape) says what was wrong, prefixed
// with the scheme and naming the header — a malformed signature told apart from one that does not
// match — and the header handling (surrounding whitespace, repeated values) that must not change
// a verdict.
import { describe, expect, it } from 'vitest';
import { slackScheme } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const SECRET = secret('slack-refusal-secret-0000000001');
const BODY = '{"type":"event_callback","event_id":"Ev0REFUSAL"}';
const T = 1_760_000_000;
const headers = slackScheme.sign({ body: BODY, secrets: [SECRET], timestampSec: T, messageId: '' });
const SIG = headers['X-Slack-Signature']!;
const verify = (signature: string | string[] | undefined, timestamp: string = String(T)) =>
  slackScheme.verify({
    headers: { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': timestamp },
    rawBody: BODY,
    secrets: [SECRET],
    nowSec: T,
  });

describe('slack refusals name the scheme, the header and the fault', () => {
  it('a signature without the v0= prefix is malformed, not merely a mismatch', () => {
    for (const signature of [SIG.slice('v0='.length), `v1=${SIG.slice('v0='.length)}`]) {
      expect(
        expectTwinError(() => verify(signature), 'BAD_SIGNATURE', 'headers.X-Slack-Signature')
          .message,
      ).toBe('slack: X-Slack-Signature must look like v0=<hex>.');
    }
  });

  it('a well-formed signature that matches no secret', () => {
    expect(
      expectTwinError(
        () => verify(`v0=${'0'.repeat(64)}`),
        'BAD_SIGNATURE',
        'headers.X-Slack-Signature',
      ).message,
    ).toBe(
      'slack: X-Slack-Signature does not match the timestamp and body under any configured secret.',
    );
  });
});

describe('slack header handling that must not change a verdict', () => {
  it('whitespace around the signature is ignored', () => {
    expect(verify(` ${SIG} `)).toEqual({ timestampSec: T });
    expect(verify(`${SIG}\t`)).toEqual({ timestampSec: T });
  });

  it('a repeated signature header passes when any one value matches, even beside a malformed one', () => {
    expect(verify(['garbage', SIG])).toEqual({ timestampSec: T });
    expect(verify([`v0=${'0'.repeat(64)}`, SIG])).toEqual({ timestampSec: T });
  });
});
