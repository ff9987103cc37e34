// Routine runs as work for the worker (docs/work.md): a `processing` record's due time is its
// owner's lease end, so a run whose process died falls due when its lease lapses, and a worker
// takes it over — re-running it from its stored envelope. A run still heartbeating is never due.
import { isoAt } from '../../world/clock.js';
import { DUE_INDEX, END_OF_TIME } from '../../work/lease.js';
import type { DueItem, WorkKind } from '../../work/work-kind.js';
import type { TriggerEngine } from './engine.js';
import { RECORD_TYPE } from '../trigger-records.js';

export function runTakeoverWork(engine: TriggerEngine): WorkKind {
  const dueItems = (maxKey: string, limit: number): Promise<DueItem[]> =>
    engine.twin.read((view) =>
      view
        .lookupUpTo(RECORD_TYPE, DUE_INDEX, maxKey, limit)
        .map((r) => ({ id: r.id, dueAt: String(r.fields.dueAt) })),
    );
  return {
    name: 'trigger-run',
    twins: () => [engine.twin],
    due: (nowMs, limit) => dueItems(isoAt(nowMs), limit),
    nextDue: async () => {
      const [first] = await dueItems(END_OF_TIME, 1);
      return first === undefined ? undefined : Date.parse(first.dueAt);
    },
    // Every record on this index is a run under a lease: in flight until it finishes or lapses.
    inFlight: async () => {
      const [first] = await dueItems(END_OF_TIME, 1);
      return first === undefined ? undefined : Date.parse(first.dueAt);
    },
    run: async (item) => {
      const run = await engine.takeOver(item.id);
      return run === undefined
        ? undefined
        : {
            kind: 'trigger-run',
            id: item.id,
            outcome: run.status,
            detail: `attempt ${run.attempt}`,
          };
    },
  };
}
