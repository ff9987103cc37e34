// Trigger records and receipts in the trigger twin, and the pure decisions over them: receive
// (claim, filter, duplicate, in progress, conflict), finish, re-claim for retry and recovery,
// refuse. Each runs inside an atomic action; none does I/O.
import { TwinError } from '../errors.js';
import { sha256Hex } from '../log/canonical-json.js';
import type { JsonObject, JsonValue } from '../log/json-value.js';
import type { ProjectedResource, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import type { IngestAnswer } from './answer.js';
import type { TriggerEnvelope } from './envelope.js';
import { commit, skip, type Decision } from '../world/decision.js';
import type { RunOutcome, RunRecorder, RunStartInfo } from './runner.js';
import { isoAt } from '../world/clock.js';
import { DUE_FIELD, extendFields, leaseFree, leaseOf, releaseFields } from '../work/lease.js';
import { recordKind } from '../state/record-kind.js';

export const RECORD_TYPE = 'trigger_record';
export const RECEIPT_TYPE = 'trigger_receipt';
/** What a key's signed content was first received as, while a replay of it counts as one. */
export const REPLAY_GUARD_TYPE = 'trigger_replay_guard';
/** Records in `processing` or `failed`, keyed "<state>/<tenant>": recovery finds them without a scan. */
export const RECOVERY_INDEX = 'twinworld:recovery';
export const TENANT_INDEX = 'twinworld:tenant';

export type RecordState = 'received' | 'processing' | 'triggered' | 'filtered' | 'failed';

export interface RecordFields {
  readonly envelope: TriggerEnvelope;
  readonly state: RecordState;
  readonly routineId: string;
  readonly runKey: string;
  readonly attempts: number;
  readonly currentAttempt: number | null;
  readonly receivedAt: string;
  readonly receivedSeq: number;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly result: JsonValue;
  /** An error code (never exception text) when the last run failed. */
  readonly error: string | null;
  readonly recovery: string | null;
  /** The worker holding the run's claim, and until when (docs/work.md); absent on older records. */
  readonly owner?: string | null;
  readonly leaseUntil?: string | null;
  readonly fence?: number;
  readonly dueAt?: string | null;
}

export type ReceiptStatus = 'duplicate' | 'in_progress' | 'refused';

/** The record of a decision that claimed nothing: a duplicate, an in-progress answer, a refusal. */
export interface ReceiptFields {
  readonly status: ReceiptStatus;
  readonly tenantId: string;
  readonly scopeId: string | null;
  readonly sourceKind: string | null;
  readonly provider: string | null;
  readonly triggerId: string | null;
  readonly eventId: string | null;
  readonly dedupeKey: string | null;
  readonly payloadHash: string | null;
  readonly recordId: string | null;
  readonly code: string | null;
  readonly path: string | null;
  readonly message: string | null;
  /** Size of a refused webhook body: the body itself is never recorded. */
  readonly bodyBytes: number | null;
  readonly receivedAt: string;
  readonly receivedSeq: number;
}

export function recordId(tenantId: string, dedupeKey: string): string {
  return `trg_${sha256Hex(`${tenantId}\u0000${dedupeKey}`)}`;
}

/** Receipts are named after the seq of the entry that writes them: unique, ordered, no id draw. */
export function receiptId(seq: number): string {
  return `rcpt_${String(seq).padStart(12, '0')}`;
}

export function replayGuardId(tenantId: string, key: string): string {
  return `rpl_${sha256Hex(`${tenantId}\u0000${key}`)}`;
}

/** Signed content of a packet whose delivery id is not signed: a second id for it is a replay. */
export interface ReplayGuard {
  readonly key: string;
  readonly windowMs: number;
}

export interface ReplayGuardFields {
  readonly tenantId: string;
  readonly key: string;
  readonly recordId: string;
  readonly dedupeKey: string;
  readonly firstSeenAt: string;
  readonly expiresAt: string;
}

export function recoveryKey(state: 'processing' | 'failed', tenantId: string): string {
  return `${state}/${tenantId}`;
}

/** Trigger records, receipts and replay guards, typed (src/state/record-kind.ts). */
export const triggerRecordKind = recordKind<RecordFields>({ type: RECORD_TYPE });
export const receiptKind = recordKind<ReceiptFields>({ type: RECEIPT_TYPE });
export const replayGuardKind = recordKind<ReplayGuardFields>({ type: REPLAY_GUARD_TYPE });

/** A trigger record's fields, typed. */
export function triggerRecordOf(resource: Resource): RecordFields {
  return triggerRecordKind.of(resource);
}

/** A receipt's fields, typed. */
export function receiptOf(resource: Resource): ReceiptFields {
  return receiptKind.of(resource);
}

/** A replay guard's fields, typed. */
export function replayGuardOf(resource: Resource): ReplayGuardFields {
  return replayGuardKind.of(resource);
}

export function readRecord(view: ReadView, id: string): RecordFields | undefined {
  const r = view.get(RECORD_TYPE, id);
  return r === undefined || r.deleted ? undefined : triggerRecordOf(r);
}

export function readReplayGuard(view: ReadView, id: string): ReplayGuardFields | undefined {
  const r = view.get(REPLAY_GUARD_TYPE, id);
  return r === undefined || r.deleted ? undefined : replayGuardOf(r);
}

export interface RouteChoice {
  readonly routineId: string;
  /** The route's filter rejected the envelope (evaluated before the lock: it is host code). */
  readonly filtered: boolean;
}

export type RepeatKind = 'duplicate' | 'replay' | 'in_progress';

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

function json(value: unknown): JsonObject {
  return value as JsonObject;
}

/** Who claims a run, and for how long before it must heartbeat (docs/work.md). */
export interface RunClaimant {
  readonly owner: string;
  readonly leaseMs: number;
}

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

function receiptWrite(operation: string, fields: ReceiptFields): Write {
  return {
    operation,
    subjectType: RECEIPT_TYPE,
    subjectId: '',
    fields: json(fields),
    actor: 'system',
  };
}

/**
 * The receipt of an envelope's decision that claimed nothing, named after the seq of the entry
 * that writes it. Shared by the direct and the deferred receive.
 */
export function envelopeReceipt(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  id: string,
  status: ReceiptStatus,
  extra: Partial<ReceiptFields> = {},
): Write {
  const seq = view.head + 1;
  return {
    ...receiptWrite(status === 'refused' ? 'trigger.conflict' : `trigger.${status}`, {
      status,
      ...envelopeIdentity(env),
      recordId: id,
      code: null,
      path: null,
      message: null,
      bodyBytes: null,
      receivedAt: nowIso,
      receivedSeq: seq,
      ...extra,
    }),
    subjectId: receiptId(seq),
  };
}

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
              fields: json({
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
      fields: json(receivedFields(env, route.routineId, nowIso, seq)),
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

/** What identifies an envelope in a receipt or refusal: everything but its payload. */
export function envelopeIdentity(env: TriggerEnvelope) {
  return {
    tenantId: env.tenantId,
    scopeId: env.scopeId,
    sourceKind: env.source.kind,
    provider: env.source.provider,
    triggerId: env.triggerId,
    eventId: env.eventId,
    dedupeKey: env.dedupeKey,
    payloadHash: env.payloadHash,
  };
}

export interface Refusal {
  readonly tenantId: string;
  readonly scopeId?: string | null;
  readonly sourceKind?: string | null;
  readonly provider?: string | null;
  readonly triggerId?: string | null;
  readonly eventId?: string | null;
  readonly dedupeKey?: string | null;
  readonly payloadHash?: string | null;
  readonly bodyBytes?: number | null;
  readonly error: TwinError;
}

/**
 * A refused envelope that the source vouched for (a route missing for a verified packet), kept as
 * a receipt with its key. Unauthenticated refusals are counted instead: refusal-windows.ts.
 */
export function refusalWrite(view: ReadView, nowIso: string, refusal: Refusal): Write {
  const e = refusal.error;
  return {
    ...receiptWrite('trigger.refuse', {
      status: 'refused',
      tenantId: refusal.tenantId,
      scopeId: refusal.scopeId ?? null,
      sourceKind: refusal.sourceKind ?? null,
      provider: refusal.provider ?? null,
      triggerId: refusal.triggerId ?? null,
      eventId: refusal.eventId ?? null,
      dedupeKey: refusal.dedupeKey ?? null,
      payloadHash: refusal.payloadHash ?? null,
      recordId: refusal.dedupeKey == null ? null : recordId(refusal.tenantId, refusal.dedupeKey),
      code: e.code,
      path: e.path ?? null,
      message: e.message,
      bodyBytes: refusal.bodyBytes ?? null,
      receivedAt: nowIso,
      receivedSeq: view.head + 1,
    }),
    subjectId: receiptId(view.head + 1),
  };
}

export type { ProjectedResource };
