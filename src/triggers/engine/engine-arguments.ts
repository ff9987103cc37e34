// The engine's argument checks, made before anything is read or written: a route's shape, the
// keys a lookup takes, ingest's options, a dispatched run and a refusal. Each names the argument
// it refuses; those on per-event paths are typeof checks.
import { checkOptionKeys, describeValue, TwinError } from '../../errors.js';
import { checkTenantId, checkTriggerId } from '../envelope.js';
import type { Refusal } from '../receipts.js';
import type { RunStartInfo } from '../runner.js';
import { checkDispatchOptions, type CheckedDispatch } from '../deferred/dispatch-options.js';
import type { IngestOptions, TriggerRoute } from './engine-options.js';

const ROUTE_KEYS: readonly (keyof TriggerRoute)[] = [
  'triggerId',
  'routineId',
  'filter',
  'buildInput',
  'dispatch',
];
const INGEST_OPTION_KEYS: readonly (keyof IngestOptions)[] = ['replayGuard', 'dispatch'];

/**
 * Refuses a lookup key that is no text: a Map answered "no route" for `hasRoute(5)` or
 * `takeOver(undefined)`, as if the id were merely unknown.
 */
export function checkKey(call: string, path: string, value: unknown): void {
  if (typeof value !== 'string' || value === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: ${path} must be a non-empty string, got ${describeValue(value)}`,
      { path },
    );
}

/** A route's shape, and its dispatch options checked; whether its trigger is taken is the engine's. */
export function checkRoute(route: TriggerRoute): CheckedDispatch | undefined {
  if (route === null || typeof route !== 'object') {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'registerRoute({triggerId, routineId, filter?, buildInput}) needs a route object',
      { path: 'route' },
    );
  }
  // A misspelt key ({routine: 'sync'}, {filtr}) was dropped: the route ran without it.
  checkOptionKeys('engine.registerRoute(route)', route, ROUTE_KEYS, 'route');
  checkTriggerId(route.triggerId, 'route.triggerId', 'INVALID_ARGUMENT');
  if (typeof route.routineId !== 'string' || route.routineId.length === 0) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `route.routineId must name the routine to run for trigger "${route.triggerId}"`,
      { path: 'route.routineId' },
    );
  }
  if (route.filter !== undefined && typeof route.filter !== 'function') {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'route.filter must be a function (envelope) => boolean, or omitted',
      { path: 'route.filter' },
    );
  }
  if (typeof route.buildInput !== 'function') {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'route.buildInput must be a function (envelope) => input, e.g. (e) => e.payload',
      { path: 'route.buildInput' },
    );
  }
  return route.dispatch === undefined
    ? undefined
    : checkDispatchOptions(route.dispatch, 'route.dispatch', 'INVALID_ARGUMENT');
}

/**
 * A misspelt {replayGard} was dropped and the envelope ingested unguarded; a number was read as
 * no options. Null stays no options, as JavaScript callers pass it.
 */
export function checkIngestOptions(options: IngestOptions | null | undefined): void {
  checkOptionKeys(
    'engine.ingest(envelope, context, options)',
    options ?? undefined,
    INGEST_OPTION_KEYS,
  );
}

/** A dispatched run as a dispatch step answered it, and the time it was scheduled for. */
export function checkDispatchedRun(run: RunStartInfo, scheduledAt: string): void {
  if (
    run === null ||
    typeof run !== 'object' ||
    run.envelope === null ||
    typeof run.envelope !== 'object'
  )
    throw new TwinError(
      'INVALID_ARGUMENT',
      `engine.runDispatched(run, scheduledAt): run must be the claimed run a dispatch step answered ({recordId, attempt, envelope, …}), got ${describeValue(run)}`,
      { path: 'run' },
    );
  checkKey('engine.runDispatched(run, scheduledAt)', 'scheduledAt', scheduledAt);
}

/**
 * {} or a refusal without its error was counted, and the window's write then failed at stop()
 * (INVALID_WRITE), losing every count of that window with it.
 */
export function checkRefusal(refusal: Refusal): void {
  if (refusal === null || typeof refusal !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `engine.recordRefusal(refusal): refusal must be an object {tenantId, error, scopeId?, provider?, …}, got ${describeValue(refusal)}`,
      { path: 'refusal' },
    );
  checkTenantId(refusal.tenantId, 'refusal.tenantId', 'INVALID_ARGUMENT');
  if (!(refusal.error instanceof TwinError))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `engine.recordRefusal(refusal): refusal.error must be the TwinError the packet was refused with, got ${describeValue(refusal.error)}`,
      { path: 'refusal.error' },
    );
}
