// Retry policies on their own: what a declaration may say (refused with INVALID_CONFIG naming
// the field), and when the next attempt is due — schedule, jitter bounds, outcomes retried,
// statuses that stop, and Retry-After.
import { describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { nextAttemptAt, validateRetryPolicy, type RetryPolicy } from '../../src/events/retry.js';

const NOW = Date.parse('2026-04-01T00:00:00.000Z');
const mid = () => 0.5;

function refusal(policy: unknown, path?: string): TwinError {
  try {
    validateRetryPolicy(policy as RetryPolicy, path);
  } catch (error) {
    expect(error).toBeInstanceOf(TwinError);
    expect((error as TwinError).code).toBe('INVALID_CONFIG');
    return error as TwinError;
  }
  return expect.unreachable(`policy ${JSON.stringify(policy)} was accepted`) as never;
}

describe('validateRetryPolicy', () => {
  it('accepts a full policy and the edges of each field, and returns it unchanged', () => {
    const full: RetryPolicy = {
      delaysMs: [0, 60_000],
      jitter: 0,
      retryOn: ['failed', 'unknown'],
      stopOnStatus: [100, 410, 599],
      honorRetryAfter: false,
    };
    expect(validateRetryPolicy(full)).toBe(full);
    for (const ok of [
      { delaysMs: [], retryOn: [] },
      { delaysMs: [1], retryOn: ['unknown'], jitter: 0.999 },
      { delaysMs: [1], retryOn: ['failed'], honorRetryAfter: true, stopOnStatus: [] },
    ] as RetryPolicy[]) {
      expect(validateRetryPolicy(ok)).toBe(ok);
    }
  });

  it('refuses a policy that is not an object, naming the path given', () => {
    for (const bad of [null, 'fast', 3, [60_000]])
      expect(refusal(bad, 'packs.x.events.retry')).toMatchObject({
        path: 'packs.x.events.retry',
        message: expect.stringMatching(/^packs\.x\.events\.retry must be an object/),
      });
    expect(refusal(null).path).toBe('retry');
  });

  it('refuses delaysMs that is not an array of finite non-negative numbers', () => {
    for (const delaysMs of [
      undefined,
      60_000,
      [60_000, -1],
      [Number.NaN],
      [Number.POSITIVE_INFINITY],
      ['60000'],
      [60_000, null],
    ]) {
      const e = refusal({ delaysMs, retryOn: ['failed'] });
      expect(e.path).toBe('retry.delaysMs');
      expect(e.message).toBe(
        'retry.delaysMs must be an array of non-negative millisecond delays, e.g. [60000, 300000]',
      );
    }
  });

  it('refuses jitter outside [0, 1)', () => {
    for (const jitter of [-0.01, 1, 1.5, Number.NaN, '0.1', null]) {
      const e = refusal({ delaysMs: [1], retryOn: ['failed'], jitter });
      expect(e).toMatchObject({
        path: 'retry.jitter',
        message: 'retry.jitter must be a fraction in [0, 1)',
      });
    }
  });

  it('refuses retryOn that is not a list of "failed" and "unknown"', () => {
    for (const retryOn of [undefined, 'failed', ['failed', 'succeeded'], ['timeout'], [null]]) {
      const e = refusal({ delaysMs: [1], retryOn });
      expect(e).toMatchObject({
        path: 'retry.retryOn',
        message: 'retry.retryOn may list only "failed" and "unknown"',
      });
    }
  });

  it('refuses stopOnStatus that is not a list of HTTP statuses, and a non-boolean honorRetryAfter', () => {
    for (const stopOnStatus of [410, '410', [410, 99], [600], [410.5], ['410']]) {
      expect(refusal({ delaysMs: [1], retryOn: ['failed'], stopOnStatus })).toMatchObject({
        path: 'retry.stopOnStatus',
        message:
          'retry.stopOnStatus must be an array of HTTP statuses (integers 100–599), e.g. [410]',
      });
    }
    for (const honorRetryAfter of ['yes', 1, null]) {
      expect(refusal({ delaysMs: [1], retryOn: ['failed'], honorRetryAfter })).toMatchObject({
        path: 'retry.honorRetryAfter',
        message: 'retry.honorRetryAfter must be true or false',
      });
    }
  });
});

describe('nextAttemptAt', () => {
  const policy: RetryPolicy = { delaysMs: [60_000, 300_000], retryOn: ['failed', 'unknown'] };

  it('follows the schedule by attempt number, and is spent after it', () => {
    expect(nextAttemptAt(policy, 1, 'failed', 500, NOW, mid)).toBe(NOW + 60_000);
    expect(nextAttemptAt(policy, 2, 'unknown', null, NOW, mid)).toBe(NOW + 300_000);
    expect(nextAttemptAt(policy, 3, 'failed', 500, NOW, mid)).toBeUndefined();
    expect(nextAttemptAt({ ...policy, delaysMs: [0] }, 1, 'failed', 500, NOW, mid)).toBe(NOW);
  });

  it('never retries without a policy, or a success whatever the policy lists', () => {
    expect(nextAttemptAt(undefined, 1, 'failed', 500, NOW, mid)).toBeUndefined();
    expect(
      nextAttemptAt(
        { ...policy, retryOn: ['succeeded' as 'failed'] },
        1,
        'succeeded',
        200,
        NOW,
        mid,
      ),
    ).toBeUndefined();
  });

  it('retries only the outcomes listed', () => {
    expect(
      nextAttemptAt({ ...policy, retryOn: ['failed'] }, 1, 'unknown', null, NOW, mid),
    ).toBeUndefined();
    expect(
      nextAttemptAt({ ...policy, retryOn: ['unknown'] }, 1, 'failed', 500, NOW, mid),
    ).toBeUndefined();
    expect(nextAttemptAt({ ...policy, retryOn: ['unknown'] }, 1, 'unknown', null, NOW, mid)).toBe(
      NOW + 60_000,
    );
  });

  it('stops on a status the policy names; other statuses, and no status, go on', () => {
    const stopping = { ...policy, stopOnStatus: [410] };
    expect(nextAttemptAt(stopping, 1, 'failed', 410, NOW, mid)).toBeUndefined();
    expect(nextAttemptAt(stopping, 1, 'failed', 500, NOW, mid)).toBe(NOW + 60_000);
    expect(nextAttemptAt(stopping, 1, 'unknown', null, NOW, mid)).toBe(NOW + 60_000);
    // without stopOnStatus any status goes on
    expect(nextAttemptAt(policy, 1, 'failed', 410, NOW, mid)).toBe(NOW + 60_000);
  });

  it('jitter spreads each delay by ± the fraction, drawn from the given source, rounded to the millisecond', () => {
    const jittered = { ...policy, jitter: 0.1 };
    expect(nextAttemptAt(jittered, 1, 'failed', 500, NOW, () => 0)).toBe(NOW + 54_000);
    expect(nextAttemptAt(jittered, 1, 'failed', 500, NOW, () => 0.5)).toBe(NOW + 60_000);
    expect(nextAttemptAt(jittered, 1, 'failed', 500, NOW, () => 0.75)).toBe(NOW + 63_000);
    expect(nextAttemptAt(jittered, 2, 'failed', 500, NOW, () => 0.123456)).toBe(
      NOW + Math.round(300_000 * (1 + 0.1 * (2 * 0.123456 - 1))),
    );
    // no jitter: the draw does not matter
    expect(nextAttemptAt(policy, 1, 'failed', 500, NOW, () => 0)).toBe(NOW + 60_000);
  });

  it('Retry-After lengthens the delay only when honoured and longer than the schedule', () => {
    const honouring = { ...policy, honorRetryAfter: true };
    expect(nextAttemptAt(honouring, 1, 'failed', 429, NOW, mid, 600)).toBe(NOW + 600_000);
    expect(nextAttemptAt(honouring, 1, 'failed', 429, NOW, mid, 30)).toBe(NOW + 60_000);
    expect(nextAttemptAt(honouring, 1, 'failed', 429, NOW, mid)).toBe(NOW + 60_000);
    expect(nextAttemptAt(policy, 1, 'failed', 429, NOW, mid, 600)).toBe(NOW + 60_000);
    expect(
      nextAttemptAt({ ...policy, honorRetryAfter: false }, 1, 'failed', 503, NOW, mid, 600),
    ).toBe(NOW + 60_000);
  });
});
