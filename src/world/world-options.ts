// openWorld's options, checked before anything opens: a clock, seed, backend or store of the wrong
// shape was otherwise taken as given and failed later as a bare TypeError ("this.clock.now is not a
// function") far from the call, or never (a misspelt key, a seed of NaN, synchronous: 'OFF').
import { didYouMean } from '../did-you-mean.js';
import { describeValue, TwinError } from '../errors.js';

const KEYS = [
  'root',
  'create',
  'clock',
  'seed',
  'backend',
  'sqlite',
  'secrets',
  'resolveSecret',
  'onError',
] as const;

const SQLITE_KEYS = ['synchronous', 'busyTimeoutMs', 'walAutocheckpoint'] as const;

const SECRET_STORE_METHODS = ['set', 'rotate', 'resolve', 'delete'] as const;

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_ARGUMENT', `openWorld: ${message}`, { path });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return isObject(value) && methods.every((m) => typeof value[m] === 'function');
}

/** Refuses what openWorld could not use; undefined stands for an option not given. */
export function checkWorldOptions(given: object): void {
  const options = given as Record<string, unknown>;
  for (const key of Object.keys(options))
    if (!(KEYS as readonly string[]).includes(key))
      refuse(
        key,
        `unknown option "${key}"${didYouMean(key, KEYS)}; openWorld takes ${KEYS.join(', ')}`,
      );
  const { create, clock, seed, backend, sqlite, secrets, onError } = options;
  if (create !== undefined && typeof create !== 'boolean')
    refuse('create', `create must be true or false, got ${describeValue(create)}`);
  if (clock !== undefined && !hasMethods(clock, ['now', 'schedule']))
    refuse(
      'clock',
      `clock must be a Clock (new VirtualClock('2026-01-01T00:00:00Z') or new RealClock()), got ${describeValue(clock)}`,
    );
  if (
    seed !== undefined &&
    !(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed)))
  )
    refuse('seed', `seed must be a string or a finite number, got ${describeValue(seed)}`);
  if (backend !== undefined && !hasMethods(backend, ['openTwin', 'listTwins', 'close']))
    refuse(
      'backend',
      `backend must be a StorageBackend (openTwin, listTwins, close), got ${describeValue(backend)}`,
    );
  if (secrets !== undefined && !hasMethods(secrets, SECRET_STORE_METHODS))
    refuse(
      'secrets',
      `secrets must be a SecretStore (${SECRET_STORE_METHODS.join(', ')}), got ${describeValue(secrets)}`,
    );
  if (onError !== undefined && typeof onError !== 'function')
    refuse(
      'onError',
      `onError must be a function (error, where) => void, got ${describeValue(onError)}`,
    );
  if (sqlite !== undefined) {
    checkSqlite(sqlite);
    checkSqliteApplies(options.root, backend, sqlite);
  }
}

/**
 * Only a SQLite root openWorld opens itself reads `sqlite`. Elsewhere the options were dropped
 * without a word, and a world on memory or a backend of the caller's ran as if synchronous: 'FULL'
 * held when it did not. An object with nothing set asks for nothing, so it passes.
 */
function checkSqliteApplies(
  root: unknown,
  backend: unknown,
  sqlite: Record<string, unknown>,
): void {
  const given = Object.keys(sqlite).filter((k) => sqlite[k] !== undefined);
  if (given.length === 0) return;
  const options = given.map((k) => `sqlite.${k}`).join(', ');
  if (backend !== undefined)
    refuse(
      'sqlite',
      `${options} apply only to a SQLite root openWorld opens itself (a folder, no backend); a backend you give keeps its own settings (a SqliteBackend from twinworld/sqlite takes them as new SqliteBackend(root, {${given.join(', ')}})), so drop them here`,
    );
  if (root === ':memory:')
    refuse(
      'sqlite',
      `${options} apply only to a SQLite root (a folder), and root ':memory:' keeps the world in memory; give a folder as root, or drop them`,
    );
}

function checkSqlite(sqlite: unknown): asserts sqlite is Record<string, unknown> {
  if (!isObject(sqlite))
    refuse(
      'sqlite',
      `sqlite must be an object such as {synchronous: 'FULL'}, got ${describeValue(sqlite)}`,
    );
  for (const key of Object.keys(sqlite))
    if (!(SQLITE_KEYS as readonly string[]).includes(key))
      refuse(
        `sqlite.${key}`,
        `unknown option "sqlite.${key}"${didYouMean(key, SQLITE_KEYS)}; sqlite takes ${SQLITE_KEYS.join(', ')}`,
      );
  const { synchronous, busyTimeoutMs, walAutocheckpoint } = sqlite;
  // Any other value would reach SQLite's pragma as given: 'OFF' would quietly give up durability.
  // SQLite reads the pragma in any case, so 'full' keeps working as it always did.
  const level = typeof synchronous === 'string' ? synchronous.toUpperCase() : synchronous;
  if (synchronous !== undefined && level !== 'NORMAL' && level !== 'FULL')
    refuse(
      'sqlite.synchronous',
      `sqlite.synchronous must be 'NORMAL' or 'FULL', got ${describeValue(synchronous)}`,
    );
  if (
    busyTimeoutMs !== undefined &&
    !(
      typeof busyTimeoutMs === 'number' &&
      Number.isSafeInteger(busyTimeoutMs) &&
      busyTimeoutMs >= 0
    )
  )
    refuse(
      'sqlite.busyTimeoutMs',
      `sqlite.busyTimeoutMs must be a whole number of milliseconds, 0 or more, got ${describeValue(busyTimeoutMs)}`,
    );
  // SqliteBackend refuses it too, but only after the root folder was made: an empty root left
  // behind by a refused call.
  if (
    walAutocheckpoint !== undefined &&
    !(
      typeof walAutocheckpoint === 'number' &&
      Number.isSafeInteger(walAutocheckpoint) &&
      walAutocheckpoint >= 0
    )
  )
    refuse(
      'sqlite.walAutocheckpoint',
      `sqlite.walAutocheckpoint must be a whole number of pages, 0 or more, got ${describeValue(walAutocheckpoint)}`,
    );
}
