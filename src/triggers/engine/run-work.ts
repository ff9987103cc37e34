// Routine runs as work for the worker (docs/work.md): a `processing` record's due time is its
// owner's lease end, so a run whose process died falls due when its lease lapses, and a worker
// takes it over — re-running it from its stored envelope. A run still heartbeating is never due.
import { dueIndexWork } from '../../work/due-index-work.js';
import type { WorkKind } from '../../work/work-kind.js';
import { triggerRecordKind } from '../trigger-records.js';
import type { TriggerEngine } from './engine.js';

export function runTakeoverWork(engine: TriggerEngine): WorkKind {
  return dueIndexWork({
    name: 'trigger-run',
    twin: engine.twin,
    sources: [{ kind: triggerRecordKind }],
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
  });
}
