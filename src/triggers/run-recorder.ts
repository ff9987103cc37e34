// The `routine_run` resources the built-in runners record: one per attempt of a trigger record,
// its start riding on the engine's start write and its result on the finish write, so a run's
// history commits atomically with the trigger decisions wherever the routine executed.
import type { ProjectedResource } from '../log/write.js';
import type { RunOutcome, RunRecorder, RunStartInfo } from './runner.js';

export const RUN_TYPE = 'routine_run';

/** The run resource's id: one per attempt of one record. */
function runId(recordId: string, attempt: number): string {
  return `${recordId}.${attempt}`;
}

export const routineRunRecorder: RunRecorder = {
  started: (run: RunStartInfo, nowIso: string): readonly ProjectedResource[] => [
    {
      type: RUN_TYPE,
      id: runId(run.recordId, run.attempt),
      fields: {
        routineId: run.routineId,
        runKey: run.runKey,
        attempt: run.attempt,
        record: run.recordId,
        state: 'running',
        startedAt: nowIso,
        finishedAt: null,
        result: null,
        error: null,
      },
    },
  ],
  finished: (
    run: RunStartInfo,
    outcome: RunOutcome,
    nowIso: string,
  ): readonly ProjectedResource[] => [
    {
      type: RUN_TYPE,
      id: runId(run.recordId, run.attempt),
      fields: outcome.ok
        ? { state: 'succeeded', finishedAt: nowIso, result: outcome.result }
        : { state: 'failed', finishedAt: nowIso, error: outcome.error },
    },
  ],
};
