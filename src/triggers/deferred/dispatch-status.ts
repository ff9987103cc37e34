// What a deferred dispatch looks like from outside: its state and times, its keys, and once it
// ran, its run's answer (read from the run's trigger record). The body of
// `GET /dispatches/<id>`, and of `twinworld dispatches inspect` (which adds the envelope and plan).
import type { JsonValue } from '../../log/json-value.js';
import type { ReadView } from '../../state/read-view.js';
import type { TriggerEnvelope } from '../envelope.js';
import { readRecord } from '../trigger-records.js';
import type { DispatchPlan } from './dispatch-plan.js';
import { readDispatch, type DispatchFields, type DispatchState } from './dispatch-record.js';

export const DISPATCH_PATH = '/dispatches/';

export function dispatchLocation(id: string): string {
  return `${DISPATCH_PATH}${encodeURIComponent(id)}`;
}

export interface DispatchRun {
  readonly recordId: string;
  readonly attempt: number | null;
  /** in_progress while it runs; then the record's terminal state; pruned once retention removed it. */
  readonly status: 'in_progress' | 'triggered' | 'failed' | 'filtered' | 'pruned';
  readonly routineResult: JsonValue;
  /** An error code (never exception text) when the run failed. */
  readonly error: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

export interface DispatchStatus {
  readonly dispatchId: string;
  readonly state: DispatchState;
  readonly tenantId: string;
  readonly scopeId: string;
  readonly triggerId: string;
  readonly routineId: string;
  /** The key of the envelope it carries (a trailing debounce: the latest). */
  readonly dedupeKey: string;
  readonly recordId: string;
  readonly createdAt: string;
  readonly runAt: string;
  readonly dueAt: string | null;
  readonly expiresAt: string | null;
  readonly pings: number;
  readonly lastPingAt: string;
  readonly debounce: { readonly key: string; readonly mode: string } | null;
  readonly concurrency: {
    readonly key: string;
    readonly limit: number;
    readonly ticket: number | null;
    readonly running: boolean;
  } | null;
  readonly dispatchedAt: string | null;
  readonly owner: string | null;
  readonly fence: number;
  readonly endedAt: string | null;
  readonly reason: string | null;
  /** Null until it is dispatched. */
  readonly run: DispatchRun | null;
}

export interface DispatchDetail extends DispatchStatus {
  readonly plan: DispatchPlan;
  readonly envelope: TriggerEnvelope;
}

function runOf(view: ReadView, d: DispatchFields): DispatchRun | null {
  if (d.runRecordId === null) return null;
  const r = readRecord(view, d.runRecordId);
  if (r === undefined)
    return {
      recordId: d.runRecordId,
      attempt: d.runAttempt,
      status: 'pruned',
      routineResult: null,
      error: null,
      startedAt: null,
      finishedAt: null,
    };
  return {
    recordId: d.runRecordId,
    attempt: r.currentAttempt ?? r.attempts,
    status: r.state === 'received' || r.state === 'processing' ? 'in_progress' : r.state,
    routineResult: r.state === 'triggered' ? r.result : null,
    error: r.error,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

export function statusOf(view: ReadView, id: string, d: DispatchFields): DispatchStatus {
  const c = d.plan.concurrency;
  return {
    dispatchId: id,
    state: d.state,
    tenantId: d.tenantId,
    scopeId: d.scopeId,
    triggerId: d.triggerId,
    routineId: d.routineId,
    dedupeKey: d.envelope.dedupeKey,
    recordId: d.recordId,
    createdAt: d.createdAt,
    runAt: d.runAt,
    dueAt: d.dueAt,
    expiresAt: d.expiresAt,
    pings: d.pings,
    lastPingAt: d.lastPingAt,
    debounce:
      d.plan.debounce === null ? null : { key: d.plan.debounce.key, mode: d.plan.debounce.mode },
    concurrency:
      c === null ? null : { key: c.key, limit: c.limit, ticket: d.ticket, running: d.running },
    dispatchedAt: d.dispatchedAt,
    owner: d.owner,
    fence: d.fence,
    endedAt: d.endedAt,
    reason: d.reason,
    run: runOf(view, d),
  };
}

export function readDispatchStatus(view: ReadView, id: string): DispatchStatus | undefined {
  const d = readDispatch(view, id);
  return d === undefined ? undefined : statusOf(view, id, d);
}

export function readDispatchDetail(view: ReadView, id: string): DispatchDetail | undefined {
  const d = readDispatch(view, id);
  return d === undefined
    ? undefined
    : { ...statusOf(view, id, d), plan: d.plan, envelope: d.envelope };
}
