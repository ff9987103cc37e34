// The connection pool and what every pooled session is set up with before its first use: the app role
// (so row-level security applies whoever logged in), standard strings (so literals are plain), the lock
// timeout, index walks only (see sessionSetup), the kernel-wide tenant setting that a tenant-scoped
// section overrides for its transaction, and the statements sections execute (prepare-writes.ts,
// reads.ts, head-guard.ts).
import pg from 'pg';
import { checkOptionKeys, TwinError } from '../../errors.js';
import { ALL_TENANTS } from './tenant.js';
import { PREPARE_WRITES } from './prepare-writes.js';
import { PREPARE_ABSENT, PREPARE_GUARD } from './head-guard.js';
import { PREPARE_LOCK } from './lock-key.js';
import { PREPARE_READS } from './reads.js';
import { connectError, storeError, type Endpoint } from './store-error.js';
import { lit } from './sql-text.js';

export interface ConnectionOptions {
  /** Connections per backend (default 10). Sections on different twins run side by side. */
  readonly poolSize?: number;
  /** How long a section waits for another host's section on the same twin (default 30 s). */
  readonly lockTimeoutMs?: number;
  /** How long opening a connection may take (default 10 s). */
  readonly connectTimeoutMs?: number;
  /**
   * A section still open after this long is reported as a process warning
   * (`TWINWORLD_SLOW_SECTION`, default 10 s): what it waits for, the server or this process.
   */
  readonly slowSectionMs?: number;
}

export type Client = pg.PoolClient;

/** bigint columns (seq, head, version) as numbers: sequences stay far below 2^53. */
const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
    if (oid === INT8 && format !== 'binary') return (value: string) => Number(value);
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

export function parseEndpoint(url: string): Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw storeError(
      'INVALID_CONFIG',
      'the store URL is not a URL; give one like postgres://user:password@host:5432/database',
      { path: 'store' },
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw storeError(
      'INVALID_CONFIG',
      `the store URL must start with postgres:// or postgresql://, not ${parsed.protocol}//`,
      { path: 'store' },
    );
  }
  // The driver lets ?host=, ?port= and ?user= stand for the URL's own parts (postgres:///db?host=…
  // is how a URL names a socket folder), so an error names where it really connected.
  const query = (name: string): string | undefined => parsed.searchParams.get(name) || undefined;
  const user =
    query('user') ?? (decodeURIComponent(parsed.username) || process.env.PGUSER || 'postgres');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
  const port = Number(query('port') ?? (parsed.port || 5432));
  const host = query('host') ?? (parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost');
  return { host, port, database, user };
}

/**
 * What a pooled session runs before its first use. Every statement a section sends finds its rows by
 * a key prefix, so the plans are index walks, and the planner is kept to them. A queue churns the
 * due index: keys come and go, and ANALYZE may find a few live rows in a table and an index of
 * hundreds of pages of dead ones. The planner then prices one index probe above a scan of the whole
 * table, since it spreads the index's pages over the few rows it counted. In the pg-queues bench,
 * after one round, each key removal and each due pick became a scan: 10–35 ms each, against 0.3 ms,
 * and four times the server CPU per delivery, until autovacuum ran again.
 *
 * The prepared statements keep one generic plan each (they are written so that any plan probes the
 * keys; test/storage/postgres-commit-plan.test.ts). Left to choose, the server priced the entries'
 * insert cheaper planned for each commit's own values when a commit carries one row, as a single
 * write's does, and planned it again at every EXECUTE: 63–75 µs a commit, more than running it.
 */
function sessionSetup(lockTimeoutMs = 30_000): string {
  // Each statement is prepared by a PREPARE of its own: the server keeps the whole text a PREPARE
  // came in as the statement's source and copies it at every EXECUTE (one of sixteen PREPAREs in a
  // 5 kB text cost 6 µs more per EXECUTE than one prepared alone; docs/throughput.md). Run by a DO
  // block's EXECUTEs, each keeps its own text, and the whole setup is one round trip instead of
  // one per statement: a short-lived process (a CLI command) on a distant server opens sessions
  // at the network's round trip, not twenty of them.
  const prepares = [
    PREPARE_LOCK,
    ...PREPARE_WRITES,
    ...PREPARE_READS,
    PREPARE_GUARD,
    PREPARE_ABSENT,
  ];
  return (
    `SET ROLE twinworld_app; SET standard_conforming_strings = on; SET lock_timeout = ${Math.max(0, Math.round(lockTimeoutMs))}; ` +
    'SET enable_seqscan = off; SET enable_bitmapscan = off; SET plan_cache_mode = force_generic_plan; ' +
    `SELECT set_config('twinworld.tenant', ${lit(ALL_TENANTS)}, false); ` +
    `DO $setup$ BEGIN ${prepares.map((p) => `EXECUTE ${lit(p)};`).join(' ')} END $setup$`
  );
}

/**
 * Runs the session setup on a fresh session, in one query: it runs as one implicit transaction, so
 * a setup that fails leaves no setting or statement half made.
 */
export async function setUpSession(
  session: { query(text: string): Promise<unknown> },
  lockTimeoutMs?: number,
): Promise<void> {
  await session.query(sessionSetup(lockTimeoutMs));
}

export class Connection {
  readonly pool: pg.Pool;
  readonly slowSectionMs: number;
  private readonly ready = new WeakSet<pg.PoolClient>();
  private readonly lockTimeoutMs: number | undefined;

  constructor(
    readonly url: string,
    readonly endpoint: Endpoint,
    options: ConnectionOptions,
  ) {
    checkOptions(options);
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      types: types as pg.CustomTypesConfig,
    });
    // An idle client whose server went away: dropped from the pool; the next checkout opens another.
    this.pool.on('error', () => {});
    this.lockTimeoutMs = options.lockTimeoutMs;
    this.slowSectionMs = Math.max(1, options.slowSectionMs ?? 10_000);
  }

  /** A pooled session, set up on its first checkout. Release it with `release`. */
  async acquire(): Promise<pg.PoolClient> {
    const client = await this.checkOut();
    if (!this.ready.has(client)) {
      try {
        await setUpSession(client, this.lockTimeoutMs);
      } catch (error) {
        client.release(true);
        throw connectError(error, this.endpoint);
      }
      this.ready.add(client);
    }
    return client;
  }

  /**
   * A pooled session as the server opened it, not set up (the migration runs on it before the
   * schema the setup prepares against exists). Released, the next `acquire` sets it up, so the
   * migration costs no connection of its own.
   */
  async checkOut(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw connectError(error, this.endpoint);
    }
    // A session that dies while checked out emits an error the pool does not catch (it only
    // listens to idle ones): unheard, it would end the process. The query in flight rejects with
    // the same error, and that is where it is reported.
    if (client.listenerCount('error') === 0) client.on('error', () => {});
    return client;
  }

  /** `broken`: the session's state is unknown (a failed rollback): close it instead of reusing it. */
  release(client: pg.PoolClient, broken = false): void {
    client.release(broken);
  }

  /** One statement on a pooled session, kernel-wide. */
  async query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<R[]> {
    const client = await this.acquire();
    let broken = false;
    try {
      return (await client.query<R>(config)).rows;
    } catch (error) {
      broken = !isStatementError(error);
      throw error;
    } finally {
      this.release(client, broken);
    }
  }

  /** A connection of its own, outside the pool (the wake-ups' LISTEN). */
  async direct(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      types: types as pg.CustomTypesConfig,
      connectionTimeoutMillis: 10_000,
    });
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw connectError(error, this.endpoint);
    }
    return client;
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}

/** A statement the server refused (the session is fine) rather than a broken connection. */
export function isStatementError(error: unknown): boolean {
  return (
    error instanceof pg.DatabaseError &&
    !error.code?.startsWith('08') &&
    !error.code?.startsWith('57P')
  );
}

/** The largest delay a timer or PostgreSQL's lock_timeout takes (2^31 - 1 ms, about 24.8 days). */
const MAX_MS = 2 ** 31 - 1;

/** Refuses an option that would fail every session's setup or every timer later, far from its cause. */
function checkOptions(options: ConnectionOptions): void {
  // {poolsize: 2} was dropped: the pool kept its ten connections.
  checkOptionKeys('new PostgresBackend(url, world, options)', options, [
    'poolSize',
    'lockTimeoutMs',
    'connectTimeoutMs',
    'slowSectionMs',
  ]);
  const rules: [keyof ConnectionOptions, number, string][] = [
    ['poolSize', 1, 'a whole number of connections, 1 or more'],
    ['lockTimeoutMs', 0, 'a whole number of milliseconds, 0 (no timeout) or more'],
    ['connectTimeoutMs', 0, 'a whole number of milliseconds, 0 (no timeout) or more'],
    ['slowSectionMs', 1, 'a whole number of milliseconds, 1 or more'],
  ];
  for (const [path, least, what] of rules) {
    const value = options[path];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < least || value > MAX_MS)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `PostgreSQL backend option ${path} must be ${what}, at most ${MAX_MS}; got ${JSON.stringify(value) ?? String(value)}`,
        { path },
      );
  }
}
