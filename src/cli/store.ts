// Where a command's world is kept, from `--root DIR`, `--store URL` or TWINWORLD_STORE: a
// postgres:// (or postgresql://) URL selects PostgreSQL, `sqlite:DIR` or a folder path selects
// SQLite, and nothing at all is the SQLite root ./.twinworld. A PostgreSQL database holds many
// worlds; `?world=NAME` in the URL picks one (default "default"). The URL may carry a password, so
// messages only ever show the store's label, which leaves it out.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StorageBackend } from '../storage/port.js';
import type { Clock } from '../world/clock.js';
import { prepareRoot, type RootNaming } from '../world/root.js';
import { openWorld, type World } from '../world/world.js';
import { checkStoreParams } from './store-url-params.js';
import { UsageError } from './usage-error.js';

export const DEFAULT_ROOT = './.twinworld';
const DEFAULT_PG_WORLD = 'default';
export const STORE_ENV = 'TWINWORLD_STORE';

/** Where the choice came from, for messages and for walks (which keep only a world asked for). */
export type StoreSource = '--root' | '--store' | typeof STORE_ENV | 'default';

export type StoreTarget =
  | {
      readonly kind: 'sqlite';
      /** The root folder as given (relative to the working directory). */
      readonly root: string;
      readonly label: string;
      readonly from: StoreSource;
      /** The text that named it (`sqlite:/w` for `--store sqlite:/w`), for refusals to quote. */
      readonly given: string;
    }
  | {
      readonly kind: 'postgres';
      /** The connection URL without `world`: may carry a password, never printed. */
      readonly url: string;
      readonly world: string;
      /** postgres://user@host:port/database?world=NAME, without the password. */
      readonly label: string;
      readonly from: StoreSource;
    };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const WORLD_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

function sqlite(root: string, from: StoreSource, given: string = root): StoreTarget {
  return { kind: 'sqlite', root, label: root, from, given };
}

// A password is where a character with a meaning in URLs most often ends up unescaped.
const ENCODE_HINT =
  'in the user and password, write # as %23, / as %2F, ? as %3F, @ as %40, : as %3A and % as %25';

function postgres(spec: string, from: StoreSource): StoreTarget {
  // "postgres://app:12#34@db/x" parses as the host "app", port 12: the # cuts the rest away.
  if (spec.includes('#'))
    throw new UsageError(
      `${from} holds a "#", which ends a URL, so what follows it would not be read; ${ENCODE_HINT}`,
    );
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new UsageError(
      `${from} is not a valid URL; give one like postgres://user:password@host:5432/database (${ENCODE_HINT})`,
    );
  }
  checkStoreParams(url.searchParams, from);
  const world = url.searchParams.get('world') ?? DEFAULT_PG_WORLD;
  if (!WORLD_NAME.test(world)) {
    throw new UsageError(
      `${from}: ?world=${world} is not a world name; use 1-128 letters, digits and _ . : - (not starting with a separator)`,
    );
  }
  url.searchParams.delete('world');
  const user = url.username === '' ? '' : `${url.username}@`;
  const label = `${url.protocol}//${user}${url.host}${url.pathname}?world=${world}`;
  return { kind: 'postgres', url: url.toString(), world, label, from };
}

/** Reads one store spec: a postgres:// URL, sqlite:DIR, or a folder path. */
export function parseStore(spec: string, from: StoreSource = '--store'): StoreTarget {
  if (spec === '') throw new UsageError(`${from} must not be empty`);
  const scheme = SCHEME.exec(spec)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return postgres(spec, from);
  if (scheme === undefined && /^sqlite:/i.test(spec)) {
    const root = spec.slice('sqlite:'.length);
    if (root === '') throw new UsageError(`${from}: sqlite: needs a folder, e.g. sqlite:./world`);
    return sqlite(root, from, spec);
  }
  if (scheme === 'sqlite') {
    // sqlite:///abs/path or sqlite://./rel: what follows the slashes is the folder.
    const root = spec.slice('sqlite://'.length);
    if (root === '') throw new UsageError(`${from}: sqlite:// needs a folder, e.g. sqlite:./world`);
    return sqlite(root, from, spec);
  }
  if (scheme !== undefined) {
    throw new UsageError(
      `${from} must be a postgres://… URL, sqlite:DIR or a folder path, not a ${scheme}:// URL`,
    );
  }
  return sqlite(spec, from, spec);
}

/**
 * The store a command runs on. `--root` and `--store` together are a usage error naming both; either
 * one wins over TWINWORLD_STORE; with none of them, the default root.
 */
export function chooseStore(
  values: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): StoreTarget {
  const root = typeof values.root === 'string' ? values.root : undefined;
  const store = typeof values.store === 'string' ? values.store : undefined;
  if (root === '') throw new UsageError('--root must not be empty');
  if (root !== undefined && store !== undefined) {
    const shown = store === '' ? '""' : parseStore(store).label;
    throw new UsageError(
      `give either --root DIR or --store URL, not both (got --root ${root} and --store ${shown})`,
    );
  }
  if (store !== undefined) return parseStore(store, '--store');
  if (root !== undefined) return sqlite(root, '--root');
  const fromEnv = env[STORE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return parseStore(fromEnv, STORE_ENV);
  return sqlite(DEFAULT_ROOT, 'default');
}

/**
 * What `ParsedArgs.root` holds for a store: the SQLite folder, or the PostgreSQL spec itself, so
 * that `withWorld(args.root, …)` opens the same store (never print it: it may carry a password).
 */
export function storeSpec(target: StoreTarget): string {
  if (target.kind === 'sqlite')
    return /^sqlite:/i.test(target.root) || SCHEME.test(target.root)
      ? `sqlite:${target.root}`
      : target.root;
  const url = new URL(target.url);
  url.searchParams.set('world', target.world);
  return url.toString();
}

/** Whether a world may be there without opening it: a missing SQLite root holds none. */
export function storeMayHoldWorld(target: StoreTarget): boolean {
  return target.kind === 'postgres' || existsSync(target.root);
}

/**
 * A backend for a PostgreSQL store. The driver is loaded only here: a command on a SQLite root does
 * not pay for compiling it at start-up.
 */
export async function pgBackend(
  target: Extract<StoreTarget, { kind: 'postgres' }>,
): Promise<StorageBackend> {
  const { PostgresBackend } = await import('../storage/postgres/index.js');
  return new PostgresBackend(target.url, target.world);
}

/** How a refusal of a SQLite root tells the user to change it: the way they named it. */
function rootNaming(target: Extract<StoreTarget, { kind: 'sqlite' }>): RootNaming {
  if (target.from === '--store')
    return {
      option: '--store',
      given: `--store ${target.given}`,
      onDisk: 'pass a --store on a disk, e.g. --store sqlite:./.twinworld',
    };
  if (target.from === STORE_ENV)
    return {
      option: STORE_ENV,
      given: `${STORE_ENV}=${target.given}`,
      onDisk: `set ${STORE_ENV} to a folder on a disk, e.g. ${STORE_ENV}=sqlite:./.twinworld, or pass --root`,
    };
  return { option: '--root', onDisk: 'pass a --root on a disk, e.g. ./.twinworld' };
}

/**
 * Opens the world a store holds. `create: false` (commands that only read) refuses a missing SQLite
 * root; on PostgreSQL the backend connects (and migrates) on first use, so connection refusals come
 * from the first read or write.
 */
export async function openStoreWorld(
  target: StoreTarget,
  options: { clock: Clock; create?: boolean },
): Promise<World> {
  if (target.kind === 'sqlite') {
    // openWorld checks the root again, but could only say "pass a --root": the user may have
    // named it with --store or TWINWORLD_STORE, and that is what they must change.
    if (target.root !== ':memory:')
      prepareRoot(resolve(target.root), options.create ?? true, rootNaming(target));
    return openWorld({ root: target.root, clock: options.clock, create: options.create ?? true });
  }
  return openWorld({ root: target.label, clock: options.clock, backend: await pgBackend(target) });
}
