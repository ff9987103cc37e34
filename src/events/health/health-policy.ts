// Endpoint health as a vendor runs it, declared beside the pack's retry policy: how fast one
// endpoint may be sent to, when a run of connection failures pauses it (the breaker), and after
// how long a failing endpoint is disabled and what the vendor does then. Every figure is on the
// world clock, so a walk can spend a vendor's five-day window in a second.
import { TwinError } from '../../errors.js';

interface BreakerRule {
  /** Consecutive connection failures or timeouts (outcome `unknown`, or `failed` without a status) that open it. */
  readonly failures: number;
  /** How long it stays open before one probe is let through (half-open). */
  readonly pauseMs: number;
}

interface DisableRule {
  /** How long the endpoint must have failed without a single success. */
  readonly afterMs: number;
  /** And at least this many failed attempts in that run (so one slow retry does not disable). */
  readonly minFailures: number;
  /**
   * What the vendor does when it disables: `event` sends `eventType` through the dispatcher (Svix's
   * operational `endpoint.disabled`); `notice` only records it (Stripe emails the account owner).
   */
  readonly announce: 'event' | 'notice';
  readonly eventType?: string;
}

export interface HealthPolicy {
  /** Where the vendor documents the rule this declares. */
  readonly source: string;
  /** Attempts started per second per endpoint, across every process sharing the store. */
  readonly ratePerSecond?: number;
  readonly breaker?: BreakerRule;
  readonly disable?: DisableRule;
}

function bad(path: string, message: string): never {
  throw new TwinError('INVALID_CONFIG', message, { path });
}

function positive(value: unknown, path: string, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    bad(path, `${path} must be a positive number (${what})`);
}

function count(value: unknown, path: string): void {
  if (!Number.isInteger(value) || (value as number) < 1)
    bad(path, `${path} must be a whole number of at least 1`);
}

export function validateHealthPolicy(policy: HealthPolicy, path = 'health'): HealthPolicy {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy))
    bad(path, `${path} must be an object {source, ratePerSecond?, breaker?, disable?}`);
  if (typeof policy.source !== 'string' || policy.source === '')
    bad(`${path}.source`, `${path}.source must name where the vendor documents the rule`);
  if (policy.ratePerSecond !== undefined)
    positive(policy.ratePerSecond, `${path}.ratePerSecond`, 'attempts per second, e.g. 10');
  if (policy.breaker !== undefined) {
    count(policy.breaker.failures, `${path}.breaker.failures`);
    positive(policy.breaker.pauseMs, `${path}.breaker.pauseMs`, 'milliseconds, e.g. 30000');
  }
  if (policy.disable !== undefined) {
    positive(policy.disable.afterMs, `${path}.disable.afterMs`, 'milliseconds, e.g. 432000000');
    count(policy.disable.minFailures, `${path}.disable.minFailures`);
    if (policy.disable.announce !== 'event' && policy.disable.announce !== 'notice')
      bad(`${path}.disable.announce`, `${path}.disable.announce must be "event" or "notice"`);
    if (
      policy.disable.announce === 'event' &&
      (typeof policy.disable.eventType !== 'string' || policy.disable.eventType === '')
    )
      bad(
        `${path}.disable.eventType`,
        `${path}.disable.eventType must name the operational event sent, e.g. "endpoint.disabled"`,
      );
  }
  return policy;
}
