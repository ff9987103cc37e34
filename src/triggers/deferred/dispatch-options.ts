// Dispatch options: when, and how often at once, a route's routine may run — a delay, a debounce
// that coalesces a burst into one run, a concurrency limit per key, and a time to live. Given on a
// route (checked when it is registered) or on one ingest call (checked then); a call's option
// replaces the route's option of the same name. Every refusal names the option.
import { TwinError, type TwinErrorCode } from '../../errors.js';
import { isIsoInstant } from '../../log/iso-time.js';
import type { TriggerEnvelope } from '../envelope.js';

export type DebounceMode = 'leading' | 'trailing';
export type OnLimit = 'queue' | 'drop';

/**
 * Where a debounce or concurrency key comes from: a dotted path into the envelope
 * (`"payload.customer.id"`, `"scopeId"`), or a function of the envelope (host code, run before
 * any decision, like a route filter). A key that is missing or not a string, number or boolean
 * is the empty key: such envelopes share one window or one gate.
 */
export type DispatchKey =
  string | ((envelope: TriggerEnvelope) => string | number | boolean | null | undefined);

export interface DebounceOptions {
  readonly key: DispatchKey;
  /** The quiet period (ms): the run waits until no ping came for this long. */
  readonly period: number;
  /** trailing (default): run once, after the quiet period, with the latest envelope. leading: run the first at once, absorb the rest until quiet. */
  readonly mode?: DebounceMode;
  /** Run anyway once the window has been open this long (ms, at least `period`). */
  readonly maxWait?: number;
}

export interface ConcurrencyOptions {
  /** Runs of one key at once, across every process and host sharing the store. */
  readonly limit: number;
  /** Default: one gate for the whole trigger (per tenant). */
  readonly key?: DispatchKey;
  /** queue (default): wait for a free slot, first come first served. drop: cancel it instead. */
  readonly onLimit?: OnLimit;
}

export interface DispatchOptions {
  /** Milliseconds to wait, or `{ until: ISO time }` (a time already past runs at once). */
  readonly delay?: number | { readonly until: string };
  readonly debounce?: DebounceOptions;
  readonly concurrency?: ConcurrencyOptions;
  /** A dispatch that has not run this many ms after it was made expires instead. */
  readonly ttl?: number;
}

/** The checked form: every default filled in. */
export interface CheckedDispatch {
  readonly delay: { readonly ms: number } | { readonly until: string } | null;
  readonly debounce: {
    readonly key: DispatchKey;
    readonly period: number;
    readonly mode: DebounceMode;
    readonly maxWait: number | null;
  } | null;
  readonly concurrency: {
    readonly key: DispatchKey | null;
    readonly limit: number;
    readonly onLimit: OnLimit;
  } | null;
  readonly ttl: number | null;
}

/** Ten years: past it a delay is a mistake, and Date arithmetic stays far from its limits. */
export const MAX_DISPATCH_MS = 3650 * 86_400_000;
export const MAX_CONCURRENCY = 10_000;
const OPTION_KEYS = ['delay', 'debounce', 'concurrency', 'ttl'] as const;
const MAX_PATH = 256;

function refuse(code: TwinErrorCode, path: string, message: string): never {
  throw new TwinError(code, message, { path });
}

function describe(value: unknown): string {
  if (value === undefined) return '(missing)';
  if (typeof value === 'function') return '(function)';
  // JSON would say null for these, hiding the very value that was wrong.
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return `(${typeof value})`;
  }
}

function object(
  value: unknown,
  path: string,
  keys: readonly string[],
  example: string,
  code: TwinErrorCode,
): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    refuse(code, path, `${path} must be an object such as ${example}, got ${describe(value)}`);
  for (const key of Object.keys(value)) {
    if (!keys.includes(key))
      refuse(
        code,
        `${path}.${key}`,
        `${path}.${key} is not an option of ${path}; allowed: ${keys.join(', ')}`,
      );
  }
  return value as Record<string, unknown>;
}

function millis(value: unknown, path: string, code: TwinErrorCode, min: number): number {
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < min ||
    value > MAX_DISPATCH_MS
  )
    refuse(
      code,
      path,
      `${path} must be an integer number of milliseconds from ${min} to ${MAX_DISPATCH_MS} (ten years), got ${describe(value)}`,
    );
  return value;
}

function key(value: unknown, path: string, code: TwinErrorCode): DispatchKey {
  if (typeof value === 'function') return value as DispatchKey;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > MAX_PATH ||
    value.split('.').some((part) => part === '')
  )
    refuse(
      code,
      path,
      `${path} must be a dotted path into the envelope such as "payload.customer.id" (at most ${MAX_PATH} characters), or a function (envelope) => key; got ${describe(value)}`,
    );
  return value;
}

function delay(value: unknown, path: string, code: TwinErrorCode): CheckedDispatch['delay'] {
  if (typeof value === 'number') return { ms: millis(value, path, code, 0) };
  const d = object(value, path, ['until'], '{ "until": "2026-01-01T09:00:00.000Z" }', code);
  if (!isIsoInstant(d.until))
    refuse(
      code,
      `${path}.until`,
      `${path}.until must be an ISO 8601 time such as "2026-01-01T09:00:00.000Z", got ${describe(d.until)}`,
    );
  return { until: new Date(Date.parse(d.until)).toISOString() };
}

function debounce(value: unknown, path: string, code: TwinErrorCode): CheckedDispatch['debounce'] {
  const d = object(
    value,
    path,
    ['key', 'period', 'mode', 'maxWait'],
    '{ "key": "payload.customer.id", "period": 5000 }',
    code,
  );
  const period = millis(d.period, `${path}.period`, code, 1);
  const mode = d.mode ?? 'trailing';
  if (mode !== 'leading' && mode !== 'trailing')
    refuse(
      code,
      `${path}.mode`,
      `${path}.mode must be "leading" or "trailing", got ${describe(mode)}`,
    );
  const maxWait = d.maxWait === undefined ? null : millis(d.maxWait, `${path}.maxWait`, code, 1);
  if (maxWait !== null && maxWait < period)
    refuse(
      code,
      `${path}.maxWait`,
      `${path}.maxWait (${maxWait} ms) is shorter than the quiet period (${period} ms); give at least the period, or omit it`,
    );
  return { key: key(d.key, `${path}.key`, code), period, mode, maxWait };
}

function concurrency(
  value: unknown,
  path: string,
  code: TwinErrorCode,
): CheckedDispatch['concurrency'] {
  const c = object(
    value,
    path,
    ['limit', 'key', 'onLimit'],
    '{ "limit": 2, "key": "payload.repository" }',
    code,
  );
  if (
    typeof c.limit !== 'number' ||
    !Number.isSafeInteger(c.limit) ||
    c.limit < 1 ||
    c.limit > MAX_CONCURRENCY
  )
    refuse(
      code,
      `${path}.limit`,
      `${path}.limit must be an integer from 1 to ${MAX_CONCURRENCY}, got ${describe(c.limit)}`,
    );
  const onLimit = c.onLimit ?? 'queue';
  if (onLimit !== 'queue' && onLimit !== 'drop')
    refuse(
      code,
      `${path}.onLimit`,
      `${path}.onLimit must be "queue" or "drop", got ${describe(onLimit)}`,
    );
  return {
    key: c.key === undefined ? null : key(c.key, `${path}.key`, code),
    limit: c.limit,
    onLimit,
  };
}

/** The combinations that cannot mean anything, refused naming the option at fault. */
function checkTogether(d: CheckedDispatch, path: string, code: TwinErrorCode): CheckedDispatch {
  if (d.delay !== null && d.debounce !== null)
    refuse(
      code,
      `${path}.delay`,
      `${path}.delay and ${path}.debounce cannot be combined: a debounce already waits for its quiet period; lengthen debounce.period instead`,
    );
  if (d.ttl !== null && d.delay !== null && 'ms' in d.delay && d.ttl <= d.delay.ms)
    refuse(
      code,
      `${path}.ttl`,
      `${path}.ttl (${d.ttl} ms) is not longer than ${path}.delay (${d.delay.ms} ms): every dispatch would expire before it is due`,
    );
  if (d.ttl !== null && d.debounce !== null && d.ttl <= d.debounce.period)
    refuse(
      code,
      `${path}.ttl`,
      `${path}.ttl (${d.ttl} ms) is not longer than ${path}.debounce.period (${d.debounce.period} ms): every dispatch would expire before its quiet period ends`,
    );
  return d;
}

/**
 * Checks dispatch options; `path` names them in refusals ("route.dispatch",
 * "options.dispatch", "routes[0].dispatch"), `code` is the refusal's code.
 */
export function checkDispatchOptions(
  value: unknown,
  // Called bare, every refusal named "undefined" as the place of the options.
  path = 'dispatch',
  code: TwinErrorCode = 'INVALID_ARGUMENT',
): CheckedDispatch {
  const o = object(
    value,
    path,
    OPTION_KEYS,
    '{ "debounce": { "key": "payload.customer.id", "period": 5000 } }',
    code,
  );
  if (OPTION_KEYS.every((k) => o[k] === undefined))
    refuse(
      code,
      path,
      `${path} is empty; give at least one of ${OPTION_KEYS.join(', ')}, or omit it to run at once`,
    );
  return checkTogether(
    {
      delay: o.delay === undefined ? null : delay(o.delay, `${path}.delay`, code),
      debounce: o.debounce === undefined ? null : debounce(o.debounce, `${path}.debounce`, code),
      concurrency:
        o.concurrency === undefined
          ? null
          : concurrency(o.concurrency, `${path}.concurrency`, code),
      ttl: o.ttl === undefined ? null : millis(o.ttl, `${path}.ttl`, code, 1),
    },
    path,
    code,
  );
}

/** A call's options over a route's: each option given on the call replaces the route's. */
export function mergeDispatch(
  route: CheckedDispatch | undefined,
  call: CheckedDispatch | undefined,
  path = 'options.dispatch',
  code: TwinErrorCode = 'INVALID_ARGUMENT',
): CheckedDispatch | undefined {
  if (call === undefined) return route;
  if (route === undefined) return call;
  return checkTogether(
    {
      delay: call.delay ?? route.delay,
      debounce: call.debounce ?? route.debounce,
      concurrency: call.concurrency ?? route.concurrency,
      ttl: call.ttl ?? route.ttl,
    },
    path,
    code,
  );
}
