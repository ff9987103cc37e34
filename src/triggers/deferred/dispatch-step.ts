// The decisions over one deferred dispatch, each pure and run in an atomic action of its own:
// - step: what a due dispatch comes to — expired (its ttl passed), queued at its gate (no free
//   slot yet), dropped (no free slot, onLimit "drop"), or dispatched. Dispatching is the claim:
//   in one commit the dispatch becomes `dispatched` with an owner, a lease and a fence, and its
//   trigger record's run starts under the same owner's lease (trigger-records.ts startWrite). From then on
//   the run is the engine's (heartbeats, STALE_OWNER, takeover by the trigger-run worker).
// - settle: once its run is terminal, the dispatch records how it ended and frees its gate slot;
//   until then it looks again when the run's lease could have lapsed, so a slot is never held by
//   a host that died between the run's finish and the settle.
// - cancel: a waiting dispatch is cancelled (an operator's act, from any process).
import { TwinError } from '../../errors.js';
import type { JsonObject } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Commit, type Decision } from '../../world/decision.js';
import { claimFields, leaseFree, leaseOf, releaseFields } from '../../work/lease.js';
import { readRecord, type RunClaimant } from '../trigger-records.js';
import { startWrite } from '../runs.js';
import type { RunRecorder, RunStartInfo } from '../runner.js';
import {
  advance,
  gateId,
  gateWrite,
  hasSlot,
  join,
  loadGate,
  nudge,
  release,
  take,
  type Gate,
} from './concurrency-gate.js';
import {
  dispatchWrite,
  isWaiting,
  readDispatch,
  stateFields,
  type DispatchFields,
  type DispatchState,
} from './dispatch-record.js';

export type StepResult =
  | { readonly kind: 'idle' }
  | { readonly kind: 'claimed'; readonly run: RunStartInfo; readonly scheduledAt: string }
  /** Dispatched with nothing to start: its record had already run another way. */
  | { readonly kind: 'dispatched' }
  | { readonly kind: 'queued' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'dropped' }
  | { readonly kind: 'settled'; readonly runStatus: string }
  /** Its run still runs (here or elsewhere): looked at again when that run's lease could lapse. */
  | { readonly kind: 'following' }
  /** Its run's owner stopped heartbeating (its host died): the run is to be taken over. */
  | { readonly kind: 'lapsed'; readonly recordId: string };

export interface StepContext {
  /** Who claims the run: the engine's owner and lease. */
  readonly claimant: RunClaimant;
  readonly recorder: RunRecorder | undefined;
  /** Whether this process has the route to run it: one without leaves it for one with. */
  readonly canRun: boolean;
}

function gateOf(view: ReadView, d: DispatchFields): Gate | undefined {
  const c = d.plan.concurrency;
  if (c === null) return undefined;
  const init = { tenantId: d.tenantId, triggerId: d.triggerId, key: c.key, limit: c.limit };
  return loadGate(view, d.gate ?? gateId(d.tenantId, d.triggerId, c.key), init);
}

/** A waiting dispatch ends without running: its place in the gate's queue passes on. */
function endWrites(
  view: ReadView,
  nowIso: string,
  id: string,
  d: DispatchFields,
  state: Extract<DispatchState, 'expired' | 'cancelled'>,
  reason: string,
): Write[] {
  const writes = [
    dispatchWrite(state === 'expired' ? 'expire' : 'cancel', id, {
      ...stateFields(d, state),
      dueAt: null,
      endedAt: nowIso,
      reason,
    }),
  ];
  const gate = d.state === 'queued' && d.ticket !== null ? gateOf(view, d) : undefined;
  if (gate !== undefined) {
    writes.push(...nudge(view, gate, nowIso, { leaving: id }));
    writes.push(...gateWrite(gate));
  }
  return writes;
}

/** The claim: dispatched, and its record's run started under the claimant's lease. */
function dispatchWrites(
  view: ReadView,
  nowIso: string,
  id: string,
  d: DispatchFields,
  context: StepContext,
  extra: JsonObject,
): Commit<StepResult> {
  const { claimant, recorder } = context;
  const claim = claimFields(
    leaseOf({ owner: d.owner, leaseUntil: d.leaseUntil, fence: d.fence }),
    claimant.owner,
    Date.parse(nowIso),
    claimant.leaseMs,
  );
  const record = readRecord(view, d.recordId);
  const fields: JsonObject = {
    ...extra,
    ...stateFields(d, 'dispatched'),
    ...claim.fields,
    dispatchedAt: nowIso,
    runRecordId: d.recordId,
  };
  if (record === undefined || record.state !== 'received') {
    fields.runAttempt = record === undefined ? null : record.attempts;
    return commit([dispatchWrite('dispatch', id, fields)], { kind: 'dispatched' });
  }
  const run: RunStartInfo = {
    routineId: d.routineId,
    runKey: record.runKey,
    attempt: record.attempts + 1,
    recordId: d.recordId,
    envelope: record.envelope,
  };
  fields.runAttempt = run.attempt;
  return commit(
    [
      dispatchWrite('dispatch', id, fields),
      startWrite(d.recordId, run, 'first', nowIso, recorder, claimant),
    ],
    { kind: 'claimed', run, scheduledAt: record.envelope.scheduledAt },
  );
}

/** What a due dispatch comes to now. */
export function decideStep(
  view: ReadView,
  nowIso: string,
  id: string,
  context: StepContext,
): Decision<StepResult> {
  const d = readDispatch(view, id);
  if (d === undefined || d.dueAt === null || d.dueAt > nowIso) return skip({ kind: 'idle' });
  if (d.state === 'dispatched') return decideSettle(view, nowIso, id, context.claimant.leaseMs);
  if (!isWaiting(d.state))
    return commit([dispatchWrite('settle', id, { dueAt: null })], { kind: 'idle' });
  if (d.expiresAt !== null && d.expiresAt <= nowIso)
    return commit(endWrites(view, nowIso, id, d, 'expired', 'ttl'), { kind: 'expired' });
  if (!context.canRun) return skip({ kind: 'idle' });

  const gate = gateOf(view, d);
  if (gate === undefined) {
    return dispatchWrites(view, nowIso, id, d, context, { running: false });
  }
  // A delayed or debounced dispatch arrives at its gate now; a queued one holds its ticket.
  const arrived = d.ticket === null ? join(gate) : undefined;
  const ticket = arrived?.ticket ?? d.ticket!;
  const arriving = { id, ticket };
  const place: JsonObject =
    arrived === undefined
      ? {}
      : { ...stateFields(d, 'queued'), gate: gate.id, ticket, gateTicket: arrived.gateTicket };
  const head = advance(view, gate, { arriving });
  if (head === id && hasSlot(gate)) {
    take(gate, id);
    gate.head = ticket + 1;
    const claimed = dispatchWrites(view, nowIso, id, d, context, { ...place, running: true });
    return commit(
      [...claimed.writes, ...nudge(view, gate, nowIso, { leaving: id }), ...gateWrite(gate)],
      claimed.result,
    );
  }
  if (d.plan.concurrency!.onLimit === 'drop' && !hasSlot(gate)) {
    if (gate.head === ticket) gate.head++;
    return commit(
      [
        dispatchWrite('cancel', id, {
          ...place,
          ...stateFields(d, 'cancelled'),
          dueAt: null,
          endedAt: nowIso,
          reason: 'concurrency_limit',
        }),
        ...nudge(view, gate, nowIso, { leaving: id }),
        ...gateWrite(gate),
      ],
      { kind: 'dropped' },
    );
  }
  // Waits for a nudge (a slot freed, the queue moved) — or for its expiry, whichever is first.
  return commit(
    [
      dispatchWrite('queue', id, { ...place, dueAt: d.expiresAt }),
      ...nudge(view, gate, nowIso, { arriving }),
      ...gateWrite(gate),
    ],
    { kind: 'queued' },
  );
}

/** Once its run is terminal, records how it ended and frees its slot; until then, follows it. */
export function decideSettle(
  view: ReadView,
  nowIso: string,
  id: string,
  leaseMs: number,
): Decision<StepResult> {
  const d = readDispatch(view, id);
  if (d === undefined || d.state !== 'dispatched' || d.settledAt !== null)
    return skip({ kind: 'idle' });
  const run = d.runRecordId === null ? undefined : readRecord(view, d.runRecordId);
  if (run !== undefined && (run.state === 'processing' || run.state === 'received')) {
    const nowMs = Date.parse(nowIso);
    if (
      run.state === 'processing' &&
      leaseFree(leaseOf({ owner: run.owner, leaseUntil: run.leaseUntil, fence: run.fence }), nowMs)
    )
      return skip({ kind: 'lapsed', recordId: d.runRecordId! });
    const lease = run.leaseUntil == null ? 0 : Date.parse(run.leaseUntil);
    const next = isoAt(Math.max(lease, nowMs + leaseMs));
    if (d.dueAt === next) return skip({ kind: 'following' });
    return commit(
      [
        dispatchWrite('follow', id, {
          dueAt: next,
          owner: run.owner ?? null,
          leaseUntil: run.leaseUntil ?? null,
        }),
      ],
      { kind: 'following' },
    );
  }
  const runStatus = run === undefined ? 'pruned' : run.state;
  const writes = [
    dispatchWrite('settle', id, {
      ...releaseFields(null),
      running: false,
      runStatus,
      runAttempt: run === undefined ? d.runAttempt : run.attempts,
      settledAt: nowIso,
    }),
  ];
  const gate = d.running ? gateOf(view, d) : undefined;
  if (gate !== undefined) {
    release(gate, id);
    writes.push(...nudge(view, gate, nowIso), ...gateWrite(gate));
  }
  return commit(writes, { kind: 'settled', runStatus });
}

export interface CancelResult {
  /** False when it was cancelled already: cancelling is idempotent. */
  readonly changed: boolean;
  readonly dispatch: DispatchFields;
}

/** Cancels a waiting dispatch; `tenantId` (a tenant's context) may only cancel its own. */
export function decideCancel(
  view: ReadView,
  nowIso: string,
  id: string,
  tenantId: string | undefined,
): Decision<CancelResult> {
  const d = readDispatch(view, id);
  if (d === undefined || (tenantId !== undefined && d.tenantId !== tenantId))
    throw unknownDispatch(id);
  if (d.state === 'cancelled') return skip({ changed: false, dispatch: d });
  if (!isWaiting(d.state)) {
    throw new TwinError(
      'DISPATCH_NOT_CANCELLABLE',
      d.state === 'dispatched'
        ? `dispatch ${id} was dispatched at ${d.dispatchedAt ?? '?'} (its run is trigger record ${d.runRecordId ?? '?'}); only a dispatch still delayed, debounced or queued can be cancelled`
        : `dispatch ${id} expired at ${d.endedAt ?? '?'}; only a dispatch still delayed, debounced or queued can be cancelled`,
      { path: 'id', details: { dispatchId: id, state: d.state } },
    );
  }
  const writes = endWrites(view, nowIso, id, d, 'cancelled', 'cancelled');
  return commit(writes, {
    changed: true,
    dispatch: {
      ...d,
      state: 'cancelled',
      dueAt: null,
      endedAt: nowIso,
      reason: 'cancelled',
    } as DispatchFields,
  });
}

export function unknownDispatch(id: string): TwinError {
  return new TwinError(
    'UNKNOWN_DISPATCH',
    `no deferred dispatch ${JSON.stringify(id.length > 80 ? `${id.slice(0, 77)}...` : id)}; list them with \`twinworld dispatches list\``,
    { path: 'id' },
  );
}
