// Results of a reserved occurrence, decided in one atomic action: the launch replaces the
// reservation with the run id; the run's end settles the ledger row (completed or failed), frees
// the schedule's active slot and promotes the oldest buffered occurrence into it. A result from an
// owner that no longer holds the row — its lease lapsed and another reclaimed it, or a newer
// occurrence superseded it — moves nothing: what it saw is kept on the row as a late observation
// and the caller is told STALE_OWNER.
import { TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import type { ProjectedResource } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import type { RunOutcome, RunRecorder } from '../runner.js';
import {
  closeSession,
  fireWriter,
  openSession,
  putFire,
  readFire,
  readSchedule,
  type ClaimSession,
  type Reservation,
} from './claim.js';
import type { FireFields, FireState, Outcome } from './fire-record.js';
import { holds } from './reservation.js';
import { runStartOf } from './run-start.js';

export type FireResult =
  | { readonly outcome: 'launched'; readonly runId: string }
  | { readonly outcome: 'completed'; readonly result?: JsonValue; readonly runId?: string }
  | { readonly outcome: 'failed'; readonly error: string; readonly runId?: string };

export interface ResultAnswer {
  /** False: the reservation had lost the row; its observation was kept and nothing moved. */
  readonly current: boolean;
  /** A repeat of a result already recorded: harmless, nothing written. */
  readonly repeated: boolean;
  readonly state: FireState;
  readonly outcome: Outcome | null;
  /** Who holds the row now, when someone does. */
  readonly heldBy: string | null;
  /** The buffered occurrence this result promoted into the active slot. */
  readonly promoted: string | null;
}

/** Fills the schedule's free active slot with its oldest buffered occurrence, ready for any worker. */
export function promoteBuffered(s: ClaimSession): string | null {
  const d = s.decl;
  if (!d.enabled || d.active.length > 0 || d.buffer.length === 0) return null;
  const next = d.buffer.shift()!;
  putFire(s, next, 'schedule.promote', { state: 'ready', outcome: null, dueAt: s.nowIso });
  d.active.push(next);
  const row = readFire(s, next);
  if (row !== undefined) d.lastFiredAt = row.nominalAt;
  return next;
}

function runOutcome(result: FireResult): RunOutcome {
  return result.outcome === 'failed'
    ? { ok: false, error: result.error }
    : { ok: true, result: result.outcome === 'completed' ? (result.result ?? null) : null };
}

/**
 * Records a reservation's result. `recorder` adds the runner's own resources (a routine_run) to
 * the same write, as the engine's start and finish do.
 */
export function decideResult(
  view: ReadView,
  nowMs: number,
  held: Reservation,
  result: FireResult,
  leaseMs: number,
  recorder?: RunRecorder,
): Decision<ResultAnswer> {
  const nowIso = isoAt(nowMs);
  const w = fireWriter(view);
  const found = readFire(w, held.occurrenceId);
  // Another tenant's row, or another schedule's, is answered as no row at all: a caller may name
  // any occurrence id, and it settles (or learns of) only those of the schedule it holds.
  const fire =
    found !== undefined && found.tenantId === held.tenantId && found.scheduleId === held.scheduleId
      ? found
      : undefined;
  if (fire === undefined)
    throw new TwinError(
      'UNKNOWN_TRIGGER',
      `no ledger row ${held.occurrenceId} for schedule "${held.scheduleId}" of tenant "${held.tenantId}"; record results only for occurrences a claim answered`,
      { path: 'occurrenceId', details: { occurrenceId: held.occurrenceId } },
    );
  const run = runStartOf(held.occurrenceId, fire, held.fence);
  const answer = (current: boolean, repeated: boolean, f: FireFields, promoted: string | null) => ({
    current,
    repeated,
    state: f.state,
    outcome: f.outcome,
    heldBy: f.state === 'reserved' || f.state === 'running' ? f.owner : null,
    promoted,
  });
  const mine = fire.owner === held.owner && fire.fence === held.fence;
  const sameRun = (runId: string | undefined): boolean =>
    runId === undefined || fire.runId === null || runId === fire.runId;

  if (result.outcome === 'launched') {
    if (mine && fire.state === 'running' && fire.runId === result.runId)
      return skip(answer(true, true, fire, null));
    if (holds(fire, held) && fire.state === 'reserved') {
      const leaseUntil = isoAt(nowMs + leaseMs);
      const creates: ProjectedResource[] = [...(recorder?.started(run, nowIso) ?? [])];
      const after = putFire(
        w,
        held.occurrenceId,
        'schedule.launch',
        {
          state: 'running',
          outcome: 'launched',
          runId: result.runId,
          launchedAt: nowIso,
          leaseUntil,
          dueAt: leaseUntil,
        },
        creates.length === 0 ? undefined : { creates },
      );
      return commit(w.writes, answer(true, false, after, null));
    }
  } else {
    if (
      mine &&
      fire.state === 'settled' &&
      fire.outcome === result.outcome &&
      sameRun(result.runId)
    )
      return skip(answer(true, true, fire, null));
    if (holds(fire, held) && sameRun(result.runId)) {
      const decl = readSchedule(view, fire.schedule);
      // Only a launched run has a runner record to finish.
      const updates =
        fire.state === 'running'
          ? [...(recorder?.finished(run, runOutcome(result), nowIso) ?? [])]
          : [];
      const settle: Partial<FireFields> = {
        state: 'settled',
        outcome: result.outcome,
        result: result.outcome === 'completed' ? (result.result ?? null) : null,
        error: result.outcome === 'failed' ? result.error : null,
        finishedAt: nowIso,
        leaseUntil: null,
        dueAt: null,
        settled: fire.tenantId,
      };
      const projection = updates.length === 0 ? undefined : { updates };
      if (decl === undefined) {
        // The declaration cannot be read (see listings): settle the row, leave the rest alone.
        const after = putFire(
          w,
          held.occurrenceId,
          `schedule.${result.outcome}`,
          settle,
          projection,
        );
        return commit(w.writes, answer(true, false, after, null));
      }
      const s = openSession(view, nowMs, fire.schedule, decl);
      const after = putFire(s, held.occurrenceId, `schedule.${result.outcome}`, settle, projection);
      s.decl.active = s.decl.active.filter((id) => id !== held.occurrenceId);
      const promoted = promoteBuffered(s);
      closeSession(s, 'schedule.release');
      return commit(s.writes, answer(true, false, after, promoted));
    }
  }
  // The reservation lost the row: keep what it saw, move nothing.
  const updates = [
    ...(result.outcome === 'launched'
      ? []
      : (recorder?.finished(run, runOutcome(result), nowIso) ?? [])),
  ];
  putFire(
    w,
    held.occurrenceId,
    'schedule.late_result',
    {
      lateObservation: {
        owner: held.owner,
        fence: held.fence,
        outcome: result.outcome,
        runId: result.runId ?? null,
        result: result.outcome === 'completed' ? (result.result ?? null) : null,
        error: result.outcome === 'failed' ? result.error : null,
        observedAt: nowIso,
      },
    },
    updates.length === 0 ? undefined : { updates },
  );
  return commit(w.writes, answer(false, false, fire, null));
}
