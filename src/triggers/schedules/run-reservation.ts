// Running a reservation: launch it, run its routine while heartbeating (a lost occurrence aborts
// the routine's signal), and settle the row with the result.
import { TwinError } from '../../errors.js';
import { type JsonValue } from '../../log/json-value.js';
import { keepAlive } from '../../work/heartbeat.js';

import { readFire, fireWriter, type Reservation } from './claim.js';
import { runIdOf } from './fire-record.js';
import { type FireResult } from './result.js';
import { runStartOf } from './run-start.js';

import { type ScheduleService, checkReservation } from './schedule-service.js';
import { settle, checkRunResult, errorCode } from './record-result.js';
import { heartbeatReservation } from './reservations.js';

export interface RunReport {
  readonly occurrenceId: string;
  readonly runId: string;
  readonly outcome: 'completed' | 'failed';
  readonly result: JsonValue;
  readonly error: string | null;
  /** The buffered occurrence the end of this run promoted. */
  readonly promoted: string | null;
}

/**
 * Launches a reservation and runs its routine to the end: the launch replaces the reservation
 * with the run id, the owner heartbeats while it runs (a lost occurrence aborts the routine's
 * signal), and the result settles the row. STALE_OWNER when the reservation lost the occurrence
 * at launch or before the result.
 */
export async function runReservation(svc: ScheduleService, held: Reservation): Promise<RunReport> {
  // As heartbeat: no reservation was a TypeError, {} a refusal of the store's get(type, id).
  checkReservation(held);
  const runner = svc.runner;
  if (runner === undefined)
    throw new TwinError(
      'INVALID_ARGUMENT',
      'this Schedules has no runner; pass {runner} (e.g. new InProcessRunner(world)) to run occurrences',
      { path: 'runner' },
    );
  const fire = await svc.twin.read((view) => readFire(fireWriter(view), held.occurrenceId));
  if (fire === undefined)
    throw new TwinError('UNKNOWN_TRIGGER', `no ledger row ${held.occurrenceId}`, {
      path: 'occurrenceId',
    });
  const runId = runIdOf(held.occurrenceId, held.fence);
  const lost = new AbortController();
  const stopBeats = keepAlive(
    svc.world.clock,
    svc.leaseMs,
    async () => {
      const ok = await heartbeatReservation(svc, held);
      if (!ok) lost.abort();
      return ok;
    },
    (error) => svc.world.reportError(error, `heartbeat of occurrence ${held.occurrenceId}`),
  );
  let result: FireResult;
  try {
    await settle(svc, held, { outcome: 'launched', runId });
    const start = runStartOf(held.occurrenceId, fire, held.fence);
    try {
      const value = await runner.run({ ...start, input: fire.input, signal: lost.signal });
      result = { outcome: 'completed', result: checkRunResult(value), runId };
    } catch (error) {
      result = {
        outcome: 'failed',
        error: lost.signal.aborted ? 'ABORTED' : errorCode(error),
        runId,
      };
    }
  } finally {
    stopBeats();
  }
  const answer = await settle(svc, held, result);
  return {
    occurrenceId: held.occurrenceId,
    runId,
    outcome: result.outcome as 'completed' | 'failed',
    result: result.outcome === 'completed' ? (result.result ?? null) : null,
    error: result.outcome === 'failed' ? result.error : null,
    promoted: answer.promoted,
  };
}
