// Retry policies as vendors declare them: a schedule of delays on the world clock, seeded
// jitter, and which outcomes earn another attempt. No policy means no retry.
import { TwinError } from '../errors.js';

export type AttemptOutcome = 'succeeded' | 'failed' | 'unknown';

export interface RetryPolicy {
  /** Delay before attempt 2, 3, … in ms; its length is the number of retries. */
  readonly delaysMs: readonly number[];
  /** ± fraction of each delay, drawn from the world's seeded id source (0 = exact). */
  readonly jitter?: number;
  /** Outcomes that are retried. A `failed` attempt is always eligible if listed; `unknown` means a timeout or a reset. */
  readonly retryOn: readonly Exclude<AttemptOutcome, 'succeeded'>[];
  /** Statuses that are never retried even when `failed` is (e.g. 410 Gone). */
  readonly stopOnStatus?: readonly number[];
  /** Honour Retry-After (seconds) on 429/503 when it asks for longer than the schedule. */
  readonly honorRetryAfter?: boolean;
}

export function validateRetryPolicy(policy: RetryPolicy, path = 'retry'): RetryPolicy {
  const fail = (p: string, m: string): never => {
    throw new TwinError('INVALID_CONFIG', m, { path: p });
  };
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy))
    fail(
      path,
      `${path} must be an object {delaysMs, retryOn, jitter?, stopOnStatus?, honorRetryAfter?}`,
    );
  if (
    !Array.isArray(policy.delaysMs) ||
    policy.delaysMs.some((d) => typeof d !== 'number' || !Number.isFinite(d) || d < 0)
  ) {
    fail(
      `${path}.delaysMs`,
      `${path}.delaysMs must be an array of non-negative millisecond delays, e.g. [60000, 300000]`,
    );
  }
  if (
    policy.jitter !== undefined &&
    (typeof policy.jitter !== 'number' || !(policy.jitter >= 0 && policy.jitter < 1))
  )
    fail(`${path}.jitter`, `${path}.jitter must be a fraction in [0, 1)`);
  if (
    !Array.isArray(policy.retryOn) ||
    policy.retryOn.some((o) => o !== 'failed' && o !== 'unknown')
  )
    fail(`${path}.retryOn`, `${path}.retryOn may list only "failed" and "unknown"`);
  if (
    policy.stopOnStatus !== undefined &&
    (!Array.isArray(policy.stopOnStatus) ||
      policy.stopOnStatus.some((s) => !Number.isInteger(s) || s < 100 || s > 599))
  ) {
    fail(
      `${path}.stopOnStatus`,
      `${path}.stopOnStatus must be an array of HTTP statuses (integers 100–599), e.g. [410]`,
    );
  }
  if (policy.honorRetryAfter !== undefined && typeof policy.honorRetryAfter !== 'boolean')
    fail(`${path}.honorRetryAfter`, `${path}.honorRetryAfter must be true or false`);
  return policy;
}

/**
 * When the next attempt is due after attempt `attempt` (1-based) ended with `outcome`, or
 * undefined when the policy is spent or does not retry this outcome.
 */
export function nextAttemptAt(
  policy: RetryPolicy | undefined,
  attempt: number,
  outcome: AttemptOutcome,
  status: number | null,
  now: number,
  random: () => number,
  retryAfterSec?: number,
): number | undefined {
  if (policy === undefined || outcome === 'succeeded') return undefined;
  if (!policy.retryOn.includes(outcome)) return undefined;
  if (status !== null && policy.stopOnStatus?.includes(status)) return undefined;
  const base = policy.delaysMs[attempt - 1];
  if (base === undefined) return undefined;
  const jitter = policy.jitter ?? 0;
  let delay = Math.round(base * (1 + jitter * (2 * random() - 1)));
  if (policy.honorRetryAfter && retryAfterSec !== undefined && retryAfterSec * 1000 > delay)
    delay = retryAfterSec * 1000;
  return now + delay;
}
