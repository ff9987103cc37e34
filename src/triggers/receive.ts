// The receive decision: a new key is recorded and filtered or claimed in one commit; a known key
// is a duplicate, in progress, a conflict, or — when its last run failed — claimed again. Pure:
// it runs inside an atomic action and does no I/O.
import { TwinError } from '../errors.js';
import type { ProjectedResource, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { IngestAnswer } from './answer.js';
import type { TriggerEnvelope } from './envelope.js';
import { commit, skip, type Decision } from '../world/decision.js';
import type { RunRecorder, RunStartInfo } from './runner.js';
import { isoAt } from '../world/clock.js';

import {
  recordId,
  replayGuardId,
  RECORD_TYPE,
  REPLAY_GUARD_TYPE,
  replayGuardKind,
  triggerRecordKind,
  readRecord,
  readReplayGuard,
  type RecordFields,
  type RepeatKind,
  type ReceiptFields,
  type ReceiptStatus,
  type ReplayGuard,
  type ReplayGuardFields,
  type RunClaimant,
} from './trigger-records.js';
import { envelopeReceipt } from './receipts.js';
import { startWrite } from './runs.js';

export interface RouteChoice {
  readonly routineId: string;
  /** The route's filter rejected the envelope (evaluated before the lock: it is host code). */
  readonly filtered: boolean;
}

/**
 * A decision's note that it answered a repeat of a known delivery and wrote nothing for it: the
 * engine counts it on the record (repeat-windows.ts).
 */
export interface Repeat {
  readonly recordId: string;
  readonly kind: RepeatKind;
  /** The dedupe key the repeat arrived under (for a replay, not the record's own). */
  readonly dedupeKey: string;
}

export type ReceiveOutcome =
  | { readonly kind: 'claimed'; readonly run: RunStartInfo; readonly scheduledAt: string }
  | { readonly kind: 'answered'; readonly answer: IngestAnswer; readonly repeat?: Repeat }
  | { readonly kind: 'conflict'; readonly error: TwinError };

function base(env: TriggerEnvelope, id: string, scheduledAt: string) {
  return {
    tenantId: env.tenantId,
    triggerId: env.triggerId,
    dedupeKey: env.dedupeKey,
    recordId: id,
    scheduledAt,
  };
}

/** Which field makes a repeated key a different event, if any. */
export function conflictPath(stored: TriggerEnvelope, env: TriggerEnvelope): string | undefined {
  if (stored.scopeId !== env.scopeId) return 'scopeId';
  if (stored.source.kind !== env.source.kind || stored.source.provider !== env.source.provider)
    return 'source';
  if (stored.triggerId !== env.triggerId) return 'triggerId';
  if (stored.payloadHash !== env.payloadHash) return 'payload';
  return undefined;
}

/** A new key's record as received: nothing run yet. Shared by direct and deferred receives. */
export function receivedFields(
  env: TriggerEnvelope,
  routineId: string,
  nowIso: string,
  seq: number,
): RecordFields {
  return {
    envelope: env,
    state: 'received',
    routineId,
    runKey: env.dedupeKey,
    attempts: 0,
    currentAttempt: null,
    receivedAt: nowIso,
    receivedSeq: seq,
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
    recovery: null,
  };
}

/**
 * The receive decision. A new key is recorded (`trigger.receive`, holding the envelope) and
 * either filtered or claimed (`trigger.start`, attempt 1) in the same commit. A known key is a
 * duplicate, in progress, a conflict, or — when its last run failed — claimed again.
 */
export function decideReceive(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  route: RouteChoice,
  recorder: RunRecorder | undefined,
  claimant: RunClaimant,
  guard?: ReplayGuard,
): Decision<ReceiveOutcome> {
  const id = recordId(env.tenantId, env.dedupeKey);
  const record = readRecord(view, id);
  const seq = view.head + 1;
  const receipt = (status: ReceiptStatus, extra: Partial<ReceiptFields> = {}): Write =>
    envelopeReceipt(view, nowIso, env, id, status, extra);

  if (record === undefined && guard !== undefined) {
    // Same signed content under another delivery id, inside the window: a replay. Answered as a
    // duplicate of the first key — never run — whatever that key's record says meanwhile.
    const g = readReplayGuard(view, replayGuardId(env.tenantId, guard.key));
    if (g !== undefined && g.expiresAt > nowIso && g.dedupeKey !== env.dedupeKey) {
      const original = readRecord(view, g.recordId);
      return skip<ReceiveOutcome>({
        kind: 'answered',
        repeat: { recordId: g.recordId, kind: 'replay', dedupeKey: env.dedupeKey },
        answer: {
          status: 'duplicate',
          ...base(env, g.recordId, original?.envelope.scheduledAt ?? env.scheduledAt),
          original:
            original === undefined
              ? 'pruned'
              : original.state === 'received' || original.state === 'processing'
                ? 'in_progress'
                : original.state,
          routineResult: original?.state === 'triggered' ? original.result : null,
          replayOf: g.dedupeKey,
        },
      });
    }
  }

  if (record === undefined) {
    const guardWrite: ProjectedResource[] =
      guard === undefined
        ? []
        : [
            {
              type: REPLAY_GUARD_TYPE,
              id: replayGuardId(env.tenantId, guard.key),
              fields: replayGuardKind.json({
                tenantId: env.tenantId,
                key: guard.key,
                recordId: id,
                dedupeKey: env.dedupeKey,
                firstSeenAt: nowIso,
                expiresAt: isoAt(Date.parse(nowIso) + guard.windowMs),
              } satisfies ReplayGuardFields),
            },
          ];
    const receive: Write = {
      operation: 'trigger.receive',
      subjectType: RECORD_TYPE,
      subjectId: id,
      fields: triggerRecordKind.json(receivedFields(env, route.routineId, nowIso, seq)),
      ...(guardWrite.length === 0 ? {} : { projection: { creates: guardWrite } }),
      actor: 'system',
    };
    if (route.filtered) {
      const filter: Write = {
        operation: 'trigger.filter',
        subjectType: RECORD_TYPE,
        subjectId: id,
        fields: { state: 'filtered', finishedAt: nowIso },
        actor: 'system',
      };
      return commit([receive, filter], {
        kind: 'answered',
        answer: {
          status: 'filtered',
          ...base(env, id, env.scheduledAt),
          routineId: route.routineId,
        },
      });
    }
    const run: RunStartInfo = {
      routineId: route.routineId,
      runKey: env.dedupeKey,
      attempt: 1,
      recordId: id,
      envelope: env,
    };
    return commit([receive, startWrite(id, run, 'first', nowIso, recorder, claimant)], {
      kind: 'claimed',
      run,
      scheduledAt: env.scheduledAt,
    });
  }

  const stored = record.envelope;
  if (stored.tenantId !== env.tenantId || stored.dedupeKey !== env.dedupeKey) {
    // Only a SHA-256 collision could get here; refuse loudly rather than merge two events.
    throw new TwinError(
      'PAYLOAD_CONFLICT',
      `record ${id} holds another tenant or key; refusing to merge`,
      { path: 'dedupeKey' },
    );
  }
  const path = conflictPath(stored, env);
  if (path !== undefined) {
    const error = new TwinError(
      'PAYLOAD_CONFLICT',
      `dedupeKey "${env.dedupeKey}" of tenant "${env.tenantId}" was first received with another ${path}; the same key must always carry the same event — give a different event its own key`,
      { path, details: { recordId: id, dedupeKey: env.dedupeKey, differs: path } },
    );
    return commit([receipt('refused', { code: error.code, path, message: error.message })], {
      kind: 'conflict',
      error,
    });
  }
  const answerBase = base(env, id, stored.scheduledAt);
  switch (record.state) {
    case 'triggered':
    case 'filtered':
      return skip<ReceiveOutcome>({
        kind: 'answered',
        repeat: { recordId: id, kind: 'duplicate', dedupeKey: env.dedupeKey },
        answer: {
          status: 'duplicate',
          ...answerBase,
          original: record.state,
          routineResult: record.state === 'triggered' ? record.result : null,
        },
      });
    case 'received':
    case 'processing':
      return skip<ReceiveOutcome>({
        kind: 'answered',
        repeat: { recordId: id, kind: 'in_progress', dedupeKey: env.dedupeKey },
        answer: {
          status: 'in_progress',
          ...answerBase,
          attempt: record.currentAttempt ?? record.attempts,
        },
      });
    case 'failed': {
      // A retried delivery of a failed run runs it again, from the stored envelope.
      const run: RunStartInfo = {
        routineId: route.routineId,
        runKey: record.runKey,
        attempt: record.attempts + 1,
        recordId: id,
        envelope: stored,
      };
      return commit([startWrite(id, run, 'retry', nowIso, recorder, claimant)], {
        kind: 'claimed',
        run,
        scheduledAt: stored.scheduledAt,
      });
    }
  }
}
