// Slack packets against Bolt's verifySlackRequest, and our verifier's handling of the same packets.

import { isValidSlackRequest, verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { slackScheme } from '../../../src/events/signing/index.js';
import { expectTwinError, nowSec, secret } from './support.js';

const SECRET = secret('8f742231b10e8888abcd99aaabbb85a5');
const OLD_SECRET = secret('0f742231b10e8888abcd99aaabbb85a0');
const BODY = JSON.stringify({
  type: 'event_callback',
  team_id: 'T0TWIN001',
  event: { type: 'app_mention', text: '<@U0BOT> héllo' },
  event_id: 'Ev0TWIN0001',
});

function sign(timestampSec: number, body = BODY, secrets: readonly string[] = [SECRET]) {
  const headers = slackScheme.sign({ body, secrets, timestampSec, messageId: 'Ev0TWIN0001' });
  expect(Object.keys(headers).sort()).toEqual(['X-Slack-Request-Timestamp', 'X-Slack-Signature']);
  return headers;
}

/** Bolt takes lower-case keys and the timestamp as a number. */
function boltOptions(
  headers: Record<string, string>,
  body: string,
  signingSecret: string,
  nowMilliseconds?: number,
) {
  return {
    signingSecret,
    body,
    headers: {
      'x-slack-signature': headers['X-Slack-Signature'] as string,
      'x-slack-request-timestamp': Number(headers['X-Slack-Request-Timestamp']),
    },
    ...(nowMilliseconds === undefined ? {} : { nowMilliseconds }),
  };
}

describe('slack: packets accepted and refused by @slack/bolt', () => {
  it('verifySlackRequest accepts our packet on its own clock (real now)', () => {
    const headers = sign(nowSec());
    expect(headers['X-Slack-Signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(() => verifySlackRequest(boltOptions(headers, BODY, SECRET))).not.toThrow();
  });

  it('verifySlackRequest accepts our packet with an injected clock', () => {
    const headers = sign(1_531_420_618);
    expect(() =>
      verifySlackRequest(boltOptions(headers, BODY, SECRET, 1_531_420_618_000 + 299_000)),
    ).not.toThrow();
  });

  it('signs with secrets[0] during rotation', () => {
    const headers = sign(nowSec(), BODY, [SECRET, OLD_SECRET]);
    expect(isValidSlackRequest(boltOptions(headers, BODY, SECRET))).toBe(true);
    expect(isValidSlackRequest(boltOptions(headers, BODY, OLD_SECRET))).toBe(false);
  });

  it('rejects a tampered body', () => {
    const headers = sign(nowSec());
    expect(() =>
      verifySlackRequest(boltOptions(headers, BODY.replace('héllo', 'hello'), SECRET)),
    ).toThrow(/signature mismatch/);
  });

  it('rejects a wrong secret', () => {
    const headers = sign(nowSec());
    expect(() => verifySlackRequest(boltOptions(headers, BODY, OLD_SECRET))).toThrow(
      /signature mismatch/,
    );
  });

  it('rejects a stale timestamp (301 s old)', () => {
    const now = nowSec();
    const headers = sign(now - 301);
    expect(() => verifySlackRequest(boltOptions(headers, BODY, SECRET))).toThrow(/stale/);
    expect(() =>
      verifySlackRequest(boltOptions(sign(now), BODY, SECRET, (now + 301) * 1000)),
    ).toThrow(/stale/);
  });

  it('Bolt accepts a future timestamp; our ingress is stricter and refuses it', () => {
    const now = nowSec();
    const headers = sign(now + 3600);
    expect(isValidSlackRequest(boltOptions(headers, BODY, SECRET))).toBe(true);
    expectTwinError(
      () => slackScheme.verify({ headers, rawBody: BODY, secrets: [SECRET], nowSec: now }),
      'STALE_TIMESTAMP',
      'headers.X-Slack-Request-Timestamp',
    );
  });
});

describe('slack: our verifier', () => {
  const T = 1_700_000_000;
  const verify = (
    headers: Record<string, string | undefined>,
    opts: { body?: string | Uint8Array; secrets?: string[]; now?: number } = {},
  ) =>
    slackScheme.verify({
      headers,
      rawBody: opts.body ?? BODY,
      secrets: opts.secrets ?? [SECRET],
      nowSec: opts.now ?? T,
    });

  it('accepts our packet with any header casing, as string or bytes', () => {
    const headers = sign(T);
    expect(verify(headers)).toEqual({ timestampSec: T });
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verify(lower, { body: new TextEncoder().encode(BODY) })).toEqual({ timestampSec: T });
  });

  it('accepts when any configured secret matches', () => {
    expect(verify(sign(T), { secrets: [OLD_SECRET, SECRET] })).toEqual({ timestampSec: T });
  });

  it('refuses a tampered body, a wrong secret, and a re-stamped timestamp', () => {
    expectTwinError(
      () => verify(sign(T), { body: BODY.slice(1) }),
      'BAD_SIGNATURE',
      'headers.X-Slack-Signature',
    );
    expectTwinError(() => verify(sign(T), { secrets: [OLD_SECRET] }), 'BAD_SIGNATURE');
    expectTwinError(
      () => verify({ ...sign(T), 'X-Slack-Request-Timestamp': String(T + 1) }),
      'BAD_SIGNATURE',
    );
  });

  it('refuses stale and far-future timestamps', () => {
    expect(verify(sign(T), { now: T + 300 })).toEqual({ timestampSec: T });
    expectTwinError(() => verify(sign(T), { now: T + 301 }), 'STALE_TIMESTAMP');
    expectTwinError(() => verify(sign(T), { now: T - 301 }), 'STALE_TIMESTAMP');
  });

  it('refuses a missing signature or timestamp header, and a malformed timestamp', () => {
    const headers = sign(T);
    expectTwinError(
      () => verify({ ...headers, 'X-Slack-Signature': undefined }),
      'MISSING_HEADER',
      'headers.X-Slack-Signature',
    );
    expectTwinError(
      () => verify({ ...headers, 'X-Slack-Request-Timestamp': undefined }),
      'MISSING_HEADER',
      'headers.X-Slack-Request-Timestamp',
    );
    expectTwinError(
      () => verify({ ...headers, 'X-Slack-Request-Timestamp': '1.7e9' }),
      'BAD_SIGNATURE',
    );
  });
});
