// The PostgreSQL backend: one world's twins in a database that several hosts share. Constructed from a
// URL and a world name; the first call connects, checks the schema and migrates it when behind (a
// schema newer than this code is refused). `PostgresBackend.open` does that up front.
import type { StorageBackend, TwinStore } from '../port.js';
import { Connection, parseEndpoint, type ConnectionOptions } from './connection.js';
import { migrate, type MigrationReport } from './migrate.js';
import { PostgresIdempotencyStore } from './idempotency-store.js';
import { PostgresSecretStore } from './secret-store.js';
import { checkText } from './sql-text.js';
import { operationError, storeError } from './store-error.js';
import { PostgresTwinStore } from './twin-store.js';
import { WakeListener } from './wakeups.js';

export type PostgresBackendOptions = ConnectionOptions;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:\-]{0,127}$/;

function checkName(value: unknown, what: 'world' | 'twin'): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw storeError(
      'INVALID_ARGUMENT',
      `${what} name ${JSON.stringify(value)} must be 1-128 letters, digits and _ . : - (not starting with a separator)`,
      { path: what },
    );
  }
  return checkText(value, what);
}

export class PostgresBackend implements StorageBackend {
  readonly kind = 'postgres';
  private readonly conn: Connection;
  private readonly twins = new Map<string, PostgresTwinStore>();
  private migrated: Promise<MigrationReport> | undefined;
  private secrets: PostgresSecretStore | undefined;
  private idempotency: PostgresIdempotencyStore | undefined;
  private wakeListener: WakeListener | undefined;
  private closed = false;

  constructor(
    url: string,
    readonly world: string,
    options: PostgresBackendOptions = {},
  ) {
    checkName(world, 'world');
    this.conn = new Connection(url, parseEndpoint(url), options);
  }

  /** Connects, checks and migrates, so a bad URL or schema fails here rather than at first use. */
  static async open(
    url: string,
    world: string,
    options: PostgresBackendOptions = {},
  ): Promise<PostgresBackend> {
    const backend = new PostgresBackend(url, world, options);
    try {
      await backend.ready();
    } catch (error) {
      await backend.close();
      throw error;
    }
    return backend;
  }

  /** What the schema was and is now; migrates once per backend, whoever asks first. */
  ready(): Promise<MigrationReport> {
    if (this.closed)
      return Promise.reject(
        storeError(
          'INVALID_ARGUMENT',
          `the PostgreSQL backend of world "${this.world}" was closed`,
        ),
      );
    this.migrated ??= (async () => {
      const client = await this.conn.checkOut();
      let broken = true;
      try {
        const report = await migrate(client, this.conn.endpoint);
        broken = false;
        return report;
      } finally {
        this.conn.release(client, broken);
      }
    })();
    // A failed attempt (server not up yet) may be retried by the next call.
    this.migrated.catch(() => {
      this.migrated = undefined;
    });
    return this.migrated;
  }

  async openTwin(name: string): Promise<TwinStore> {
    checkName(name, 'twin');
    await this.ready();
    let store = this.twins.get(name);
    if (store === undefined) {
      try {
        await this.conn.query({
          name: 'tw_open',
          text: 'INSERT INTO twinworld.twins (world, twin) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          values: [this.world, name],
        });
      } catch (error) {
        throw operationError(error, this.conn.endpoint, name, undefined);
      }
      store = this.twins.get(name);
      if (store === undefined) {
        store = new PostgresTwinStore(name, this.world, this.conn, (closed) => {
          if (this.twins.get(closed.name) === closed) this.twins.delete(closed.name);
        });
        this.twins.set(name, store);
      }
    }
    return store;
  }

  /** The world's endpoint secrets, in `twinworld.secrets` on the same pool (a world opened on this backend uses it). */
  secretStore(): PostgresSecretStore {
    this.secrets ??= new PostgresSecretStore(this.conn, this.world, () => this.ready());
    return this.secrets;
  }

  /** The world's idempotency keys, in `twinworld.idempotency` on the same pool. */
  idempotencyStore(): PostgresIdempotencyStore {
    this.idempotency ??= new PostgresIdempotencyStore(this.conn, this.world, () => this.ready());
    return this.idempotency;
  }

  /** One listening connection for the whole backend, however many subscribe (wakeups.ts). */
  async wakeups(onWake: (twin: string) => void): Promise<() => Promise<void>> {
    await this.ready();
    this.wakeListener ??= new WakeListener(this.conn, this.world);
    return this.wakeListener.subscribe(onWake);
  }

  async listTwins(): Promise<string[]> {
    await this.ready();
    try {
      const rows = await this.conn.query<{ twin: string }>({
        name: 'tw_twins',
        text: 'SELECT twin FROM twinworld.twins WHERE world = $1 ORDER BY twin',
        values: [this.world],
      });
      return rows.map((r) => r.twin);
    } catch (error) {
      throw operationError(error, this.conn.endpoint, '*', undefined);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.wakeListener?.close();
    for (const store of [...this.twins.values()]) await store.close();
    await this.conn.end();
  }
}
