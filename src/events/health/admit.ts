// Whether an attempt to an endpoint may start now: the breaker and the rate limit, decided under
// the twin's lock at claim time, so every process and host sharing the store is held to them.
// A refused start burns no attempt; the delivery waits until `until` on the world clock.
import type { EndpointHealthFields } from './endpoint-health.js';
import type { HealthPolicy } from './health-policy.js';

export type Admission =
  | { readonly ok: true; readonly health: EndpointHealthFields }
  | {
      readonly ok: false;
      readonly until: number;
      readonly why: 'breaker_open' | 'retry_after' | 'rate_limited';
    };

export function admit(
  health: EndpointHealthFields,
  policy: HealthPolicy,
  nowMs: number,
): Admission {
  let next = health;
  if (health.state === 'throttled') {
    const until = health.pausedUntil === null ? nowMs : Date.parse(health.pausedUntil);
    if (nowMs < until) return { ok: false, until, why: 'retry_after' };
    // The receiver's wait is over; it is still failing until an attempt succeeds.
    next = { ...next, state: 'degraded', pausedUntil: null };
  }
  if (health.state === 'open' || health.state === 'half_open') {
    const until = health.pausedUntil === null ? nowMs : Date.parse(health.pausedUntil);
    if (nowMs < until) return { ok: false, until, why: 'breaker_open' };
    // The pause is over: one probe goes, and the breaker stays shut to the rest for another pause
    // unless the probe's outcome moves it first.
    const pause = policy.breaker?.pauseMs ?? 0;
    next = {
      ...next,
      state: 'half_open',
      pausedUntil: new Date(nowMs + pause).toISOString(),
      ...(health.state === 'open'
        ? { reason: 'probe after pause', changedAt: new Date(nowMs).toISOString() }
        : {}),
    };
  }
  const rate = policy.ratePerSecond;
  if (rate !== undefined) {
    const second = Math.floor(nowMs / 1000);
    // Hosts read their clocks before they meet at the lock, so a claim may arrive with a second
    // older than the one already counted. Counting it there would restart the count and let the
    // newer second take its rate twice; it waits and is claimed again with a fresh reading.
    if (next.rateSecond !== null && second < next.rateSecond)
      return { ok: false, until: next.rateSecond * 1000, why: 'rate_limited' };
    const used = next.rateSecond === second ? next.rateCount : 0;
    // Fractional rates (0.5/s) allow one start per 1/rate seconds.
    const perSecond = Math.max(1, Math.floor(rate));
    if (used >= perSecond) return { ok: false, until: (second + 1) * 1000, why: 'rate_limited' };
    if (rate < 1 && next.rateSecond !== null && second < next.rateSecond + Math.ceil(1 / rate))
      return {
        ok: false,
        until: (next.rateSecond + Math.ceil(1 / rate)) * 1000,
        why: 'rate_limited',
      };
    next = { ...next, rateSecond: second, rateCount: used + 1 };
  }
  return { ok: true, health: next };
}
