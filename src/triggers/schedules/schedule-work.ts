// Schedules as work for the worker (docs/work.md). Two things fall due, both found through the
// due-time index, never by a scan: a declaration whose next occurrence came (its claim decides
// every due occurrence by the stored policies and reserves what launches), and a ledger row that
// needs a worker — ready (a backfill's, or promoted from the buffer) or held by an owner whose
// lease lapsed (it died), which is reclaimed and launched again. Several workers share this: the
// claims and reservations are atomic, so no occurrence fires twice.
import { describeValue, TwinError } from '../../errors.js';
import { dueIndexWork } from '../../work/due-index-work.js';
import type { DueItem, WorkContext, WorkKind, WorkReport } from '../../work/work-kind.js';
import type { Reservation } from './claim.js';
import { scheduleKind } from './declaration.js';
import { fireKind } from './fire-record.js';
import type { RunReport, Schedules } from './schedules.js';

export const SCHEDULE_WORK = 'schedule';
const SCHEDULE_ITEM = 'schedule:';
const FIRE_ITEM = 'fire:';

export function scheduleWork(schedules: Schedules): WorkKind {
  if (typeof (schedules as Partial<Schedules> | null | undefined)?.list !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `scheduleWork(schedules): schedules must be a Schedules (new Schedules({world, runner})), got ${describeValue(schedules)}`,
      { path: 'schedules' },
    );
  const base = dueIndexWork({
    name: SCHEDULE_WORK,
    twin: schedules.twin,
    sources: [
      // A declaration's item names its due time: the next occurrence is another item, so a
      // worker still running the last one can claim it.
      {
        kind: scheduleKind,
        item: (r) => ({
          id: `${SCHEDULE_ITEM}${r.id}@${String(r.fields.dueAt)}`,
          dueAt: String(r.fields.dueAt),
        }),
      },
      {
        kind: fireKind,
        item: (r) => ({ id: `${FIRE_ITEM}${r.id}`, dueAt: String(r.fields.dueAt) }),
      },
    ],
    // A reserved or running ledger row is held by an owner until it settles or its lease lapses.
    held: { kind: fireKind, states: ['reserved', 'running'] },
    run: async (item: DueItem, context: WorkContext) => {
      const claimed = await claimItem(
        schedules,
        item,
        (context as Partial<WorkContext> | null | undefined)?.owner as string,
      );
      if (claimed === undefined) return undefined;
      if (claimed.held.length === 0) return report(item.id, claimed.outcome, claimed.detail);
      const { outcome, detail } = describe(await runAll(claimed.held));
      return report(item.id, outcome, `${claimed.detail}: ${detail}`);
    },
  });

  const runAll = async (held: readonly Reservation[]): Promise<(RunReport | TwinError)[]> =>
    Promise.all(
      held.map((r) =>
        schedules.run(r).catch((error: unknown) => {
          if (error instanceof TwinError && error.code === 'STALE_OWNER') return error;
          throw error;
        }),
      ),
    );

  const report = (id: string, outcome: string, detail?: string): WorkReport => ({
    kind: SCHEDULE_WORK,
    id,
    outcome,
    ...(detail === undefined ? {} : { detail }),
  });

  const describe = (runs: (RunReport | TwinError)[]): { outcome: string; detail: string } => {
    const parts = runs.map((r) =>
      r instanceof TwinError
        ? 'stale_owner'
        : `${r.outcome}${r.error === null ? '' : ` (${r.error})`}`,
    );
    return {
      outcome: runs.some((r) => r instanceof TwinError)
        ? 'stale_owner'
        : (runs[runs.length - 1] as RunReport).outcome,
      detail: parts.join(', '),
    };
  };

  return {
    ...base,
    due: async (nowMs, limit) => {
      const items = await base.due(nowMs, limit);
      // A host beats while it serves schedules: a root with none keeps its trigger twin empty.
      if (schedules.beatDue() && (items.length > 0 || (await base.nextDue()) !== undefined))
        await schedules.beat();
      return items;
    },
  };
}

export interface ClaimedItem {
  /** Reservations to launch, in nominal order. */
  readonly held: Reservation[];
  /** With nothing to launch: what the claim decided (skipped, buffered). */
  readonly outcome: string;
  readonly detail: string;
}

/**
 * The claim half of running one due item: a declaration's due occurrences claimed, or a ledger
 * row reserved. Undefined when the item claimed nothing (another worker got there first).
 */
export async function claimItem(
  schedules: Schedules,
  item: DueItem,
  owner: string,
): Promise<ClaimedItem | undefined> {
  // No item was a TypeError; an id of neither kind claimed nothing, as if another worker had.
  if (
    typeof (item as Partial<DueItem> | null | undefined)?.id !== 'string' ||
    !(item.id.startsWith(SCHEDULE_ITEM) || item.id.startsWith(FIRE_ITEM))
  )
    throw new TwinError(
      'INVALID_ARGUMENT',
      `claimItem(schedules, item, owner): item must be a due item of the schedule work (its due() or take() answered it, id "${SCHEDULE_ITEM}…" or "${FIRE_ITEM}…"), got ${describeValue((item as Partial<DueItem> | null | undefined)?.id ?? item)}`,
      { path: 'item' },
    );
  if (typeof owner !== 'string' || owner === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `claimItem(schedules, item, owner): owner must be the worker's id, got ${describeValue(owner)}`,
      { path: 'owner' },
    );
  if (item.id.startsWith(SCHEDULE_ITEM)) {
    const key = item.id.slice(SCHEDULE_ITEM.length, item.id.lastIndexOf('@'));
    const { claims, missed } = await schedules.claimDue(key, { owner });
    const made = claims.filter((c) => c.claimed);
    if (made.length === 0 && missed === 0) return undefined;
    const held: Reservation[] = [];
    for (const c of made)
      if (c.claimed && (c.action === 'fire' || c.action === 'supersede') && c.reservation)
        held.push(c.reservation);
    const detail =
      made.map((c) => `${c.nominalAt} ${c.claimed ? c.action : ''}`).join(', ') ||
      `${missed} missed`;
    const buffered = made.some((c) => c.claimed && c.action === 'buffer');
    return { held, outcome: buffered ? 'buffered' : 'skipped', detail };
  }
  if (item.id.startsWith(FIRE_ITEM)) {
    const held = await schedules.reserve(item.id.slice(FIRE_ITEM.length), { owner });
    if (held === undefined) return undefined;
    return { held: [held], outcome: 'reserved', detail: `${held.nominalAt} fence ${held.fence}` };
  }
  return undefined;
}
