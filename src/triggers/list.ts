// Trigger history for people and the `twinworld triggers` command: every record (one per
// dedupe key, with the repeats counted on it), receipt (conflicts; duplicates and in-progress
// answers of older versions) and refusal window (refused packets counted per source and minute),
// newest first, with the answer each got and the provider it came from.
import { checkOptionKeys, checkWorld, TwinError } from '../errors.js';
import type { Resource } from '../state/resource.js';
import type { World } from '../world/world.js';
import { DEFAULT_TRIGGER_TWIN } from './defaults.js';
import { checkTenantId } from './envelope.js';
import {
  RECEIPT_TYPE,
  RECORD_TYPE,
  receiptOf,
  TENANT_INDEX,
  triggerRecordOf,
} from './trigger-records.js';
import { authorize, contextArgument, type TriggerContext } from './tenant-context.js';
import { REFUSALS_TYPE, refusalWindowOf } from './refusal-windows.js';

export type ListedStatus =
  'triggered' | 'filtered' | 'duplicate' | 'in_progress' | 'failed' | 'refused' | 'deferred';

export interface TriggerListing {
  /**
   * A record holds the envelope of a key's first delivery; a receipt a later or conflicting one;
   * a refusals row counts one source's refused packets in one window.
   */
  readonly kind: 'record' | 'receipt' | 'refusals';
  readonly id: string;
  /** seq of the entry that received it (for refusals: that last counted into it). */
  readonly seq: number;
  readonly receivedAt: string;
  readonly tenantId: string;
  readonly scopeId: string | null;
  readonly sourceKind: string | null;
  readonly provider: string | null;
  readonly triggerId: string | null;
  readonly dedupeKey: string | null;
  readonly status: ListedStatus;
  /** The refusal's or failure's code (BAD_SIGNATURE, PAYLOAD_CONFLICT, ROUTINE error…). */
  readonly code: string | null;
  readonly attempts: number | null;
  /**
   * How many deliveries the row stands for: a record's first and the repeats counted on it
   * (duplicates, replays, resends while it ran), 1 for a receipt, a refusal window's count.
   */
  readonly count: number;
  /** A refusal window's count by code; null for records and receipts. */
  readonly byCode: Readonly<Record<string, number>> | null;
  /** The deferred dispatch a record was taken in by (`twinworld dispatches inspect`), or null. */
  readonly dispatchId: string | null;
}

export interface ListOptions {
  /** One tenant's rows; with a tenant context, defaults to (and must be) the context's tenant. */
  readonly tenant?: string;
  /** Who is reading: a tenant context needs `read` and sees only its own tenant's rows. */
  readonly context?: TriggerContext;
  /** Newest first, at most this many (default 100). */
  readonly limit?: number;
  readonly twin?: string;
  /**
   * Called for a stored row that cannot be read as a listing (written by hand, or by a foreign
   * tool): it is left out, never a crash. Default: reported through world.reportError.
   */
  readonly onUndecodable?: (row: UndecodableRow) => void;
}

export interface UndecodableRow {
  readonly kind: TriggerListing['kind'];
  /** The stored resource type, e.g. trigger_record. */
  readonly type: string;
  readonly id: string;
  readonly reason: string;
}

/** Where a stored row's fields leave the shape its listing reads, said as data, not as a JS error. */
function shapeProblem(fields: unknown, paths: readonly string[]): string | undefined {
  for (const path of paths) {
    let at: unknown = fields;
    for (const key of path.split('.')) {
      if (at === null || typeof at !== 'object' || Array.isArray(at))
        return `${path} is missing: ${path.slice(0, path.lastIndexOf('.')) || 'fields'} is ${JSON.stringify(at) ?? 'absent'}, not an object`;
      at = (at as Record<string, unknown>)[key];
    }
    if (at === undefined) return `${path} is missing`;
  }
  return undefined;
}

const SHAPES: Readonly<Record<TriggerListing['kind'], readonly string[]>> = {
  record: ['envelope.tenantId', 'envelope.source.kind', 'state'],
  receipt: ['tenantId'],
  refusals: ['tenantId'],
};

/** Maps one stored row, or says why it cannot be listed. */
function decode(
  kind: TriggerListing['kind'],
  r: Resource,
  map: (r: Resource) => TriggerListing,
): TriggerListing | UndecodableRow {
  const shape = shapeProblem(r.fields, SHAPES[kind]);
  if (shape !== undefined) return { kind, type: r.type, id: r.id, reason: shape };
  let row: TriggerListing;
  try {
    row = map(r);
  } catch (error) {
    // A kernel refusal says what is wrong; anything else is a shape this listing did not foresee.
    const reason =
      error instanceof TwinError
        ? error.message
        : `its fields are not the shape of a ${r.type} this version reads`;
    return { kind, type: r.type, id: r.id, reason };
  }
  for (const [field, type] of [
    ['seq', 'number'],
    ['receivedAt', 'string'],
    ['tenantId', 'string'],
    ['status', 'string'],
  ] as const) {
    if (typeof row[field] !== type)
      return {
        kind,
        type: r.type,
        id: r.id,
        reason: `${field} is ${JSON.stringify(row[field]) ?? 'absent'}, not a ${type}`,
      };
  }
  return row;
}

function fromRecord(r: Resource): TriggerListing {
  const f = triggerRecordOf(r);
  const e = f.envelope;
  // A key a deferred dispatch took in waits on its dispatch (`twinworld dispatches`), not on a run.
  const dispatchId = (f as { dispatchId?: unknown }).dispatchId;
  const deferred = f.state === 'received' && typeof dispatchId === 'string';
  const status: ListedStatus = deferred
    ? 'deferred'
    : f.state === 'processing' || f.state === 'received'
      ? 'in_progress'
      : f.state;
  return {
    kind: 'record',
    id: r.id,
    seq: f.receivedSeq,
    receivedAt: f.receivedAt,
    tenantId: e.tenantId,
    scopeId: e.scopeId,
    sourceKind: e.source.kind,
    provider: e.source.provider,
    triggerId: e.triggerId,
    dedupeKey: e.dedupeKey,
    status,
    code: f.error,
    attempts: f.attempts,
    // the first delivery and every repeat counted on it (repeat-windows.ts)
    count: 1 + (f.repeats?.count ?? 0),
    byCode: null,
    dispatchId: typeof dispatchId === 'string' ? dispatchId : null,
  };
}

function fromReceipt(r: Resource): TriggerListing {
  const f = receiptOf(r);
  return {
    kind: 'receipt',
    id: r.id,
    seq: f.receivedSeq,
    receivedAt: f.receivedAt,
    tenantId: f.tenantId,
    scopeId: f.scopeId,
    sourceKind: f.sourceKind,
    provider: f.provider,
    triggerId: f.triggerId,
    dedupeKey: f.dedupeKey,
    status: f.status,
    code: f.code,
    attempts: null,
    count: 1,
    byCode: null,
    dispatchId: null,
  };
}

function fromRefusals(r: Resource): TriggerListing {
  const f = refusalWindowOf(r);
  return {
    kind: 'refusals',
    id: r.id,
    seq: r.version,
    receivedAt: f.lastAt,
    tenantId: f.tenantId,
    scopeId: f.scopeId,
    sourceKind: f.sourceKind,
    provider: f.provider,
    triggerId: f.triggerId,
    dedupeKey: null,
    status: 'refused',
    code: f.lastCode,
    attempts: null,
    count: f.count,
    byCode: f.byCode,
    dispatchId: null,
  };
}

/** Lists trigger records and receipts, newest first; an absent trigger twin lists nothing. */
export async function listTriggerRecords(
  world: World,
  options: ListOptions = {},
): Promise<TriggerListing[]> {
  // A misspelt key ({limt: 5}, {tenat: 'acme'}) was dropped: the listing ran unbounded or unscoped.
  checkWorld('listTriggerRecords(world, options)', world);
  checkOptionKeys('listTriggerRecords(world, options)', options, [
    'tenant',
    'context',
    'limit',
    'twin',
    'onUndecodable',
  ]);
  const limit = options.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new TwinError('INVALID_ARGUMENT', 'limit must be a positive integer', { path: 'limit' });
  if (options.tenant !== undefined) checkTenantId(options.tenant, 'tenant', 'INVALID_ARGUMENT');
  const context = contextArgument(options.context, 'context');
  const tenant = options.tenant ?? (context.kind === 'tenant' ? context.tenantId : undefined);
  if (tenant !== undefined) authorize(context, tenant, 'read', 'list the trigger records');
  const name = options.twin ?? DEFAULT_TRIGGER_TWIN;
  if (!(await world.twinNames()).includes(name)) return [];
  const twin = world.twin(name);
  twin.declareIndex({ type: RECORD_TYPE, name: TENANT_INDEX, field: 'envelope.tenantId' });
  twin.declareIndex({ type: RECEIPT_TYPE, name: TENANT_INDEX, field: 'tenantId' });
  twin.declareIndex({ type: REFUSALS_TYPE, name: TENANT_INDEX, field: 'tenantId' });
  const t = tenant;
  const records = await (t === undefined
    ? twin.list(RECORD_TYPE)
    : twin.lookup(RECORD_TYPE, TENANT_INDEX, t));
  const receipts = await (t === undefined
    ? twin.list(RECEIPT_TYPE)
    : twin.lookup(RECEIPT_TYPE, TENANT_INDEX, t));
  const refusals = await (t === undefined
    ? twin.list(REFUSALS_TYPE)
    : twin.lookup(REFUSALS_TYPE, TENANT_INDEX, t));
  const report =
    options.onUndecodable ??
    ((u: UndecodableRow) =>
      world.reportError(
        new TwinError('INVALID_ARGUMENT', `${u.type} ${u.id} cannot be listed: ${u.reason}`),
        'listing trigger records',
      ));
  const rows: TriggerListing[] = [];
  for (const [kind, list, map] of [
    ['record', records, fromRecord],
    ['receipt', receipts, fromReceipt],
    ['refusals', refusals, fromRefusals],
  ] as const) {
    for (const r of list) {
      const row = decode(kind, r, map);
      if ('reason' in row) report(row);
      else rows.push(row);
    }
  }
  rows.sort((a, b) => b.seq - a.seq);
  return rows.slice(0, limit);
}
