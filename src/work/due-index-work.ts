// The one generic work kind over the due-time index (docs/work.md). Its items are the records of
// one or more record kinds whose due field has come, earliest first; `nextDue` is the earliest due
// time of any; `inFlight` the earliest lease end among records held by an owner. What a kind adds
// is how to run an item — and, when several records make one item (a tenant's calendars), what
// item a record stands for. Every kind that falls due is built on it, so the due-index scaffolding
// exists once.
import { describeValue, TwinError } from '../errors.js';
import type { Resource } from '../state/resource.js';
import { isoAt, LAST_MS } from '../world/clock.js';
import type { Twin } from '../world/twin.js';
import { DUE_INDEX, END_OF_TIME } from './lease.js';
import type { DueItem, WorkContext, WorkKind, WorkReport } from './work-kind.js';

/** The open records an in-flight check reads at most (they are ordered by due time). */
const MAX_OPEN = 100_000;

interface DueSource {
  /** The record kind whose due index is read (a `recordKind`, or anything with its type string). */
  readonly kind: { readonly type: string };
  /**
   * The item a due record stands for; default its id and due time. With several sources, items
   * sharing an id merge (the earliest due time stands) and are ordered by due time, then id.
   */
  readonly item?: (record: Resource) => DueItem;
}

export interface DueIndexWorkSpec {
  readonly name: string;
  readonly twin: Twin;
  readonly sources: readonly DueSource[];
  /** Records of this kind in these states are held by an owner until their due time. */
  readonly held?: { readonly kind: { readonly type: string }; readonly states: readonly string[] };
  /** Batched claims, for a kind that can claim several due items in one section. */
  readonly take?: WorkKind['take'];
  run(item: DueItem, context: WorkContext): Promise<WorkReport | undefined>;
}

const byDue = (a: DueItem, b: DueItem): number =>
  a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

const recordItem = (r: Resource): DueItem => ({ id: r.id, dueAt: String(r.fields.dueAt) });

/**
 * `due` is public (a host's own loop, a test stepping work by hand): its arguments are refused
 * here, named as the caller wrote them, not by the index read or the clock deep below.
 */
function checkDue(name: string, nowMs: unknown, limit: unknown): void {
  const call = `${name}.due(nowMs, limit)`;
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs) || Math.abs(nowMs) > LAST_MS)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: nowMs must be epoch milliseconds a date can hold (±${LAST_MS}), got ${describeValue(nowMs)}`,
      { path: 'nowMs' },
    );
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: limit must be a whole number of items, 1 or more, got ${describeValue(limit)}`,
      { path: 'limit' },
    );
}

export function dueIndexWork(spec: DueIndexWorkSpec): WorkKind {
  const { twin, sources, held } = spec;
  const [only] = sources.length === 1 ? sources : [];
  const dueItems = (maxKey: string, limit: number): Promise<DueItem[]> =>
    twin.read((view) => {
      // One kind, one item per record: the index's own order (due time, then id).
      if (only !== undefined)
        return view
          .lookupUpTo(only.kind.type, DUE_INDEX, maxKey, limit)
          .map(only.item ?? recordItem);
      const earliest = new Map<string, DueItem>();
      for (const source of sources)
        for (const r of view.lookupUpTo(source.kind.type, DUE_INDEX, maxKey, limit)) {
          const item = (source.item ?? recordItem)(r);
          const known = earliest.get(item.id);
          if (known === undefined || item.dueAt < known.dueAt) earliest.set(item.id, item);
        }
      return [...earliest.values()].sort(byDue).slice(0, limit);
    });
  return {
    name: spec.name,
    twins: () => [twin],
    due: async (nowMs, limit) => {
      checkDue(spec.name, nowMs, limit);
      return dueItems(isoAt(nowMs), limit);
    },
    nextDue: async () => {
      const [first] = await dueItems(END_OF_TIME, 1);
      return first === undefined ? undefined : Date.parse(first.dueAt);
    },
    ...(held === undefined
      ? {}
      : {
          inFlight: () =>
            twin.read((view) => {
              const open = view.lookupUpTo(held.kind.type, DUE_INDEX, END_OF_TIME, MAX_OPEN);
              const first = open.find((r) => held.states.includes(String(r.fields.state)));
              return first === undefined ? undefined : Date.parse(String(first.fields.dueAt));
            }),
        }),
    ...(spec.take === undefined ? {} : { take: spec.take }),
    run: (item, context) => spec.run(item, context),
  };
}
