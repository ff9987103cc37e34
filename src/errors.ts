// Typed refusals: every error the kernel raises carries a stable code, the path of the
// offending value where there is one, and a message that says how to fix it.
import { didYouMean } from './did-you-mean.js';

export type TwinErrorCode =
  | 'INVALID_WRITE'
  | 'PAYLOAD_TOO_LARGE'
  | 'INVALID_ARGUMENT'
  | 'IMPORT_MALFORMED_LINE'
  | 'IMPORT_CONFLICT'
  | 'IMPORT_CHAIN_BROKEN'
  | 'TWIN_LOG_MISSING'
  | 'UNKNOWN_TWIN'
  | 'WORLD_CLOSED'
  | 'NO_WORLD'
  | 'ASYNC_DECIDE'
  | 'UNSTABLE_DECIDE'
  | 'STORE_UNREACHABLE'
  | 'STORE_AUTH_FAILED'
  | 'STORE_PERMISSION_DENIED'
  | 'STORE_SCHEMA_TOO_NEW'
  | 'STORE_SERVER_TOO_OLD'
  | 'STORE_BUSY'
  | 'STORE_FAILED'
  | 'TENANT_MISMATCH'
  | 'PAYLOAD_CONFLICT'
  | 'STALE_OWNER'
  | 'REVISION_MISMATCH'
  | 'INVALID_OPTIONS'
  | 'UNDECODABLE_RECORD'
  | 'UNKNOWN_TRIGGER'
  | 'UNKNOWN_DISPATCH'
  | 'DISPATCH_NOT_CANCELLABLE'
  | 'UNKNOWN_DELIVERY'
  | 'UNKNOWN_PACK'
  | 'UNKNOWN_EVENT_TYPE'
  | 'BAD_SIGNATURE'
  | 'STALE_TIMESTAMP'
  | 'MISSING_HEADER'
  | 'INVALID_ENVELOPE'
  | 'INVALID_BODY'
  | 'NOT_CLAIMABLE'
  | 'INVALID_CONFIG'
  | 'HASH_MISMATCH'
  | 'UNKNOWN_ENDPOINT'
  | 'UNKNOWN_ROUTINE'
  | 'ROUTINE_FAILED'
  | 'ROUTINE_CRASHED'
  | 'ROUTINE_TIMEOUT'
  | 'ROUTINE_LOCKED'
  | 'ENGINE_STOPPED'
  | 'TENANT_FORBIDDEN'
  | 'SECRET_RETIRED'
  | 'ROOT_NOT_FOUND'
  | 'ROOT_NOT_A_FOLDER'
  | 'ROOT_READ_ONLY'
  | 'EXPORT_FAILED'
  | 'CLOCK_NOT_VIRTUAL'
  | 'UNKNOWN_ACTION'
  | 'CONSOLE_TOKEN'
  | 'DISK_FULL'
  | 'PORT_IN_USE'
  | 'PORT_NOT_PERMITTED'
  | 'LOG_FILE_UNREADABLE'
  | 'WALK_FAILED'
  | 'FILE_ACCESS_FAILED';

export class TwinError extends Error {
  readonly code: TwinErrorCode;
  readonly path: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: TwinErrorCode,
    message: string,
    options: { path?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TwinError';
    this.code = code;
    this.path = options.path;
    this.details = options.details;
  }

  toJSON(): Record<string, unknown> {
    return {
      error: this.code,
      message: this.message,
      ...(this.path === undefined ? {} : { path: this.path }),
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

export function isTwinError(value: unknown, code?: TwinErrorCode): value is TwinError {
  return value instanceof TwinError && (code === undefined || value.code === code);
}

/**
 * A value a caller passed, as a refusal names it ("got …"): text quoted (and cut at 60
 * characters), numbers as written (NaN and Infinity too, which JSON would hide as null), objects
 * by their class, so a Date passed as a clock says "an object (Date)".
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'object' && value !== null)
    return Array.isArray(value)
      ? 'an array'
      : `an object (${(value.constructor as { name?: string } | undefined)?.name ?? 'no prototype'})`;
  return String(value);
}

/**
 * Refuses a callback that is no function, naming the call (`world.run(fn)`): passed on as given,
 * it failed later as a TypeError from deep inside (AsyncLocalStorage's "apply was called on …").
 */
export function checkCallback(call: string, fn: unknown): void {
  if (typeof fn !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: fn must be a function, got ${describeValue(fn)}`,
      {
        path: 'fn',
      },
    );
}

/**
 * Refuses an options object that is none, or a key of it `call` does not take, suggesting the key
 * meant: a misspelt option was dropped and its default used without a word (`{twn: 'jobs'}` ran
 * on the default twin). Undefined stands for no options unless they are `required`.
 */
export function checkOptionKeys(
  call: string,
  options: unknown,
  keys: readonly string[],
  path = 'options',
  required = false,
): void {
  if (options === undefined && !required) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: ${path} must be an object {${keys.join(', ')}}, got ${describeValue(options)}`,
      { path },
    );
  for (const key of Object.keys(options))
    if (!keys.includes(key))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${call}: unknown option "${key}"${didYouMean(key, keys)}; it takes ${keys.join(', ')}`,
        { path: `${path}.${key}` },
      );
}

/**
 * Refuses what is no world where a call takes one (checked by its twin method, as every world and
 * a walk's have it): passed on, it failed as a TypeError from deep inside ("world.twinNames is
 * not a function"), or, as a WeakMap key, answered nothing.
 */
export function checkWorld(call: string, world: unknown): void {
  if (typeof (world as { twin?: unknown } | null | undefined)?.twin !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${call}: world must be a world from openWorld(...) (or a walk's world), got ${describeValue(world)}`,
      { path: 'world' },
    );
}
