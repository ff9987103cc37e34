// The trigger engine's vocabulary: routes, options, and what recovery reports; and the check
// every options object passes (an unknown key is refused, naming it).
import { TwinError } from '../../errors.js';
import { type JsonValue } from '../../log/json-value.js';
import type { World } from '../../world/world.js';
import { type TriggerEnvelope } from '../envelope.js';
import { type ReplayGuard } from '../trigger-records.js';
import type { RoutineRunner } from '../runner.js';
import { type DispatchOptions } from '../deferred/dispatch-options.js';

export interface TriggerRoute {
  readonly triggerId: string;
  readonly routineId: string;
  /** Host code, run before the claim: false records the envelope as `filtered`. */
  readonly filter?: (envelope: TriggerEnvelope) => boolean;
  /** Builds the routine's input after the claim (so a failure here is a failed, recoverable run). */
  readonly buildInput: (envelope: TriggerEnvelope) => JsonValue | Promise<JsonValue>;
  /** Run later, not at once: delay, debounce, concurrency, ttl (see deferred/dispatch-options.ts). */
  readonly dispatch?: DispatchOptions;
}

export interface TriggerEngineOptions {
  readonly world: World;
  /** The twin every decision is written to; default "triggers". */
  readonly twin?: string;
  readonly runner: RoutineRunner;
  /** Refusals (per source) and repeats of a known delivery (per record) are counted in windows this long of world time (default 60 s). */
  readonly refusalWindowMs?: number;
  /** The owner written on each run's claim; defaults to a fresh id from the world's id source. */
  readonly owner?: string;
  /** How long a run's claim lasts before its owner must heartbeat (default 30 s, world clock). */
  readonly leaseMs?: number;
}

export const ENGINE_OPTION_KEYS: readonly (keyof TriggerEngineOptions)[] = [
  'world',
  'twin',
  'runner',
  'refusalWindowMs',
  'owner',
  'leaseMs',
];

export interface IngestOptions {
  /**
   * For sources whose delivery id is not signed: a key for what the signature does cover. A new
   * key whose signed content was already received under another key within `windowMs` is
   * answered `duplicate` (with `replayOf`) and never run.
   */
  readonly replayGuard?: ReplayGuard;
  /** Dispatch options for this envelope; each one given replaces the route's option of that name. */
  readonly dispatch?: DispatchOptions;
}

export interface StopOptions {
  /** How long to wait for work in flight, wall time (default 30 s). */
  readonly graceMs?: number;
}

export interface RecoveryOptions {
  /**
   * Re-run a `processing` record only if its run started at least this long ago (default 0). Its
   * owner's lease must also have lapsed: a run still heartbeating is never started twice.
   */
  readonly staleAfterMs?: number;
}

export interface RecoveredRun {
  readonly recordId: string;
  readonly dedupeKey: string;
  readonly triggerId: string;
  readonly attempt: number;
  /** What the record was found in. */
  readonly from: 'processing' | 'failed';
  readonly status: 'triggered' | 'failed';
  readonly routineResult: JsonValue;
  readonly error: string | null;
}

export interface TriggerRecoveryReport {
  readonly tenantId: string;
  readonly recovered: RecoveredRun[];
  /** Records left alone: claimed by someone else meanwhile, not stale yet, or without a route. */
  readonly skipped: {
    readonly recordId: string;
    readonly reason: 'claimed_elsewhere' | 'not_stale' | 'UNKNOWN_TRIGGER';
  }[];
}

/**
 * Options beside an optional context: an unknown key is refused, so a look-alike context (a
 * plain object, not made by tenantContext) is never silently read as options and run unscoped.
 */
export function checkOptions(options: unknown, keys: readonly string[], what: string): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TwinError('INVALID_ARGUMENT', `${what} must be an object with ${keys.join(', ')}`, {
      path: 'options',
    });
  }
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${what} has an unknown key "${key}" (allowed: ${keys.join(', ')}); a context must be made by tenantContext({tenantId, may})`,
        { path: `options.${key}` },
      );
    }
  }
}
