// The routine runner port: what the engine calls once it has claimed an envelope. The host
// implements it (a workflow engine, a job queue) or uses the built-in InProcessRunner.
import type { JsonValue } from '../log/json-value.js';
import type { ProjectedResource } from '../log/write.js';
import type { TriggerEnvelope } from './envelope.js';

export interface RoutineRunRequest {
  readonly routineId: string;
  /** The envelope's dedupeKey: two events in the same millisecond never share a run key. */
  readonly runKey: string;
  readonly input: JsonValue;
  readonly envelope: TriggerEnvelope;
  /** 1 for the first run; a retried delivery or recovery after a failure or crash counts up. */
  readonly attempt: number;
  /** The trigger record this run belongs to (resource id in the trigger twin). */
  readonly recordId: string;
  /** Aborted when the run lost its claim (a schedule superseded it): stop early, if you can. */
  readonly signal?: AbortSignal;
}

export type RunOutcome =
  | { readonly ok: true; readonly result: JsonValue }
  | { readonly ok: false; readonly error: string };

/**
 * Optional: resources a runner wants recorded about its runs. The engine attaches them to its own
 * `trigger.start` and `trigger.finish` writes, so a run's start commits atomically with the claim
 * and its result with the finish: no crash can leave one without the other.
 */
export interface RunRecorder {
  started(run: RunStartInfo, nowIso: string): readonly ProjectedResource[];
  finished(run: RunStartInfo, outcome: RunOutcome, nowIso: string): readonly ProjectedResource[];
}

/** What is known of a run when it is claimed (the input is built after the claim). */
export interface RunStartInfo {
  readonly routineId: string;
  readonly runKey: string;
  readonly attempt: number;
  readonly recordId: string;
  readonly envelope: TriggerEnvelope;
}

export interface RoutineRunner {
  /**
   * Runs the routine to a terminal result and answers it; a business failure is a result too
   * (e.g. { ok: false, reason: "card_declined" }). Throwing means the run did not finish: the
   * record becomes `failed` and a retried delivery or recoverIncomplete runs it again.
   */
  run(request: RoutineRunRequest): Promise<JsonValue>;
  readonly recorder?: RunRecorder;
}
