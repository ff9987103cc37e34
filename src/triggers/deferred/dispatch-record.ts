// The deferred dispatch as a resource in the trigger twin: its state, its due time (through the
// durable work's due-time index), the envelope it will run with, its plan, and the run it became.
// Every one carries its `tenantId`, so on PostgreSQL row-level security keeps it to its tenant.
import { sha256Hex } from '../../log/canonical-json.js';
import type { JsonObject } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import { DUE_FIELD, DUE_INDEX } from '../../work/lease.js';
import type { Twin } from '../../world/twin.js';
import type { TriggerEnvelope } from '../envelope.js';
import type { DispatchPlan } from './dispatch-plan.js';
import { recordKind } from '../../state/record-kind.js';

export const DISPATCH_TYPE = 'trigger_dispatch';
/** Dispatches by state ("state:queued") and by tenant and state ("tenant:acme/queued"). */
export const DISPATCH_LIST_INDEX = 'twinworld:dispatch-list';

export type DispatchState =
  'delayed' | 'debounced' | 'queued' | 'dispatched' | 'expired' | 'cancelled';
export const DISPATCH_STATES: readonly DispatchState[] = [
  'delayed',
  'debounced',
  'queued',
  'dispatched',
  'expired',
  'cancelled',
];
/** Not run yet, and may still run. */
export const WAITING_STATES: readonly DispatchState[] = ['delayed', 'debounced', 'queued'];

export function isWaiting(state: DispatchState): boolean {
  return state === 'delayed' || state === 'debounced' || state === 'queued';
}

export interface DispatchFields {
  readonly tenantId: string;
  readonly scopeId: string;
  readonly triggerId: string;
  readonly routineId: string;
  readonly state: DispatchState;
  /** What the run gets: a trailing debounce keeps the latest, a leading one the first. */
  readonly envelope: TriggerEnvelope;
  /** The trigger record of that envelope: the run is its run. */
  readonly recordId: string;
  readonly plan: DispatchPlan;
  readonly createdAt: string;
  readonly createdSeq: number;
  /** When the worker must next look at it; null when nothing is due (done, or waiting for a slot). */
  readonly dueAt: string | null;
  /** When it is meant to run: the delay's end, the debounce's quiet time, or when it was queued. */
  readonly runAt: string;
  readonly expiresAt: string | null;
  /** Envelopes it absorbed, itself included. */
  readonly pings: number;
  readonly firstPingAt: string;
  readonly lastPingAt: string;
  /** A leading debounce's window: pings before this are absorbed into this dispatch. */
  readonly windowClosesAt: string | null;
  /** Its concurrency gate and its place in the gate's queue (first come, first served). */
  readonly gate: string | null;
  readonly ticket: number | null;
  readonly gateTicket: string | null;
  /** Holds one of its gate's slots (dispatched, its run not settled). */
  readonly running: boolean;
  /** The claim that dispatched it (docs/work.md): the run's owner, its lease at the claim, the fence. */
  readonly owner: string | null;
  readonly leaseUntil: string | null;
  readonly fence: number;
  readonly dispatchedAt: string | null;
  readonly runRecordId: string | null;
  readonly runAttempt: number | null;
  /** The run's terminal state once settled (triggered, failed). */
  readonly runStatus: string | null;
  readonly settledAt: string | null;
  /** When and why it was cancelled or expired ("cancelled", "concurrency_limit", "ttl"). */
  readonly endedAt: string | null;
  readonly reason: string | null;
  readonly listKeys: readonly string[];
}

/**
 * One per envelope that opened it, named after the seq it was made at (so dispatches due at the
 * same instant run in the order they were made: the due index breaks ties by id) and the key.
 */
export function dispatchId(tenantId: string, dedupeKey: string, seq: number): string {
  const hash = sha256Hex(`${tenantId}\u0000${dedupeKey}\u0000${seq}`).slice(0, 20);
  return `dsp_${String(seq).padStart(12, '0')}${hash}`;
}

export function listKeys(tenantId: string, state: DispatchState): string[] {
  return [`state:${state}`, `tenant:${tenantId}/${state}`];
}

/** Dispatch records, typed (src/state/record-kind.ts). */
const dispatchKind = recordKind<DispatchFields>({ type: DISPATCH_TYPE });

/** A dispatch's fields, typed: the one place one is read out of `Resource.fields`. */
export function dispatchOf(resource: Resource): DispatchFields {
  return dispatchKind.of(resource);
}

export function readDispatch(view: ReadView, id: string): DispatchFields | undefined {
  const r = view.get(DISPATCH_TYPE, id);
  return r === undefined || r.deleted ? undefined : dispatchOf(r);
}

/** Fields that move a dispatch to `state` (its list keys follow). */
export function stateFields(d: Pick<DispatchFields, 'tenantId'>, state: DispatchState): JsonObject {
  return { state, listKeys: listKeys(d.tenantId, state) };
}

export function dispatchWrite(operation: string, id: string, fields: JsonObject): Write {
  return {
    operation: `dispatch.${operation}`,
    subjectType: DISPATCH_TYPE,
    subjectId: id,
    fields,
    actor: 'system',
  };
}

export const DEBOUNCE_TYPE = 'trigger_debounce';
export const GATE_TYPE = 'trigger_dispatch_gate';
/** A gate's queue: "<gate>/<ticket>" names the one dispatch holding that ticket. */
export const DISPATCH_TICKET_INDEX = 'twinworld:dispatch-ticket';

/** Declares what finding dispatches needs; idempotent, so engines, workers and the CLI each call it. */
export function declareDispatchIndexes(twin: Twin): void {
  twin.declareIndex({ type: DISPATCH_TYPE, name: DUE_INDEX, field: DUE_FIELD });
  twin.declareIndex({ type: DISPATCH_TYPE, name: DISPATCH_LIST_INDEX, field: 'listKeys' });
  twin.declareIndex({ type: DISPATCH_TYPE, name: DISPATCH_TICKET_INDEX, field: 'gateTicket' });
}
