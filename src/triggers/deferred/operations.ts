// The operator's side of deferred dispatch, over the store alone (no engine, no route needed, so
// a dispatch made by a process long gone can be listed, inspected and cancelled from any other):
// list by state, inspect one, cancel one still waiting. A tenant context reads and cancels only
// its own tenant's dispatches, and on PostgreSQL its reads run scoped to that tenant (row-level
// security).
import { checkOptionKeys, checkWorld, describeValue, TwinError } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';
import { DEFAULT_TRIGGER_TWIN } from '../defaults.js';
import { checkTenantId } from '../envelope.js';
import { authorize, contextArgument, tenantOf, type TriggerContext } from '../tenant-context.js';
import {
  declareDispatchIndexes,
  DISPATCH_LIST_INDEX,
  DISPATCH_STATES,
  DISPATCH_TYPE,
  dispatchOf,
  readDispatch,
  type DispatchFields,
  type DispatchState,
} from './dispatch-record.js';
import {
  readDispatchDetail,
  statusOf,
  type DispatchDetail,
  type DispatchStatus,
} from './dispatch-status.js';
import { decideCancel, unknownDispatch } from './dispatch-step.js';

export interface DispatchQuery {
  readonly state?: DispatchState;
  /** One tenant's dispatches; with a tenant context, defaults to (and must be) its tenant. */
  readonly tenant?: string;
  /** Newest first, at most this many (default 100). */
  readonly limit?: number;
  readonly twin?: string;
  readonly context?: TriggerContext;
}

export interface DispatchTarget {
  readonly twin?: string;
  readonly context?: TriggerContext;
}

function twinOf(world: World, name: string | undefined): Twin {
  const twin = world.twin(name ?? DEFAULT_TRIGGER_TWIN);
  declareDispatchIndexes(twin);
  return twin;
}

function checkState(state: unknown): DispatchState | undefined {
  if (state === undefined) return undefined;
  if (!DISPATCH_STATES.includes(state as DispatchState))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `state ${JSON.stringify(state)} is not a dispatch state; use one of ${DISPATCH_STATES.join(', ')}`,
      { path: 'state' },
    );
  return state as DispatchState;
}

function checkId(call: string, id: unknown): string {
  // An id that is no text was "no deferred dispatch "undefined"", as if one had been looked for.
  if (typeof id !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: id must be a dispatch id (dsp_…), got ${describeValue(id)}`,
      { path: 'id' },
    );
  if (!/^dsp_[0-9a-f]{32}$/.test(id)) throw unknownDispatch(id);
  return id;
}

const QUERY_KEYS = ['state', 'tenant', 'limit', 'twin', 'context'];
const TARGET_KEYS = ['twin', 'context'];

/** Dispatches newest first, by state (default: every state), for one tenant or all. */
export async function listDispatches(
  world: World,
  query: DispatchQuery = {},
): Promise<DispatchStatus[]> {
  checkWorld('listDispatches(world, query)', world);
  checkOptionKeys('listDispatches(world, query)', query, QUERY_KEYS, 'query');
  const context = contextArgument(query.context);
  const state = checkState(query.state);
  const tenant =
    query.tenant === undefined
      ? (tenantOf(context) ?? undefined)
      : checkTenantId(query.tenant, 'tenant', 'INVALID_ARGUMENT');
  // Without a tenant the context is the system's (a tenant context always names its own).
  if (tenant !== undefined) authorize(context, tenant, 'read', 'list the dispatches');
  const limit = query.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new TwinError('INVALID_ARGUMENT', 'limit must be a positive integer', { path: 'limit' });
  const twin = twinOf(world, query.twin);
  return twin.read(
    (view) => {
      const rows: { id: string; d: DispatchFields }[] = [];
      for (const s of state === undefined ? DISPATCH_STATES : [state]) {
        const key = tenant === undefined ? `state:${s}` : `tenant:${tenant}/${s}`;
        for (const r of view.lookup(DISPATCH_TYPE, DISPATCH_LIST_INDEX, key))
          rows.push({ id: r.id, d: dispatchOf(r) });
      }
      rows.sort((a, b) =>
        a.d.createdSeq !== b.d.createdSeq ? b.d.createdSeq - a.d.createdSeq : a.id < b.id ? -1 : 1,
      );
      return rows.slice(0, limit).map(({ id, d }) => statusOf(view, id, d));
    },
    tenant === undefined ? {} : { tenant },
  );
}

/** One dispatch with its plan and envelope; UNKNOWN_DISPATCH when there is none (for this tenant). */
export async function inspectDispatch(
  world: World,
  id: string,
  target: DispatchTarget = {},
): Promise<DispatchDetail> {
  checkWorld('inspectDispatch(world, id, target)', world);
  const checked = checkId('inspectDispatch(world, id, target)', id);
  checkOptionKeys('inspectDispatch(world, id, target)', target, TARGET_KEYS, 'target');
  const context = contextArgument(target.context);
  const tenant = tenantOf(context) ?? undefined;
  const twin = twinOf(world, target.twin);
  const detail = await twin.read(
    (view) => readDispatchDetail(view, checked),
    tenant === undefined ? {} : { tenant },
  );
  if (detail === undefined) throw unknownDispatch(checked);
  // Another tenant's dispatch is reported as missing: its existence is not this tenant's business.
  if (tenant !== undefined && detail.tenantId !== tenant) throw unknownDispatch(checked);
  authorize(context, detail.tenantId, 'read', 'inspect the dispatches');
  return detail;
}

export interface CancelAnswer {
  /** False when it was cancelled already (cancelling is idempotent). */
  readonly changed: boolean;
  readonly dispatch: DispatchStatus;
}

/**
 * Cancels a dispatch still delayed, debounced or queued — also one whose process is gone: the
 * decision is the store's. DISPATCH_NOT_CANCELLABLE once it was dispatched or expired.
 */
export async function cancelDispatch(
  world: World,
  id: string,
  target: DispatchTarget = {},
): Promise<CancelAnswer> {
  checkWorld('cancelDispatch(world, id, target)', world);
  const checked = checkId('cancelDispatch(world, id, target)', id);
  checkOptionKeys('cancelDispatch(world, id, target)', target, TARGET_KEYS, 'target');
  const context = contextArgument(target.context);
  const tenant = tenantOf(context) ?? undefined;
  if (tenant !== undefined) authorize(context, tenant, 'configure', 'cancel the dispatches');
  const twin = twinOf(world, target.twin);
  const nowIso = isoAt(world.clock.now());
  const { result } = await twin.applyAtomic(
    (view) => decideCancel(view, nowIso, checked, tenant),
    tenant === undefined ? {} : { tenant },
  );
  const status = await twin.read(
    (view) => {
      const d = readDispatch(view, checked);
      return d === undefined ? undefined : statusOf(view, checked, d);
    },
    tenant === undefined ? {} : { tenant },
  );
  if (status === undefined) throw unknownDispatch(checked);
  return { changed: result.changed, dispatch: status };
}
