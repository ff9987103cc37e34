// The built-in runner: routines are async functions in this process, found in a routine store
// (its own registry unless the host passes one). Each run is a `routine_run` resource whose start
// and result ride on the engine's own start and finish writes. No run lock: a routine here dies
// with the process that holds the engine's claim, so the claim alone keeps runs apart.
import { checkOptionKeys, describeValue, TwinError } from '../errors.js';
import type { JsonValue } from '../log/json-value.js';
import type { World } from '../world/world.js';
import type { TriggerEnvelope } from './envelope.js';
import { RoutineRegistry, unknownRoutine, type RoutineStore } from './routine-store.js';
import { routineRunRecorder } from './run-recorder.js';
import type { RoutineRunner, RoutineRunRequest, RunRecorder } from './runner.js';

export { RUN_TYPE } from './run-recorder.js';

export interface RoutineContext {
  readonly world: World;
  readonly routineId: string;
  readonly runKey: string;
  readonly attempt: number;
  /** The trigger record this run belongs to (one per tenant and run key). */
  readonly recordId: string;
  readonly envelope: TriggerEnvelope;
  /** Aborted when the run lost its claim (a schedule superseded it); absent for ingested runs. */
  readonly signal?: AbortSignal;
}

/** Answers the routine's terminal result (JSON); throwing means "not finished, run me again". */
export type RoutineFn = (
  input: JsonValue,
  context: RoutineContext,
) => Promise<JsonValue> | JsonValue;

export interface InProcessRunnerOptions {
  /** Where routines come from; by default the runner's own registry, filled by `register`. */
  readonly routines?: RoutineStore<RoutineFn>;
}

export class InProcessRunner implements RoutineRunner {
  private readonly routines: RoutineStore<RoutineFn>;
  readonly recorder: RunRecorder = routineRunRecorder;

  constructor(
    private readonly world: World,
    options: InProcessRunnerOptions = {},
  ) {
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
    // {name: fn} given here (for routines) was dropped: every run then found no routine.
    checkOptionKeys('new InProcessRunner(world, options)', options, ['routines']);
    const store = options.routines;
    if (store !== undefined && (typeof store.get !== 'function' || typeof store.ids !== 'function'))
      throw new TwinError(
        'INVALID_ARGUMENT',
        'options.routines must be a routine store: { get(routineId), ids() }',
        { path: 'routines' },
      );
    this.routines = store ?? new RoutineRegistry<RoutineFn>();
  }

  /** Registers an async function as routine `routineId`; registering a name twice is refused. */
  register(routineId: string, fn: RoutineFn): this {
    if (!(this.routines instanceof RoutineRegistry))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `this runner reads its routines from the store it was given; add "${String(routineId)}" there`,
        { path: 'routineId' },
      );
    this.routines.register(routineId, fn);
    return this;
  }

  has(routineId: string): boolean {
    return this.routines.get(routineId) !== undefined;
  }

  /** The routine ids this runner can run. */
  ids(): readonly string[] {
    return this.routines.ids();
  }

  async run(request: RoutineRunRequest): Promise<JsonValue> {
    // No request was a TypeError; a routineId that is no text was "no routine "undefined"".
    if (request === null || typeof request !== 'object' || typeof request.routineId !== 'string')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `runner.run(request): request must be {routineId, runKey, attempt, recordId, input, envelope} with routineId a string, got ${describeValue(request === null || typeof request !== 'object' ? request : request.routineId)}`,
        { path: request === null || typeof request !== 'object' ? 'request' : 'request.routineId' },
      );
    const fn = this.routines.get(request.routineId);
    if (fn === undefined) {
      throw unknownRoutine(
        request.routineId,
        this.routines instanceof RoutineRegistry
          ? `register it with runner.register("${request.routineId}", fn)`
          : `add "${request.routineId}" to the routine store this runner was given`,
      );
    }
    const result = await fn(request.input, {
      world: this.world,
      routineId: request.routineId,
      runKey: request.runKey,
      attempt: request.attempt,
      recordId: request.recordId,
      envelope: request.envelope,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    return result === undefined ? null : result;
  }
}
