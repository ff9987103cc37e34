// One health record per endpoint, kept in the endpoint's twin beside its deliveries: where the
// breaker stands, the current run of failures, the slots booked for its attempts (pace.ts) and
// which of them are out (receiver-bound.ts).
// Each change is an appended write, so a replay shows when and why an endpoint degraded, was
// throttled, broke open, closed again or was disabled. A healthy endpoint without a rate whose
// attempts succeed writes nothing: health costs a delivery nothing until something goes wrong.
import { recordKind } from '../../state/record-kind.js';
import type { Slots } from './pace.js';
import type { OutAttempts } from './receiver-bound.js';

/**
 * `throttled`: the receiver answered 429/503 with Retry-After, and the vendor honours it, so the
 * whole endpoint waits that long (not only the delivery that was told).
 */
export type HealthState = 'healthy' | 'degraded' | 'throttled' | 'open' | 'half_open' | 'disabled';

export interface EndpointHealthFields extends Slots, OutAttempts {
  endpointKind: string;
  endpointId: string;
  state: HealthState;
  /** Failed attempts since the last success. */
  failures: number;
  /** Of those, consecutive connection failures and timeouts (what opens the breaker). */
  connectFailures: number;
  /** The first failure since the last success; null while healthy. */
  failingSince: string | null;
  /** While open: when the next probe may go; while throttled: when the Retry-After ends. */
  pausedUntil: string | null;
  /** Why the state last changed (e.g. "failing for 5 days, 12 failures"), and when. */
  reason: string | null;
  changedAt: string | null;
}

export const endpointHealthKind = recordKind<EndpointHealthFields, [string, string]>({
  type: 'endpoint_health',
  id: (kind, id) => `${kind}:${id}`,
});

export function freshHealth(endpointKind: string, endpointId: string): EndpointHealthFields {
  return {
    endpointKind,
    endpointId,
    state: 'healthy',
    failures: 0,
    connectFailures: 0,
    failingSince: null,
    pausedUntil: null,
    slotAnchor: null,
    slotsBooked: 0,
    slotRate: null,
    reason: null,
    changedAt: null,
  };
}
