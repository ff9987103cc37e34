// The secret store of a world kept on PostgreSQL: endpoint secrets in `twinworld.secrets`, beside the
// world's twins, so every host serving the world signs and verifies with the same secrets. Each change
// is one transaction holding an advisory lock on (world, ref), so concurrent sets and rotations from
// several hosts are serialized and none is lost. Secrets are shared by the world, not by a tenant: the
// tables carry no tenant and no row-level security (refs are endpoint ids, not tenant data); what
// guards them is that only twinworld_app and twinworld_owner may read them.
// A resolve with a stamp (the dispatcher's endpoint version) is answered from the rows last read
// under the same stamp: a delivery then costs no round trip for its secret. Every rotation writes an
// entry to its endpoint, which moves the stamp; this store's own changes drop the cached rows at once.
import type pg from 'pg';
import {
  checkRef,
  checkResolve,
  checkRotation,
  checkSecret,
  retired,
  type SecretStore,
} from '../secret-store.js';
import { isStatementError, type Connection } from './connection.js';
import { lockKey } from './lock-key.js';
import { checkText } from './sql-text.js';
import { connectError, storeError } from './store-error.js';

/** Refs whose rows are kept at most; past it the cache starts over. */
const CACHE_LIMIT = 10_000;

interface CachedRows {
  readonly stamp: string;
  /** Newest first, with the time each stops signing (null: current). */
  readonly rows: readonly { readonly secret: string; readonly expiresAt: number | null }[];
}

export class PostgresSecretStore implements SecretStore {
  private readonly cache = new Map<string, CachedRows>();
  /** Moves on every change made here: a read that began before a change must not be kept. */
  private generation = 0;
  /** Reads in flight, by ref and stamp. */
  private readonly loading = new Map<string, Promise<CachedRows['rows']>>();

  constructor(
    private readonly conn: Connection,
    private readonly world: string,
    /** Resolves once the schema is migrated (the backend's `ready`). */
    private readonly ready: () => Promise<unknown>,
  ) {}

  async set(ref: string, secret: string): Promise<void> {
    this.check(ref, secret);
    await this.change(ref, async (c) => {
      await c.query('DELETE FROM twinworld.secrets WHERE world = $1 AND ref = $2', [
        this.world,
        ref,
      ]);
      await c.query(
        'INSERT INTO twinworld.secrets (world, ref, n, secret, expires_at) VALUES ($1, $2, 1, $3, NULL)',
        [this.world, ref, secret],
      );
    });
  }

  async rotate(ref: string, secret: string, now: number, graceMs: number): Promise<void> {
    this.check(ref, secret);
    checkRotation(now, graceMs);
    await this.change(ref, async (c) => {
      const key = [this.world, ref];
      await c.query(
        'DELETE FROM twinworld.secrets WHERE world = $1 AND ref = $2 AND expires_at IS NOT NULL AND expires_at <= $3',
        [...key, now],
      );
      // The grace period only ever shortens an expiry, never lengthens one.
      await c.query(
        'UPDATE twinworld.secrets SET expires_at = LEAST(COALESCE(expires_at, $3), $3) WHERE world = $1 AND ref = $2',
        [...key, now + graceMs],
      );
      await c.query(
        `INSERT INTO twinworld.secrets (world, ref, n, secret, expires_at)
         SELECT $1, $2, COALESCE(max(n), 0) + 1, $3, NULL FROM twinworld.secrets WHERE world = $1 AND ref = $2`,
        [...key, secret],
      );
    });
  }

  resolve(ref: string, now: number, stamp?: string): string[] | Promise<string[]> {
    checkResolve(ref, now);
    if (ref.includes('\u0000')) return [];
    if (stamp === undefined) return this.load(ref, undefined).then((rows) => activeAt(rows, now));
    const cached = this.cache.get(ref);
    if (cached !== undefined && cached.stamp === stamp) return activeAt(cached.rows, now);
    // Deliveries that start together share one read.
    const key = `${ref}\u0000${stamp}`;
    let loading = this.loading.get(key);
    if (loading === undefined) {
      loading = this.load(ref, stamp);
      this.loading.set(key, loading);
      void loading.then(
        () => this.loading.delete(key),
        () => this.loading.delete(key),
      );
    }
    return loading.then((rows) => activeAt(rows, now));
  }

  private async load(ref: string, stamp: string | undefined): Promise<CachedRows['rows']> {
    await this.ready();
    const generation = this.generation;
    let rows: { secret: string; expires_at: number | null }[];
    try {
      rows = await this.conn.query<{ secret: string; expires_at: number | null }>({
        name: 'tw_secret_rows',
        text: 'SELECT secret, expires_at FROM twinworld.secrets WHERE world = $1 AND ref = $2 ORDER BY n DESC',
        values: [this.world, ref],
      });
    } catch (error) {
      throw this.failure(error);
    }
    const timed = rows.map((r) => ({ secret: r.secret, expiresAt: r.expires_at }));
    if (stamp !== undefined && generation === this.generation) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(ref, { stamp, rows: timed });
    }
    return timed;
  }

  async delete(ref: string): Promise<void> {
    checkRef(ref);
    checkText(ref, 'ref');
    await this.change(ref, async (c) => {
      await c.query('DELETE FROM twinworld.secrets WHERE world = $1 AND ref = $2', [
        this.world,
        ref,
      ]);
      await c.query(
        'INSERT INTO twinworld.retired_secrets (world, ref) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [this.world, ref],
      );
    });
  }

  /** The pool belongs to the backend, which closes it. */
  close(): void {}

  private check(ref: string, secret: string): void {
    checkRef(ref);
    checkSecret(secret);
    checkText(ref, 'ref');
    checkText(secret, 'secret');
  }

  /** One transaction under the (world, ref) lock; refused for a retired ref before `fn` runs. */
  private async change(ref: string, fn: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    this.forget(ref);
    try {
      await this.changeLocked(ref, fn);
    } finally {
      this.forget(ref);
    }
  }

  private forget(ref: string): void {
    this.generation++;
    this.cache.delete(ref);
    for (const key of this.loading.keys())
      if (key.startsWith(`${ref}\u0000`)) this.loading.delete(key);
  }

  private async changeLocked(
    ref: string,
    fn: (client: pg.PoolClient) => Promise<void>,
  ): Promise<void> {
    await this.ready();
    const client = await this.conn.acquire();
    let open = false;
    let broken = false;
    try {
      await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${lockKey('secret', this.world, ref)})`,
      );
      open = true;
      const found = await client.query(
        'SELECT 1 FROM twinworld.retired_secrets WHERE world = $1 AND ref = $2',
        [this.world, ref],
      );
      if (found.rowCount !== 0) throw retired(ref);
      await fn(client);
      await client.query('COMMIT');
      open = false;
    } catch (error) {
      if (open) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      throw this.failure(error);
    } finally {
      this.conn.release(client, broken);
    }
  }

  private failure(error: unknown): Error {
    const code = (error as { code?: unknown } | null)?.code;
    if (!isStatementError(error) || code === '42501')
      return connectError(error, this.conn.endpoint);
    const at = this.conn.endpoint;
    return storeError(
      'STORE_FAILED',
      `the secret store of world "${this.world}" on PostgreSQL at ${at.host}:${at.port} failed: ${(error as Error).message}`,
      { details: { host: at.host, port: at.port, driverCode: code }, cause: error },
    );
  }
}

function activeAt(
  rows: readonly { readonly secret: string; readonly expiresAt: number | null }[],
  now: number,
): string[] {
  return rows.filter((r) => r.expiresAt === null || r.expiresAt > now).map((r) => r.secret);
}
