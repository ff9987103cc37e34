// The receive decision of a route with dispatch options. A new key is recorded as today (a
// `received` trigger record holding its envelope) and opens or joins a deferred dispatch in the
// same commit; it is answered `deferred`. A later duplicate of a key still waiting is answered
// `deferred` again; once its dispatch ran, as dedupe answers today (in_progress, duplicate). Filtered
// envelopes, conflicts, replays and retries of a failed run are decided by decideReceive itself.
import type { JsonObject } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import type { DeferredAnswer, IngestAnswer } from '../answer.js';
import type { TriggerEnvelope } from '../envelope.js';
import {
  RECORD_TYPE,
  readRecord,
  readReplayGuard,
  recordId,
  REPLAY_GUARD_TYPE,
  replayGuardId,
  type RecordFields,
  type ReplayGuard,
  type ReplayGuardFields,
  type RunClaimant,
} from '../trigger-records.js';
import {
  conflictPath,
  decideReceive,
  type ReceiveOutcome,
  type RouteChoice,
  receivedFields,
} from '../receive.js';
import type { RunRecorder } from '../runner.js';
import { gateId, join, loadGate, gateWrite } from './concurrency-gate.js';
import { openWindow, pingFields, pointerWrite, windowTimes } from './debounce.js';
import type { DispatchPlan } from './dispatch-plan.js';
import {
  dispatchId,
  dispatchWrite,
  listKeys,
  readDispatch,
  type DispatchFields,
  type DispatchState,
} from './dispatch-record.js';

/** A trigger record that a deferred dispatch took in. */
type DeferredRecordFields = RecordFields & { readonly dispatchId?: string };

function json(value: unknown): JsonObject {
  return value as JsonObject;
}

function deferredAnswer(
  env: TriggerEnvelope,
  id: string,
  scheduledAt: string,
  did: string,
  d: Pick<
    DispatchFields,
    'routineId' | 'state' | 'dueAt' | 'runAt' | 'expiresAt' | 'pings' | 'runRecordId'
  >,
): DeferredAnswer {
  return {
    status: 'deferred',
    tenantId: env.tenantId,
    triggerId: env.triggerId,
    dedupeKey: env.dedupeKey,
    recordId: id,
    scheduledAt,
    routineId: d.routineId,
    dispatchId: did,
    state: d.state,
    dueAt: d.dueAt,
    runAt: d.runAt,
    expiresAt: d.expiresAt,
    pings: d.pings,
    intoRunId: d.runRecordId ?? null,
  };
}

/** Same signed content under another delivery id, inside the replay window. */
function isReplay(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  guard: ReplayGuard,
): boolean {
  const g = readReplayGuard(view, replayGuardId(env.tenantId, guard.key));
  return g !== undefined && g.expiresAt > nowIso && g.dedupeKey !== env.dedupeKey;
}

export function decideDeferredReceive(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  route: RouteChoice,
  plan: DispatchPlan,
  recorder: RunRecorder | undefined,
  claimant: RunClaimant,
  guard?: ReplayGuard,
): Decision<ReceiveOutcome> {
  const today = (): Decision<ReceiveOutcome> =>
    decideReceive(view, nowIso, env, route, recorder, claimant, guard);
  if (route.filtered) return today();
  const id = recordId(env.tenantId, env.dedupeKey);
  const record = readRecord(view, id) as DeferredRecordFields | undefined;
  if (record !== undefined) {
    const stored = record.envelope;
    if (
      record.state !== 'received' ||
      typeof record.dispatchId !== 'string' ||
      stored.tenantId !== env.tenantId ||
      stored.dedupeKey !== env.dedupeKey ||
      conflictPath(stored, env) !== undefined
    )
      return today();
    return answerKnown(view, nowIso, env, id, record, record.dispatchId);
  }
  if (guard !== undefined && isReplay(view, nowIso, env, guard)) return today();
  return receiveNew(view, nowIso, env, id, route.routineId, plan, guard);
}

/** A duplicate of a key a dispatch took in: its dispatch's state, or once it ran, its run's. */
function answerKnown(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  id: string,
  record: DeferredRecordFields,
  did: string,
): Decision<ReceiveOutcome> {
  const scheduledAt = record.envelope.scheduledAt;
  const base = {
    tenantId: env.tenantId,
    triggerId: env.triggerId,
    dedupeKey: env.dedupeKey,
    recordId: id,
    scheduledAt,
  };
  const d = readDispatch(view, did);
  // A repeat writes nothing here: the engine counts it on the record (repeat-windows.ts).
  const answered = (
    kind: 'duplicate' | 'in_progress',
    answer: IngestAnswer,
  ): Decision<ReceiveOutcome> =>
    skip<ReceiveOutcome>({
      kind: 'answered',
      answer,
      repeat: { recordId: id, kind, dedupeKey: env.dedupeKey },
    });
  if (d !== undefined && d.state !== 'dispatched')
    return answered('duplicate', deferredAnswer(env, id, scheduledAt, did, d));
  const run = d?.runRecordId == null ? undefined : readRecord(view, d.runRecordId);
  if (run !== undefined && (run.state === 'received' || run.state === 'processing'))
    return answered('in_progress', {
      status: 'in_progress',
      ...base,
      attempt: run.currentAttempt ?? run.attempts,
    });
  return answered('duplicate', {
    status: 'duplicate',
    ...base,
    original:
      run === undefined
        ? 'pruned'
        : run.state === 'processing' || run.state === 'received'
          ? 'in_progress'
          : run.state,
    routineResult: run?.state === 'triggered' ? run.result : null,
    dispatchId: did,
  });
}

function receiveNew(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  id: string,
  routineId: string,
  plan: DispatchPlan,
  guard: ReplayGuard | undefined,
): Decision<ReceiveOutcome> {
  const seq = view.head + 1;
  const nowMs = Date.parse(nowIso);
  const receive = (did: string): Write => ({
    operation: 'trigger.receive',
    subjectType: RECORD_TYPE,
    subjectId: id,
    fields: json({
      ...receivedFields(env, routineId, nowIso, seq),
      dispatchId: did,
    } satisfies DeferredRecordFields),
    ...(guard === undefined
      ? {}
      : {
          projection: {
            creates: [
              {
                type: REPLAY_GUARD_TYPE,
                id: replayGuardId(env.tenantId, guard.key),
                fields: json({
                  tenantId: env.tenantId,
                  key: guard.key,
                  recordId: id,
                  dedupeKey: env.dedupeKey,
                  firstSeenAt: nowIso,
                  expiresAt: isoAt(nowMs + guard.windowMs),
                } satisfies ReplayGuardFields),
              },
            ],
          },
        }),
    actor: 'system',
  });
  const answer = (did: string, d: Parameters<typeof deferredAnswer>[4]): ReceiveOutcome => ({
    kind: 'answered',
    answer: deferredAnswer(env, id, env.scheduledAt, did, d),
  });

  if (plan.debounce !== null) {
    const open = openWindow(view, nowIso, env.tenantId, env.triggerId, plan.debounce);
    if (open !== undefined) {
      const ping = pingFields(open.dispatch, nowMs, plan.debounce, {
        envelope: json(env),
        recordId: id,
      });
      return commit(
        [receive(open.id), dispatchWrite('ping', open.id, ping)],
        answer(open.id, { ...open.dispatch, ...(ping as Partial<DispatchFields>) }),
      );
    }
  }

  const did = dispatchId(env.tenantId, env.dedupeKey, seq);
  const expiresAt = plan.ttl === null ? null : isoAt(nowMs + plan.ttl);
  let state: DispatchState;
  let runAt: string;
  let windowClosesAt: string | null = null;
  const extra: Write[] = [];
  let gateFields: Pick<DispatchFields, 'gate' | 'ticket' | 'gateTicket'> = {
    gate: null,
    ticket: null,
    gateTicket: null,
  };
  if (plan.debounce !== null) {
    state = 'debounced';
    ({ runAt, windowClosesAt } = windowTimes(nowMs, plan.debounce));
    extra.push(pointerWrite(env.tenantId, env.triggerId, plan.debounce.key, did, nowIso));
  } else if (plan.delay !== null) {
    state = 'delayed';
    runAt =
      'ms' in plan.delay
        ? isoAt(nowMs + plan.delay.ms)
        : plan.delay.until > nowIso
          ? plan.delay.until
          : nowIso;
  } else {
    state = 'queued';
    runAt = nowIso;
    if (plan.concurrency !== null) {
      // Nothing to wait for first: it takes its place in the gate's queue now.
      const c = plan.concurrency;
      const gate = loadGate(view, gateId(env.tenantId, env.triggerId, c.key), {
        tenantId: env.tenantId,
        triggerId: env.triggerId,
        key: c.key,
        limit: c.limit,
      });
      gateFields = { gate: gate.id, ...join(gate) };
      extra.push(...gateWrite(gate));
    }
  }
  const dueAt = expiresAt !== null && expiresAt < runAt ? expiresAt : runAt;
  const fields: DispatchFields = {
    tenantId: env.tenantId,
    scopeId: env.scopeId,
    triggerId: env.triggerId,
    routineId,
    state,
    envelope: env,
    recordId: id,
    plan,
    createdAt: nowIso,
    createdSeq: seq,
    dueAt,
    runAt,
    expiresAt,
    pings: 1,
    firstPingAt: nowIso,
    lastPingAt: nowIso,
    windowClosesAt,
    ...gateFields,
    running: false,
    owner: null,
    leaseUntil: null,
    fence: 0,
    dispatchedAt: null,
    runRecordId: null,
    runAttempt: null,
    runStatus: null,
    settledAt: null,
    endedAt: null,
    reason: null,
    listKeys: listKeys(env.tenantId, state),
  };
  return commit(
    [receive(did), dispatchWrite('create', did, json(fields)), ...extra],
    answer(did, fields),
  );
}
