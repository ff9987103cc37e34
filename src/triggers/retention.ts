// The retention policy of the trigger twin: settled history older than a cutoff is pruned — a
// write that removes resources, never entries, so the log still replays to the same state.
// Settled means what nothing reads again: records that ended triggered or filtered, receipts,
// refusal windows that closed, replay guards whose window ended. Records still processing or
// failed are never pruned (recovery needs them). Candidates are found by reading the log forward
// from a stored cursor — each entry is looked at once over the twin's life, nothing is scanned —
// and an unexpired replay guard stops the cursor, so a guard's window always outlives the cutoff.
// A pruned resource keeps only a tombstone: its fields are emptied in the same write.
import { checkOptionKeys, checkWorld, TwinError } from '../errors.js';
import type { Entry, ResourceRef, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { isoAt } from '../world/clock.js';
import { commit, skip } from '../world/decision.js';
import type { World } from '../world/world.js';
import {
  RECEIPT_TYPE,
  RECORD_TYPE,
  REPLAY_GUARD_TYPE,
  replayGuardOf,
  triggerRecordOf,
} from './trigger-records.js';
import { REFUSALS_TYPE, refusalWindowOf } from './refusal-windows.js';

export const RETENTION_TYPE = 'trigger_retention';
const CURSOR_ID = 'cursor';
const DEFAULT_BATCH = 500;

export interface PruneOptions {
  /** Settled history whose last change is at least this old (world clock) is removed. */
  readonly olderThanMs: number;
  /** The trigger twin; default "triggers". */
  readonly twin?: string;
  /** Entries read per pruning write (default 500). */
  readonly batch?: number;
}

export interface PruneReport {
  readonly records: number;
  readonly receipts: number;
  readonly refusals: number;
  readonly guards: number;
  /** Entries read past in this call. */
  readonly examined: number;
  /** The log position retention has reached: every settled fact up to it was looked at. */
  readonly cursor: number;
}

type Kind = 'records' | 'receipts' | 'refusals' | 'guards';

interface Candidate extends ResourceRef {
  readonly kind: Kind;
}

/** One pruning write's outcome: `moved` when another pruner moved the cursor first. */
interface Step {
  readonly moved: boolean;
  readonly reached: number;
  readonly done: boolean;
  readonly removed: Candidate[];
  readonly read: number;
}

/** What an entry leaves to prune: the record it settled, the receipt or window it wrote, a guard. */
function candidatesOf(entry: Entry): Candidate[] {
  const out: Candidate[] = [];
  if (
    entry.subjectType === RECORD_TYPE &&
    (entry.operation === 'trigger.finish' || entry.operation === 'trigger.filter')
  )
    out.push({ kind: 'records', type: RECORD_TYPE, id: entry.subjectId });
  if (entry.subjectType === RECEIPT_TYPE)
    out.push({ kind: 'receipts', type: RECEIPT_TYPE, id: entry.subjectId });
  if (entry.subjectType === REFUSALS_TYPE)
    out.push({ kind: 'refusals', type: REFUSALS_TYPE, id: entry.subjectId });
  for (const created of entry.projection?.creates ?? [])
    if (created.type === REPLAY_GUARD_TYPE)
      out.push({ kind: 'guards', type: REPLAY_GUARD_TYPE, id: created.id });
  return out;
}

/** Whether a candidate can go now: 'yes', 'no' (keep it, move on), or 'wait' (stop the cursor here). */
function verdict(
  view: ReadView,
  c: Candidate,
  cutoffIso: string,
  nowIso: string,
): 'yes' | 'no' | 'wait' {
  const r = view.get(c.type, c.id);
  if (r === undefined || r.deleted) return 'no';
  switch (c.kind) {
    case 'records': {
      const f = triggerRecordOf(r);
      return (f.state === 'triggered' || f.state === 'filtered') &&
        f.finishedAt !== null &&
        f.finishedAt <= cutoffIso
        ? 'yes'
        : 'no';
    }
    case 'receipts':
      return 'yes';
    case 'refusals':
      return refusalWindowOf(r).windowEnd <= cutoffIso ? 'yes' : 'wait';
    case 'guards':
      return replayGuardOf(r).expiresAt <= nowIso ? 'yes' : 'wait';
  }
}

function checkOptions(options: PruneOptions): { olderThanMs: number; twin: string; batch: number } {
  if (options === null || typeof options !== 'object')
    throw new TwinError('INVALID_ARGUMENT', 'prune needs {olderThanMs}', { path: 'options' });
  // A misspelt batch or twin was dropped: the default twin pruned, not the one meant.
  checkOptionKeys('pruneTriggerHistory(world, options)', options, ['olderThanMs', 'twin', 'batch']);
  const { olderThanMs, batch = DEFAULT_BATCH, twin = 'triggers' } = options;
  if (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'olderThanMs must be a non-negative integer number of milliseconds (e.g. 30 days: 2592000000)',
      { path: 'olderThanMs' },
    );
  }
  if (!Number.isSafeInteger(batch) || batch < 1 || batch > 10_000)
    throw new TwinError('INVALID_ARGUMENT', 'batch must be an integer from 1 to 10000', {
      path: 'batch',
    });
  return { olderThanMs, twin, batch };
}

/**
 * Prunes settled trigger history older than `olderThanMs`. Safe to run from several processes at
 * once: each pruning write re-checks every candidate and moves the cursor only from where it
 * found it. Answers what was removed.
 */
export async function pruneTriggerHistory(
  world: World,
  options: PruneOptions,
): Promise<PruneReport> {
  checkWorld('pruneTriggerHistory(world, options)', world);
  const { olderThanMs, twin: name, batch } = checkOptions(options);
  const counts: Record<Kind, number> = { records: 0, receipts: 0, refusals: 0, guards: 0 };
  let examined = 0;
  if (!(await world.twinNames()).includes(name)) return { ...counts, examined, cursor: 0 };
  const twin = world.twin(name);
  for (;;) {
    const now = world.clock.now();
    const nowIso = isoAt(now);
    const cutoffIso = isoAt(now - olderThanMs);
    const from = Number((await twin.get(RETENTION_TYPE, CURSOR_ID))?.fields.seq ?? 0);
    // Read outside the lock: entries never change, only the candidates' state is re-checked inside.
    const entries = await twin.entries({ after: from, limit: batch });
    if (entries.length === 0) break;
    const { result } = await twin.applyAtomic((view) => {
      const at = Number(view.get(RETENTION_TYPE, CURSOR_ID)?.fields.seq ?? 0);
      if (at !== from)
        return skip<Step>({ moved: true, reached: at, done: false, removed: [], read: 0 });
      const removed: Candidate[] = [];
      const seen = new Set<string>();
      let reached = from;
      let done = false;
      let read = 0;
      scan: for (const entry of entries) {
        if (entry.recordedAt > cutoffIso) {
          done = true;
          break;
        }
        for (const c of candidatesOf(entry)) {
          const key = `${c.type}\u0000${c.id}`;
          if (seen.has(key)) continue;
          const v = verdict(view, c, cutoffIso, nowIso);
          if (v === 'wait') {
            done = true;
            break scan;
          }
          seen.add(key);
          if (v === 'yes') removed.push(c);
        }
        reached = entry.seq;
        read++;
      }
      // Only retention's own cursor moves read (with olderThanMs 0 each is at the cutoff): moving
      // past them would write another, and {olderThanMs: 0} never returned.
      if (
        removed.length === 0 &&
        entries.slice(0, read).every((e) => e.subjectType === RETENTION_TYPE)
      )
        return skip<Step>({ moved: false, reached: from, done: true, removed: [], read: 0 });
      if (reached === from)
        return skip<Step>({ moved: false, reached, done: true, removed: [], read });
      const tally: Record<Kind, number> = { records: 0, receipts: 0, refusals: 0, guards: 0 };
      for (const c of removed) tally[c.kind]++;
      const write: Write = {
        operation: 'trigger.prune',
        subjectType: RETENTION_TYPE,
        subjectId: CURSOR_ID,
        fields: { seq: reached, prunedAt: nowIso, cutoff: cutoffIso, removed: tally },
        // Emptied, then deleted: the tombstone left behind holds no payload.
        ...(removed.length === 0
          ? {}
          : {
              projection: {
                creates: removed.map((c) => ({ type: c.type, id: c.id, fields: {} })),
                deletes: removed.map((c) => ({ type: c.type, id: c.id })),
              },
            }),
        actor: 'system',
      };
      return commit<Step>(write, { moved: false, reached, done, removed, read });
    });
    if (result.moved) continue;
    for (const c of result.removed) counts[c.kind]++;
    examined += result.read;
    if (result.done || result.reached === from) break;
  }
  const cursor = Number((await twin.get(RETENTION_TYPE, CURSOR_ID))?.fields.seq ?? 0);
  return { ...counts, examined, cursor };
}
