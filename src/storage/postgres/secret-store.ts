// The secret store of a world kept on PostgreSQL: endpoint secrets in `twinworld.secrets`, beside the
// world's twins, so every host serving the world signs and verifies with the same secrets. Each change
// is one transaction holding an advisory lock on (world, ref), so concurrent sets and rotations from
// several hosts are serialized and none is lost. Secrets are shared by the world, not by a tenant: the
// tables carry no tenant and no row-level security (refs are endpoint ids, not tenant data); what
// guards them is that only twinworld_app and twinworld_owner may read them.
import type pg from 'pg';
import {
  checkRef,
  checkRotation,
  checkSecret,
  retired,
  type SecretStore,
} from '../secret-store.js';
import { isStatementError, type Connection } from './connection.js';
import { lockKey } from './lock-key.js';
import { checkText } from './sql-text.js';
import { connectError, storeError } from './store-error.js';

export class PostgresSecretStore implements SecretStore {
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

  async resolve(ref: string, now: number): Promise<string[]> {
    if (typeof ref !== 'string' || ref.includes('\u0000')) return [];
    await this.ready();
    try {
      const rows = await this.conn.query<{ secret: string }>({
        name: 'tw_secret_resolve',
        text: 'SELECT secret FROM twinworld.secrets WHERE world = $1 AND ref = $2 AND (expires_at IS NULL OR expires_at > $3) ORDER BY n DESC',
        values: [this.world, ref, now],
      });
      return rows.map((r) => r.secret);
    } catch (error) {
      throw this.failure(error);
    }
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
