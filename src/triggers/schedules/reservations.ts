// A reservation's lifetime on the service: reserve (or reclaim a lapsed one), give it back, and
// extend its lease while its run lasts.

import { type Reservation } from './claim.js';
import { decideHeartbeat, decideRelease, decideReserve } from './reservation.js';

import { type ScheduleService, checkOwnerCall, checkReservation } from './schedule-service.js';

/** Reserves a ready occurrence, or reclaims one whose owner's lease lapsed; undefined if neither. */
export function reserveOccurrence(
  svc: ScheduleService,
  occurrenceId: string,
  options: { owner?: string } = {},
): Promise<Reservation | undefined> {
  checkOwnerCall('schedules.reserve(occurrenceId, options)', 'occurrenceId', occurrenceId, options);
  const nowMs = svc.now();
  const owner = options.owner ?? svc.owner;
  return svc.decide((view) =>
    decideReserve(view, nowMs, occurrenceId, { owner, leaseMs: svc.leaseMs }),
  );
}

/** Gives back a reservation not launched yet: ready again for any worker. False if it was not held. */
export function releaseReservation(svc: ScheduleService, held: Reservation): Promise<boolean> {
  checkReservation(held);
  const nowMs = svc.now();
  return svc.decide((view) => decideRelease(view, nowMs, held));
}

/** Extends a reservation's lease; false once it lost the occurrence. */
export function heartbeatReservation(svc: ScheduleService, held: Reservation): Promise<boolean> {
  // No reservation was a TypeError; {} was refused from deep in the store as get(type, id)'s.
  checkReservation(held);
  const nowMs = svc.now();
  return svc.decide((view) => decideHeartbeat(view, nowMs, held, svc.leaseMs));
}
