// Launch reservations after the claim: a worker reserves an occurrence nobody owns yet (a
// backfill's, or one promoted from the buffer), or reclaims one whose owner's lease lapsed (it
// died between claim and launch, or while its run ran); and an owner extends its lease while it
// works. Each reservation counts the row's fence up, so a result from an earlier holder is stale.
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import { extendFields, leaseFree, leaseOf } from '../../work/lease.js';
import { fireWriter, putFire, readFire, type Claimant, type Reservation } from './claim.js';
import { FIRE_TYPE, reservationIdOf, type FireFields } from './fire-record.js';

/** Whether the row is held by this reservation: same owner, same fence, not settled or buffered. */
export function holds(fire: FireFields, held: Pick<Reservation, 'owner' | 'fence'>): boolean {
  return (
    (fire.state === 'reserved' || fire.state === 'running') &&
    fire.owner === held.owner &&
    fire.fence === held.fence
  );
}

/**
 * Reserves a ready occurrence, or reclaims a reserved or running one whose lease lapsed. A
 * reclaimed run is presumed lost with its owner: the new reservation launches it again.
 */
export function decideReserve(
  view: ReadView,
  nowMs: number,
  fireId: string,
  claimant: Claimant & { readonly owner: string },
): Decision<Reservation | undefined> {
  const fire = readFire(fireWriter(view), fireId);
  if (fire === undefined) return skip();
  const ready = fire.state === 'ready';
  const lapsed =
    (fire.state === 'reserved' || fire.state === 'running') &&
    leaseFree(
      leaseOf({ owner: fire.owner, leaseUntil: fire.leaseUntil, fence: fire.fence }),
      nowMs,
    );
  if (!ready && !lapsed) return skip();
  const fence = fire.fence + 1;
  const leaseUntil = isoAt(nowMs + claimant.leaseMs);
  const reservationId = reservationIdOf(fireId, fence);
  const s = fireWriter(view);
  putFire(s, fireId, ready ? 'schedule.reserve' : 'schedule.reclaim', {
    state: 'reserved',
    outcome: null,
    reservationId,
    runId: null,
    owner: claimant.owner,
    leaseUntil,
    fence,
    dueAt: leaseUntil,
    ...(fire.state === 'running' ? { reclaimedRunId: fire.runId } : {}),
  });
  return commit(s.writes, {
    tenantId: fire.tenantId,
    scheduleId: fire.scheduleId,
    occurrenceId: fireId,
    nominalAt: fire.nominalAt,
    owner: claimant.owner,
    fence,
    reservationId,
    leaseUntil,
  });
}

/** A heartbeat: extends the lease while the reservation still holds the row; false once it lost it. */
export function decideHeartbeat(
  view: ReadView,
  nowMs: number,
  held: Reservation,
  leaseMs: number,
): Decision<boolean> {
  const fire = readFire(fireWriter(view), held.occurrenceId);
  if (fire === undefined || !holds(fire, held)) return skip(false);
  return commit(
    [
      {
        operation: 'schedule.heartbeat',
        subjectType: FIRE_TYPE,
        subjectId: held.occurrenceId,
        fields: extendFields(nowMs, leaseMs),
        actor: 'system',
      },
    ],
    true,
  );
}

/**
 * Gives a reservation back before launching it (a host shutting down): the occurrence is ready
 * again, due at once for any worker. A launched run is not released: it ends with a result, or its
 * lease lapses. False when the reservation no longer holds the row or already launched.
 */
export function decideRelease(view: ReadView, nowMs: number, held: Reservation): Decision<boolean> {
  const w = fireWriter(view);
  const fire = readFire(w, held.occurrenceId);
  if (fire === undefined || !holds(fire, held) || fire.state !== 'reserved') return skip(false);
  putFire(w, held.occurrenceId, 'schedule.release_reservation', {
    state: 'ready',
    owner: null,
    leaseUntil: null,
    dueAt: isoAt(nowMs),
  });
  return commit(w.writes, true);
}
