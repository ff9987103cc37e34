// The idempotency store of a world kept on PostgreSQL: `twinworld.idempotency`, beside the world's
// twins, so a retry that lands on another host finds the first answer. A claim is one statement
// (prune, then insert or take over an expired row) and a read when the key was held; expired rows
// of the world are pruned, at most 256 per claim.
import {
  checkAnswer,
  checkIdempotencyArgs,
  type IdempotencyClaim,
  type IdempotencyStore,
  type SavedAnswer,
} from '../idempotency-store.js';
import { isStatementError, type Connection } from './connection.js';
import { connectError, storeError } from './store-error.js';

interface Row {
  fingerprint: string;
  status: number | null;
  body: string | null;
}

export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly conn: Connection,
    private readonly world: string,
    private readonly ready: () => Promise<unknown>,
  ) {}

  async claim(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    ttlMs: number,
  ): Promise<IdempotencyClaim> {
    checkIdempotencyArgs(scope, key, fingerprint, now, ttlMs);
    await this.ready();
    try {
      // A held row stays (DO UPDATE ... WHERE false returns nothing); an expired one is taken over.
      // The prune rides along in a WITH, so the claim is one round trip; it leaves the key being
      // claimed to the insert (one statement must not both delete and update a row).
      for (let i = 0; i < 3; i++) {
        const taken = await this.conn.query<{ fingerprint: string }>({
          name: 'tw_idem_claim',
          text: `WITH pruned AS (
                   DELETE FROM twinworld.idempotency WHERE (world, scope, key) IN (
                     SELECT world, scope, key FROM twinworld.idempotency
                      WHERE world = $1 AND expires_at <= $6 AND (scope, key) <> ($2, $3) LIMIT 256))
                 INSERT INTO twinworld.idempotency (world, scope, key, fingerprint, expires_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (world, scope, key) DO UPDATE
                   SET fingerprint = EXCLUDED.fingerprint, expires_at = EXCLUDED.expires_at,
                       status = NULL, body = NULL
                   WHERE twinworld.idempotency.expires_at <= $6
                 RETURNING fingerprint`,
          values: [this.world, scope, key, fingerprint, now + ttlMs, now],
        });
        if (taken.length === 1) return { state: 'claimed' };
        const [row] = await this.conn.query<Row>({
          name: 'tw_idem_get',
          text: 'SELECT fingerprint, status, body FROM twinworld.idempotency WHERE world = $1 AND scope = $2 AND key = $3',
          values: [this.world, scope, key],
        });
        if (row === undefined) continue; // released between the two statements: claim again
        if (row.status === null || row.body === null)
          return { state: 'in_progress', fingerprint: row.fingerprint };
        return {
          state: 'done',
          fingerprint: row.fingerprint,
          answer: { status: row.status, body: row.body },
        };
      }
      return { state: 'in_progress', fingerprint };
    } catch (error) {
      throw this.failure(error);
    }
  }

  async finish(scope: string, key: string, answer: SavedAnswer): Promise<void> {
    checkIdempotencyArgs(scope, key);
    checkAnswer(answer);
    await this.ready();
    try {
      await this.conn.query({
        name: 'tw_idem_finish',
        text: 'UPDATE twinworld.idempotency SET status = $4, body = $5 WHERE world = $1 AND scope = $2 AND key = $3',
        values: [this.world, scope, key, answer.status, answer.body],
      });
    } catch (error) {
      throw this.failure(error);
    }
  }

  async release(scope: string, key: string): Promise<void> {
    checkIdempotencyArgs(scope, key);
    await this.ready();
    try {
      await this.conn.query({
        name: 'tw_idem_release',
        text: 'DELETE FROM twinworld.idempotency WHERE world = $1 AND scope = $2 AND key = $3 AND status IS NULL',
        values: [this.world, scope, key],
      });
    } catch (error) {
      throw this.failure(error);
    }
  }

  /** The pool belongs to the backend, which closes it. */
  close(): void {}

  private failure(error: unknown): Error {
    const code = (error as { code?: unknown } | null)?.code;
    if (!isStatementError(error) || code === '42501')
      return connectError(error, this.conn.endpoint);
    const at = this.conn.endpoint;
    return storeError(
      'STORE_FAILED',
      `the idempotency store of world "${this.world}" on PostgreSQL at ${at.host}:${at.port} failed: ${(error as Error).message}`,
      { details: { host: at.host, port: at.port, driverCode: code }, cause: error },
    );
  }
}
