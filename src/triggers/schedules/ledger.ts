// Reading and pruning the fire ledger. History is newest occurrence first, filtered by schedule,
// run and outcome, paged with an opaque cursor; a bad limit, cursor or filter is INVALID_OPTIONS
// and an undecodable row is reported beside the page, never a crash. Pruning removes settled rows
// older than a date — a write that deletes resources, never entries — and never a row the
// scheduler still reads (buffered, ready, reserved, running, or named by the declaration).
import { TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import { readSchedule } from './claim.js';
import type { Decoded } from './declaration.js';
import {
  decodeFire,
  FIRE_TYPE,
  OUTCOMES,
  SETTLED_OUTCOMES,
  type FireFields,
  type LateObservation,
  type Outcome,
} from './fire-record.js';
import { commit, skip, type Decision } from '../../world/decision.js';

export const DEFAULT_HISTORY_LIMIT = 100;
export const MAX_HISTORY_LIMIT = 1000;
/** Rows removed per pruning write. */
export const PRUNE_BATCH = 500;
const PRUNE_TYPE = 'schedule_prune';

/** `pending`: claimed, no outcome yet (ready or reserved). */
export type OutcomeFilter = Outcome | 'pending';

export interface HistoryQuery {
  readonly tenantId: string;
  readonly scheduleId?: string;
  readonly runId?: string;
  readonly outcome?: OutcomeFilter;
  /** The `nextCursor` of the page before. */
  readonly cursor?: string;
  /** 1–1000, default 100. */
  readonly limit?: number;
}

/** One ledger row as history shows it. */
export interface FireView {
  readonly occurrenceId: string;
  readonly tenantId: string;
  readonly scheduleId: string;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly dst: FireFields['dst'];
  readonly dstRule: string | null;
  readonly origin: FireFields['origin'];
  readonly revision: number;
  readonly routine: string;
  readonly overlap: string;
  readonly overridden: boolean;
  readonly state: FireFields['state'];
  readonly outcome: Outcome | null;
  readonly reason: string | null;
  readonly claimedAt: string;
  readonly reservationId: string | null;
  readonly runId: string | null;
  readonly launchedAt: string | null;
  readonly finishedAt: string | null;
  readonly result: JsonValue;
  readonly error: string | null;
  readonly owner: string | null;
  readonly fence: number;
  readonly leaseUntil: string | null;
  readonly supersededBy: string | null;
  readonly reclaimedRunId: string | null;
  readonly lateObservation: LateObservation | null;
}

export interface UndecodableRow {
  readonly id: string;
  readonly code: string;
  readonly path: string | null;
  readonly message: string;
}

export interface HistoryPage {
  readonly items: FireView[];
  /** Pass as `cursor` for the next (older) page; null when this page is the last. */
  readonly nextCursor: string | null;
  /** Rows the query met that cannot be read (reported on the first page only). */
  readonly undecodable: UndecodableRow[];
}

function fireView(id: string, f: FireFields): FireView {
  return {
    occurrenceId: id,
    tenantId: f.tenantId,
    scheduleId: f.scheduleId,
    nominalAt: f.nominalAt,
    wallTime: f.wallTime,
    dst: f.dst,
    dstRule: f.dstRule,
    origin: f.origin,
    revision: f.revision,
    routine: f.routine,
    overlap: f.overlap,
    overridden: f.overridden === true,
    state: f.state,
    outcome: f.outcome,
    reason: f.reason,
    claimedAt: f.claimedAt,
    reservationId: f.reservationId,
    runId: f.runId,
    launchedAt: f.launchedAt,
    finishedAt: f.finishedAt,
    result: f.result ?? null,
    error: f.error,
    owner: f.owner,
    fence: f.fence,
    leaseUntil: f.leaseUntil,
    supersededBy: f.supersededBy ?? null,
    reclaimedRunId: f.reclaimedRunId ?? null,
    lateObservation: f.lateObservation ?? null,
  };
}

export function undecodableRow(d: Extract<Decoded<unknown>, { ok: false }>): UndecodableRow {
  return { id: d.id, code: d.error.code, path: d.error.path ?? null, message: d.error.message };
}

function invalid(path: string, message: string): never {
  throw new TwinError('INVALID_OPTIONS', message, { path });
}

export function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_HISTORY_LIMIT;
  if (
    typeof limit !== 'number' ||
    !Number.isSafeInteger(limit) ||
    limit < 1 ||
    limit > MAX_HISTORY_LIMIT
  )
    invalid(
      'limit',
      `limit must be an integer from 1 to ${MAX_HISTORY_LIMIT}, got ${JSON.stringify(limit) ?? String(limit)}`,
    );
  return limit;
}

export function checkOutcome(outcome: unknown): OutcomeFilter | undefined {
  if (outcome === undefined) return undefined;
  if (outcome === 'pending' || OUTCOMES.includes(outcome as Outcome))
    return outcome as OutcomeFilter;
  return invalid(
    'outcome',
    `outcome ${JSON.stringify(outcome)} is not one of ${[...OUTCOMES, 'pending'].join(', ')}`,
  );
}

/** Where a page ends: the position of its last row in newest-first order. */
interface Position {
  readonly nominalAt: string;
  readonly scheduleId: string;
  readonly id: string;
}

const CURSOR_VERSION = 1;

function encodeCursor(p: Position): string {
  return Buffer.from(
    JSON.stringify([CURSOR_VERSION, p.nominalAt, p.scheduleId, p.id]),
    'utf8',
  ).toString('base64url');
}

export function decodeCursor(cursor: unknown): Position {
  const bad = (): never =>
    invalid(
      'cursor',
      'cursor is not one this ledger gave out; pass the nextCursor of the page before, unchanged, or omit it for the newest page',
    );
  if (
    typeof cursor !== 'string' ||
    cursor.length === 0 ||
    cursor.length > 2048 ||
    !/^[A-Za-z0-9_-]+$/.test(cursor)
  )
    return bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return bad();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== CURSOR_VERSION ||
    !parsed.slice(1).every((v) => typeof v === 'string') ||
    !Number.isFinite(Date.parse(parsed[1] as string))
  )
    return bad();
  return { nominalAt: parsed[1], scheduleId: parsed[2], id: parsed[3] };
}

function compareNewestFirst(a: Position, b: Position): number {
  const by = (x: string, y: string): number => (x < y ? 1 : x > y ? -1 : 0);
  return by(a.nominalAt, b.nominalAt) || by(a.scheduleId, b.scheduleId) || by(a.id, b.id);
}

/** One page of history over the rows an index gave (a schedule's, a tenant's, or one run's). */
export function historyPage(
  rows: readonly Resource[],
  query: HistoryQuery,
  options: { readonly limit: number; readonly after?: Position; readonly outcome?: OutcomeFilter },
): HistoryPage {
  const undecodable: UndecodableRow[] = [];
  const items: { id: string; f: FireFields }[] = [];
  for (const r of rows) {
    if (r.deleted) continue;
    const d = decodeFire(r);
    if (!d.ok) {
      // Reported to its own tenant only: a row named by id (a run id) may be another's.
      if (r.fields.tenantId === query.tenantId) undecodable.push(undecodableRow(d));
      continue;
    }
    const f = d.value;
    if (f.tenantId !== query.tenantId) continue;
    if (query.scheduleId !== undefined && f.scheduleId !== query.scheduleId) continue;
    if (
      query.runId !== undefined &&
      f.runId !== query.runId &&
      f.reclaimedRunId !== query.runId &&
      f.reservationId !== query.runId
    )
      continue;
    if (options.outcome !== undefined) {
      const want = options.outcome === 'pending' ? null : options.outcome;
      if (f.outcome !== want) continue;
    }
    items.push({ id: r.id, f });
  }
  const pos = (x: { id: string; f: FireFields }): Position => ({
    nominalAt: x.f.nominalAt,
    scheduleId: x.f.scheduleId,
    id: x.id,
  });
  items.sort((a, b) => compareNewestFirst(pos(a), pos(b)));
  const after = options.after;
  const rest =
    after === undefined ? items : items.filter((x) => compareNewestFirst(pos(x), after) > 0);
  const page = rest.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((x) => fireView(x.id, x.f)),
    nextCursor: rest.length > options.limit && last !== undefined ? encodeCursor(pos(last)) : null,
    undecodable: after === undefined ? undecodable : [],
  };
}

export interface PruneStep {
  readonly removed: number;
  /** Candidates left alone because the scheduler still reads them. */
  readonly kept: number;
}

/**
 * One pruning write over candidate rows (settled rows of the tenant, from SETTLED_INDEX): removes
 * those settled before `beforeIso` that no declaration still names. Answers undefined writes when
 * nothing goes.
 */
export function decidePrune(
  view: ReadView,
  nowIso: string,
  tenantId: string,
  beforeIso: string,
  candidates: readonly string[],
): Decision<PruneStep> {
  const removed: string[] = [];
  let kept = 0;
  const named = new Map<string, Set<string>>();
  const stillRead = (f: FireFields, id: string): boolean => {
    let ids = named.get(f.schedule);
    if (ids === undefined) {
      const d = readSchedule(view, f.schedule);
      ids = new Set([...(d?.active ?? []), ...(d?.buffer ?? [])]);
      named.set(f.schedule, ids);
    }
    return ids.has(id);
  };
  for (const id of candidates) {
    const r = view.get(FIRE_TYPE, id);
    if (r === undefined || r.deleted) continue;
    const d = decodeFire(r);
    if (!d.ok) continue;
    const f = d.value;
    if (f.tenantId !== tenantId || f.state !== 'settled' || f.outcome === null) continue;
    if (!SETTLED_OUTCOMES.includes(f.outcome) || f.finishedAt === null) continue;
    if (f.finishedAt >= beforeIso) continue;
    if (stillRead(f, id)) {
      kept++;
      continue;
    }
    removed.push(id);
  }
  if (removed.length === 0) return skip({ removed: 0, kept });
  const prev = view.get(PRUNE_TYPE, tenantId);
  const total = Number(prev?.deleted === false ? (prev.fields.total ?? 0) : 0) + removed.length;
  return commit(
    [
      {
        operation: 'schedule.prune',
        subjectType: PRUNE_TYPE,
        subjectId: tenantId,
        fields: { tenantId, prunedAt: nowIso, before: beforeIso, removed: removed.length, total },
        // Emptied, then deleted: the tombstone holds no payload, and still tells a backfill the
        // occurrence was claimed once.
        projection: {
          creates: removed.map((id) => ({ type: FIRE_TYPE, id, fields: {} })),
          deletes: removed.map((id) => ({ type: FIRE_TYPE, id })),
        },
        actor: 'operator',
      },
    ],
    { removed: removed.length, kept },
  );
}
