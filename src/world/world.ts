// The world: a root folder (or `:memory:`), the twins opened in it, the clock every timestamp
// comes from, and the id source every id comes from.
import { MemoryIdempotencyStore, type IdempotencyStore } from '../storage/idempotency-store.js';
import { SqliteIdempotencyStore } from '../storage/sqlite/sqlite-idempotency-store.js';
import { resolve } from 'node:path';
import { checkCallback, TwinError } from '../errors.js';
import { MemoryBackend } from '../storage/memory/memory-backend.js';
import { SqliteBackend, type SqliteOptions } from '../storage/sqlite/sqlite-backend.js';
import type { StorageBackend } from '../storage/port.js';
import { RealClock, VirtualClock, type Clock } from './clock.js';
import { RandomIds, SeededIds, type IdSource } from './ids.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Twin, type TwinHost } from './twin.js';
import { prepareRoot, storageRefusal } from './root.js';
import { HeadMarks } from './head-marks.js';
import { checkWorldOptions } from './world-options.js';
import {
  FileSecretStore,
  MemorySecretStore,
  ResolvingSecretStore,
  type SecretResolver,
  type SecretStore,
} from './secrets.js';

export interface WorldOptions {
  /**
   * A folder (created if missing), or ':memory:' for a world that lives only in this process. With
   * `backend`, a URL may name where the backend keeps the world (shown in messages, so never one
   * that carries a password).
   */
  readonly root: string;
  /**
   * false: the world is opened to read, so a missing root is refused (ROOT_NOT_FOUND) instead of
   * created, and its writability is not checked up front. Default true.
   */
  readonly create?: boolean;
  readonly clock?: Clock;
  /** Seeds the id source: the same seed and clock give the same ids. */
  readonly seed?: string | number;
  /**
   * Plug another backend in (the core never imports a driver beyond the two built in). A backend
   * that keeps secrets itself (`secretStore()`) keeps the world's, unless `secrets` is given.
   */
  readonly backend?: StorageBackend;
  /**
   * How the SQLite root openWorld opens keeps its files. Only for a folder root without `backend`:
   * with ':memory:' or a backend of your own it would change nothing, and is refused.
   */
  readonly sqlite?: SqliteOptions;
  readonly secrets?: SecretStore;
  /** A vault of the caller's own, asked first for every secret the world resolves (see SecretResolver). */
  readonly resolveSecret?: SecretResolver;
  /** Where errors nobody awaits (after-commit hooks, background dispatch) are reported. */
  readonly onError?: (error: unknown, where: string) => void;
}

const STORE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

const TWIN_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export function validateTwinName(name: unknown): string {
  if (typeof name !== 'string' || !TWIN_NAME.test(name) || name.includes('..')) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `twin name ${JSON.stringify(name)} is not valid; use 1–64 lowercase letters, digits, '_', '.', '-', starting with a letter or digit (e.g. "stripe")`,
      { path: 'twin' },
    );
  }
  return name;
}

export class World implements TwinHost {
  readonly root: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly backend: StorageBackend;
  /** Endpoint secrets, kept outside every log. */
  readonly secrets: SecretStore;
  /** How far each twin's log reached, kept in the root apart from the twins' databases. */
  readonly marks: HeadMarks | undefined;
  private readonly twins = new Map<string, Twin>();
  private readonly onError: (error: unknown, where: string) => void;
  private readonly closers: (() => void | Promise<void>)[] = [];
  private readonly ownsSecrets: boolean;
  private idempotencyStore: IdempotencyStore | undefined;
  private closed = false;

  constructor(options: WorldOptions) {
    if (
      options === null ||
      typeof options !== 'object' ||
      typeof options.root !== 'string' ||
      options.root === ''
    ) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        "openWorld needs {root}: a folder path, or ':memory:'",
        { path: 'root' },
      );
    }
    checkWorldOptions(options);
    // A URL names where a plugged-in backend keeps the world (for messages); only folders resolve.
    this.root =
      options.root === ':memory:' || (options.backend !== undefined && STORE_URL.test(options.root))
        ? options.root
        : resolve(options.root);
    this.clock = options.clock ?? new RealClock();
    this.ids =
      options.seed === undefined
        ? new RandomIds(this.clock)
        : new SeededIds(this.clock, options.seed);
    if (options.backend !== undefined) this.backend = options.backend;
    else if (this.root === ':memory:') this.backend = new MemoryBackend();
    else {
      prepareRoot(this.root, options.create ?? true);
      try {
        this.backend = new SqliteBackend(this.root, options.sqlite);
      } catch (error) {
        throw storageRefusal(error, this.root) ?? error;
      }
    }
    // A memory backend keeps nothing between worlds: there is nothing on disk for a mark to vouch for.
    // A root that is a store's URL (the CLI names a PostgreSQL world by it) is no folder to hold one.
    this.marks =
      this.root === ':memory:' ||
      this.backend.kind === 'memory' ||
      /^[a-z][a-z0-9+.-]*:\/\//i.test(this.root)
        ? undefined
        : new HeadMarks(this.root, this.backend.kind);
    this.ownsSecrets = options.secrets === undefined;
    const store =
      options.secrets ??
      this.backend.secretStore?.() ??
      (this.root === ':memory:' ? new MemorySecretStore() : new FileSecretStore(this.root));
    this.secrets =
      options.resolveSecret === undefined
        ? store
        : new ResolvingSecretStore(store, options.resolveSecret);
    this.onError =
      options.onError ??
      // A typed refusal says what to do; only an unexpected error needs its stack.
      ((error, where) =>
        error instanceof TwinError
          ? console.error(`twinworld: ${where}: error ${error.code}: ${error.message}`)
          : console.error(`twinworld: ${where}:`, error));
  }

  /** Opens a twin on first use; later calls return the same one. */
  twin(name: string): Twin {
    if (this.closed)
      throw new TwinError(
        'WORLD_CLOSED',
        `world at ${this.root} is closed; open it again to use twin "${name}"`,
      );
    let twin = this.twins.get(name);
    if (twin === undefined) {
      validateTwinName(name);
      twin = new Twin(name, this, () =>
        this.backend
          .openTwin(name)
          .catch((error: unknown) => Promise.reject(storageRefusal(error, this.root) ?? error)),
      );
      this.twins.set(name, twin);
    }
    return twin;
  }

  /** Twins that exist in this world's storage, opened or not. */
  async twinNames(): Promise<string[]> {
    return [...new Set([...(await this.backend.listTwins()), ...this.twins.keys()])].sort();
  }

  /** Runs `fn` with this world as the current one, for it and all work it schedules. */
  run<T>(fn: () => T): T {
    checkCallback('world.run(fn)', fn);
    return runInWorld(this, fn);
  }

  reportError(error: unknown, where: string): void {
    // The SQLite driver's own errors (a full disk, a lock held too long) read as the typed refusal
    // the CLI prints for them; other codes (a routine's, a socket's) are not the root's to explain.
    const code = (error as { code?: unknown } | null)?.code;
    const driver = typeof code === 'string' && code.startsWith('SQLITE_');
    this.onError((driver ? storageRefusal(error, this.root) : undefined) ?? error, where);
  }

  /**
   * Idempotency keys of vendor surfaces, kept beside the logs (never in them): the backend's own
   * table when it keeps one (PostgreSQL), `<root>/idempotency.db` for a SQLite root, memory for
   * ':memory:'. Opened on first use.
   */
  get idempotency(): IdempotencyStore {
    this.idempotencyStore ??=
      this.backend.idempotencyStore?.() ??
      (this.root === ':memory:' || this.backend.kind === 'memory'
        ? new MemoryIdempotencyStore()
        : new SqliteIdempotencyStore(this.root));
    return this.idempotencyStore;
  }

  /** Registers cleanup (a dispatcher draining, a server closing) to run before storage closes. */
  onClose(fn: () => void | Promise<void>): void {
    this.closers.push(fn);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.closers.reverse()) await fn();
    for (const twin of this.twins.values()) await twin.close();
    this.twins.clear();
    await this.backend.close();
    if (this.ownsSecrets) await this.secrets.close?.();
    await this.idempotencyStore?.close?.();
  }
}

export function openWorld(options: WorldOptions): World {
  return new World(options);
}

// Which world a call runs in, carried with AsyncLocalStorage so work scheduled for later (a
// dispatch after a write's answer, a timer) keeps its world even if another became active.
const scope = new AsyncLocalStorage<World>();

export function runInWorld<T>(world: World, fn: () => T): T {
  return scope.run(world, fn);
}

export function currentWorld(): World {
  const world = scope.getStore();
  if (world === undefined)
    throw new TwinError(
      'NO_WORLD',
      'no world is active here; call world.run(() => …) or pass the world explicitly',
    );
  return world;
}

export function maybeCurrentWorld(): World | undefined {
  return scope.getStore();
}
