// Decisions over a claimed run: its start (the claim, fenced by the attempt number), heartbeat,
// finish (refused when another owner holds it), and the re-claim recovery makes. Pure, as receive.
import type { JsonObject } from '../log/json-value.js';
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { commit, skip, type Decision } from '../world/decision.js';
import type { RunOutcome, RunRecorder, RunStartInfo } from './runner.js';
import { isoAt } from '../world/clock.js';
import { DUE_FIELD, extendFields, leaseFree, leaseOf, releaseFields } from '../work/lease.js';

import {
  recoveryKey,
  RECORD_TYPE,
  readRecord,
  type RecordFields,
  type RunClaimant,
} from './trigger-records.js';

/**
 * A run's claim. The attempt number is its fencing number: it increases on every claim of the
 * record, so `(owner, attempt)` names one claim and a finish from any other is stale.
 */
export function startWrite(
  id: string,
  run: RunStartInfo,
  reason: 'first' | 'retry' | 'recovery',
  nowIso: string,
  recorder: RunRecorder | undefined,
  claimant: RunClaimant,
): Write {
  const leaseUntil = isoAt(Date.parse(nowIso) + claimant.leaseMs);
  const creates = recorder?.started(run, nowIso) ?? [];
  return {
    operation: 'trigger.start',
    subjectType: RECORD_TYPE,
    subjectId: id,
    fields: {
      state: 'processing',
      routineId: run.routineId,
      attempts: run.attempt,
      currentAttempt: run.attempt,
      startedAt: nowIso,
      finishedAt: null,
      error: null,
      startReason: reason,
      recovery: recoveryKey('processing', run.envelope.tenantId),
      owner: claimant.owner,
      leaseUntil,
      fence: run.attempt,
      [DUE_FIELD]: leaseUntil,
    },
    ...(creates.length === 0 ? {} : { projection: { creates: [...creates] } }),
    actor: 'system',
  };
}

/**
 * The finish decision. The record follows only if this attempt is still its current one (a
 * recovery may have claimed a newer attempt meanwhile); the runner's records always do.
 */
export function decideFinish(
  view: ReadView,
  nowIso: string,
  run: RunStartInfo,
  outcome: RunOutcome,
  recorder: RunRecorder | undefined,
  owner?: string,
): Decision<{ current: boolean; heldBy?: string | null }> {
  const record = readRecord(view, run.recordId);
  const updates = [...(recorder?.finished(run, outcome, nowIso) ?? [])];
  const projection = updates.length === 0 ? {} : { projection: { updates } };
  if (
    record === undefined ||
    record.state !== 'processing' ||
    record.currentAttempt !== run.attempt ||
    (owner !== undefined && record.owner !== undefined && record.owner !== owner)
  ) {
    // The claim was lost (its lease lapsed and another owner took the record): state does not
    // move, but what this run saw is kept, so nothing observed is lost.
    return commit(
      [
        {
          operation: 'trigger.finish_superseded',
          subjectType: RECORD_TYPE,
          subjectId: run.recordId,
          fields: {
            lastSupersededAttempt: run.attempt,
            lateObservation: {
              attempt: run.attempt,
              owner: owner ?? null,
              observedAt: nowIso,
              ok: outcome.ok,
              result: outcome.ok ? outcome.result : null,
              error: outcome.ok ? null : outcome.error,
            },
          },
          ...projection,
          actor: 'system',
        },
      ],
      { current: false, heldBy: record?.owner ?? null },
    );
  }
  const fields: JsonObject = outcome.ok
    ? {
        state: 'triggered',
        currentAttempt: null,
        finishedAt: nowIso,
        result: outcome.result,
        error: null,
        recovery: null,
        ...releaseFields(null),
      }
    : {
        state: 'failed',
        currentAttempt: null,
        finishedAt: nowIso,
        error: outcome.error,
        recovery: recoveryKey('failed', run.envelope.tenantId),
        ...releaseFields(null),
      };
  return commit(
    [
      {
        operation: outcome.ok ? 'trigger.finish' : 'trigger.fail',
        subjectType: RECORD_TYPE,
        subjectId: run.recordId,
        fields,
        ...projection,
        actor: 'system',
      },
    ],
    { current: true },
  );
}

/**
 * Recovery's re-claim: only if the record is still in the state and attempt recovery saw, and a
 * processing record's run started at least `staleAfterMs` ago. Two recoveries racing claim once.
 */
export function decideRecover(
  view: ReadView,
  nowIso: string,
  id: string,
  seen: { state: 'processing' | 'failed'; attempts: number },
  routineId: string,
  staleBeforeIso: string,
  recorder: RunRecorder | undefined,
  claimant: RunClaimant,
): Decision<RunStartInfo | undefined> {
  const record = readRecord(view, id);
  if (record === undefined || record.state !== seen.state || record.attempts !== seen.attempts)
    return skip();
  if (record.state === 'processing' && !runClaimFree(record, Date.parse(nowIso), staleBeforeIso))
    return skip();
  const run: RunStartInfo = {
    routineId,
    runKey: record.runKey,
    attempt: record.attempts + 1,
    recordId: id,
    envelope: record.envelope,
  };
  return commit([startWrite(id, run, 'recovery', nowIso, recorder, claimant)], run);
}

/**
 * A heartbeat: extends the run's lease while `(owner, attempt)` still holds it. Answers false —
 * and writes nothing — once the claim is lost, which stops the beats.
 */
export function decideRunHeartbeat(
  view: ReadView,
  nowIso: string,
  run: RunStartInfo,
  claimant: RunClaimant,
): Decision<boolean> {
  const record = readRecord(view, run.recordId);
  if (
    record === undefined ||
    record.state !== 'processing' ||
    record.currentAttempt !== run.attempt ||
    record.owner !== claimant.owner
  )
    return skip(false);
  return commit(
    [
      {
        operation: 'trigger.heartbeat',
        subjectType: RECORD_TYPE,
        subjectId: run.recordId,
        fields: extendFields(Date.parse(nowIso), claimant.leaseMs),
        actor: 'system',
      },
    ],
    true,
  );
}

/**
 * Whether a `processing` record may be taken over: its owner's lease lapsed, and its run started
 * before `staleBeforeIso`. A record claimed before leases existed has no lease: only the start
 * time counts.
 */
export function runClaimFree(record: RecordFields, nowMs: number, staleBeforeIso: string): boolean {
  if (record.startedAt !== null && record.startedAt > staleBeforeIso) return false;
  const { owner, leaseUntil, fence } = record;
  return leaseFree(leaseOf({ owner, leaseUntil, fence }), nowMs);
}
