// The built-in runner: routines are async functions in this process. Each run is a
// `routine_run` resource whose start and result ride on the engine's own start and finish
// writes, so the run's history commits atomically with the trigger decisions.
import { TwinError } from '../errors.js';
import type { JsonValue } from '../log/json-value.js';
import type { ProjectedResource } from '../log/write.js';
import type { World } from '../world/world.js';
import type { TriggerEnvelope } from './envelope.js';
import type {
  RoutineRunner,
  RoutineRunRequest,
  RunOutcome,
  RunRecorder,
  RunStartInfo,
} from './runner.js';

export const RUN_TYPE = 'routine_run';

export interface RoutineContext {
  readonly world: World;
  readonly routineId: string;
  readonly runKey: string;
  readonly attempt: number;
  readonly envelope: TriggerEnvelope;
  /** Aborted when the run lost its claim (a schedule superseded it); absent for ingested runs. */
  readonly signal?: AbortSignal;
}

/** Answers the routine's terminal result (JSON); throwing means "not finished, run me again". */
export type RoutineFn = (
  input: JsonValue,
  context: RoutineContext,
) => Promise<JsonValue> | JsonValue;

const ROUTINE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:\-/]{0,127}$/;

/** The run resource's id: one per attempt of one record. */
function runId(recordId: string, attempt: number): string {
  return `${recordId}.${attempt}`;
}

export class InProcessRunner implements RoutineRunner {
  private readonly routines = new Map<string, RoutineFn>();

  readonly recorder: RunRecorder = {
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

  constructor(private readonly world: World) {
    if (
      world === null ||
      typeof world !== 'object' ||
      typeof (world as World).twin !== 'function'
    ) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'new InProcessRunner(world): pass the world the routines run in',
        { path: 'world' },
      );
    }
  }

  /** Registers an async function as routine `routineId`; registering a name twice is refused. */
  register(routineId: string, fn: RoutineFn): this {
    if (typeof routineId !== 'string' || !ROUTINE_ID.test(routineId)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `routineId ${JSON.stringify(routineId)} is not valid; use 1–128 letters, digits and _ . : - /`,
        { path: 'routineId' },
      );
    }
    if (typeof fn !== 'function')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `routine "${routineId}" must be a function (input, context) => result`,
        { path: 'fn' },
      );
    if (this.routines.has(routineId))
      throw new TwinError('INVALID_ARGUMENT', `routine "${routineId}" is already registered`, {
        path: 'routineId',
      });
    this.routines.set(routineId, fn);
    return this;
  }

  has(routineId: string): boolean {
    return this.routines.has(routineId);
  }

  async run(request: RoutineRunRequest): Promise<JsonValue> {
    const fn = this.routines.get(request.routineId);
    if (fn === undefined) {
      throw new TwinError(
        'UNKNOWN_ROUTINE',
        `no routine "${request.routineId}" is registered with this runner; register it with runner.register("${request.routineId}", fn)`,
        { path: 'routineId' },
      );
    }
    const result = await fn(request.input, {
      world: this.world,
      routineId: request.routineId,
      runKey: request.runKey,
      attempt: request.attempt,
      envelope: request.envelope,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    return result === undefined ? null : result;
  }
}
