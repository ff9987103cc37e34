// How one finished attempt moves its endpoint's health: a success closes the breaker and ends
// the failing run; a failure degrades, a run of connection failures opens the breaker, and a run
// that lasted the vendor's window disables the endpoint. Pure; the caller appends the result.
import type { AttemptOutcome } from '../retry.js';
import type { EndpointHealthFields, HealthState } from './endpoint-health.js';
import type { HealthPolicy } from './health-policy.js';

export interface AttemptResult {
  readonly outcome: AttemptOutcome;
  /** The receiver's status; null when none came (refused connection, reset, timeout). */
  readonly status: number | null;
  /** The receiver's Retry-After in seconds, when it sent one and the vendor honours it. */
  readonly retryAfterSec?: number;
}

interface HealthChange {
  readonly from: HealthState;
  readonly to: HealthState;
  readonly reason: string;
}

export interface HealthAfter {
  readonly health: EndpointHealthFields;
  /** Present when the state changed; `to: 'disabled'` asks the caller to disable the endpoint. */
  readonly change?: HealthChange;
}

function days(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 48
    ? `${Math.round(h / 24)} days`
    : h >= 1
      ? `${Math.round(h)} h`
      : `${Math.round(ms / 1000)} s`;
}

export function afterAttempt(
  health: EndpointHealthFields,
  policy: HealthPolicy,
  result: AttemptResult,
  nowMs: number,
): HealthAfter {
  const nowIso = new Date(nowMs).toISOString();
  if (health.state === 'disabled') return { health };
  const move = (to: HealthState, reason: string, patch: Partial<EndpointHealthFields>) => {
    const next = { ...health, ...patch, state: to };
    if (to === health.state) return { health: next };
    return {
      health: { ...next, reason, changedAt: nowIso },
      change: { from: health.state, to, reason },
    };
  };
  if (result.outcome === 'succeeded') {
    return move('healthy', health.state === 'healthy' ? '' : 'delivered again', {
      failures: 0,
      connectFailures: 0,
      failingSince: null,
      pausedUntil: null,
    });
  }
  const failures = health.failures + 1;
  const connectFailure = result.outcome === 'unknown' || result.status === null;
  const connectFailures = connectFailure ? health.connectFailures + 1 : 0;
  const failingSince = health.failingSince ?? nowIso;
  const failingFor = nowMs - Date.parse(failingSince);
  const rule = policy.disable;
  if (rule !== undefined && failingFor >= rule.afterMs && failures >= rule.minFailures) {
    return move('disabled', `failing for ${days(failingFor)}, ${failures} failed attempts`, {
      failures,
      connectFailures,
      failingSince,
      pausedUntil: null,
    });
  }
  const breaker = policy.breaker;
  if (
    breaker !== undefined &&
    (health.state === 'half_open' || (connectFailure && connectFailures >= breaker.failures))
  ) {
    const why =
      health.state === 'half_open'
        ? 'probe failed'
        : `${connectFailures} connection failures in a row`;
    return move('open', why, {
      failures,
      connectFailures,
      failingSince,
      pausedUntil: new Date(nowMs + breaker.pauseMs).toISOString(),
    });
  }
  const wait = result.retryAfterSec;
  if (wait !== undefined && wait > 0 && (result.status === 429 || result.status === 503)) {
    return move('throttled', `answered ${result.status} with Retry-After ${wait} s`, {
      failures,
      connectFailures,
      failingSince,
      pausedUntil: new Date(nowMs + wait * 1000).toISOString(),
    });
  }
  return move(health.state === 'open' ? 'open' : 'degraded', `failing since ${failingSince}`, {
    failures,
    connectFailures,
    failingSince,
  });
}
