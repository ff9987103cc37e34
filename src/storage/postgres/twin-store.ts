// One twin on PostgreSQL: rows keyed by (world, twin) in the shared tables. A section is a transaction
// that holds pg_advisory_xact_lock for (world, twin); taking the lock, setting the tenant and reading the
// head ride with the section's first reads, and the buffered writes and COMMIT share one more round
// trip. Sections of this twin in this process queue in memory first, so waiting for another host's
// section holds one connection, not one per caller.
import { AsyncLocalStorage } from 'node:async_hooks';
import { canonicalJson } from '../../log/canonical-json.js';
import type { Entry } from '../../log/write.js';
import type { Resource } from '../../state/resource.js';
import {
  HeadMoved,
  type Awaitable,
  type StoreScope,
  type StoreTx,
  type TwinStore,
} from '../port.js';
import type { Client, Connection } from './connection.js';
import { lockStatement, twinLockKey } from './lock-key.js';
import { Reads } from './reads.js';
import { PostgresTx } from './section.js';
import { lit, toResource, type ResourceRow } from './sql-text.js';
import { aborted, operationError, storeError } from './store-error.js';
import { scopeTenant } from './tenant.js';

const STREAM_BATCH = 500;

/** The section running in this async context, to refuse nesting (which would wait on itself). */
const current = new AsyncLocalStorage<{ store: PostgresTwinStore; tx: PostgresTx }>();

export class PostgresTwinStore implements TwinStore {
  private readonly reads: Reads;
  private readonly lockKey: bigint;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly name: string,
    private readonly world: string,
    private readonly conn: Connection,
    private readonly onClose: (store: PostgresTwinStore) => void,
  ) {
    this.lockKey = twinLockKey(world, name);
    this.reads = new Reads(world, name, async (config) => {
      this.usable();
      try {
        return (await this.conn.query(config)) as never;
      } catch (error) {
        throw operationError(error, this.conn.endpoint, this.name, undefined);
      }
    });
  }

  private usable(): void {
    if (this.closed)
      throw storeError(
        'INVALID_ARGUMENT',
        `twin "${this.name}" was closed; open it again from the backend`,
      );
  }

  transact<T>(section: (tx: StoreTx) => Awaitable<T>, scope?: StoreScope): Promise<T> {
    try {
      this.usable();
      const running = current.getStore();
      if (running !== undefined && running.store === this && running.tx.isOpen) {
        throw storeError(
          'INVALID_ARGUMENT',
          `twin "${this.name}": a section is already open; sections do not nest`,
        );
      }
      const tenant = scopeTenant(scope);
      // A read-only section takes no lock and waits for no writer: it reads one snapshot.
      if (scope?.readOnly === true) return this.section(section, tenant, true);
      const run = this.queue.then(() => this.section(section, tenant, false));
      this.queue = run.catch(() => {});
      return run;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async section<T>(
    section: (tx: StoreTx) => Awaitable<T>,
    tenant: string | undefined,
    readOnly: boolean,
  ): Promise<T> {
    const client = await this.conn.acquire();
    const tx = new PostgresTx(
      client,
      this.world,
      this.name,
      this.beginStatements(tenant, readOnly),
      tenant,
      (error) =>
        aborted(error)
          ? new HeadMoved(this.name, 'PostgreSQL aborted this section to break a deadlock')
          : operationError(error, this.conn.endpoint, this.name, tenant),
      readOnly,
    );
    let broken = false;
    let released = false;
    // Reported, never acted on: a section open this long waits at a lock, on the server, or on
    // something in this process, and the warning says which.
    const slow = setTimeout(() => {
      process.emitWarning(
        `twinworld: twin "${this.name}" of world "${this.world}": a section has been open ${(this.conn.slowSectionMs / 1000).toFixed(1)} s, ${tx.waitingFor()}`,
        { code: 'TWINWORLD_SLOW_SECTION' },
      );
    }, this.conn.slowSectionMs);
    slow.unref();
    let decided: { value: T } | undefined;
    try {
      try {
        decided = { value: await current.run({ store: this, tx }, () => section(tx)) };
      } finally {
        tx.close();
      }
      // A snapshot has nothing to make durable: its answer does not wait for COMMIT's round
      // trip, and its session goes back to the pool with the COMMIT queued on it, so the next
      // section of this process (a write after a read) needs no second connection.
      const ending = readOnly ? tx.endSnapshot() : undefined;
      if (ending !== undefined) {
        released = true;
        this.conn.release(client);
        // A COMMIT of a snapshot fails only with its connection, which the pool then drops.
        ending.catch(() => {});
        return decided.value;
      }
      await tx.commit();
      return decided.value;
    } catch (error) {
      // Whatever the section or the commit left of the transaction goes; a session that cannot even
      // roll back is closed rather than reused.
      if (tx.started) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      // A commit whose answer was lost may have landed: running the section again would append
      // its entries twice, so whether it did is asked first, on another session.
      const unconfirmed = tx.unconfirmed;
      if (decided !== undefined && unconfirmed !== undefined) {
        this.conn.release(client, true);
        released = true;
        if (await this.landed(unconfirmed, tenant)) return decided.value;
      }
      throw error;
    } finally {
      clearTimeout(slow);
      if (!released) this.conn.release(client, broken);
    }
  }

  /**
   * Whether the entry a lost commit would have written is in the log, read in a section of its
   * own: it takes the twin's lock first, so a commit the server is still running has finished (or
   * rolled back) before the read. A check that fails itself answers no: the caller keeps the
   * commit's own error.
   */
  private async landed(last: { seq: number; body: string }, tenant: string | undefined) {
    try {
      const [entry] = await this.section((tx) => tx.readEntries(last.seq - 1, 1), tenant, false);
      // Stored lines are canonical: the entry read back spells the same bytes if it is ours.
      return entry?.seq === last.seq && canonicalJson(entry) === last.body;
    } catch {
      return false;
    }
  }

  /** Runs driver calls, mapping their failures; a section's own errors never pass through here. */
  private async driver<R>(tenant: string | undefined, fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (error) {
      throw operationError(error, this.conn.endpoint, this.name, tenant);
    }
  }

  /**
   * A section's start: sent with its first read (which adds the head), or with a commit that reads
   * nothing (a guarded one checks the head in the server, a blind one has no use for it).
   */
  private beginStatements(tenant: string | undefined, readOnly: boolean): string[] {
    return [
      readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN',
      ...(tenant === undefined
        ? []
        : [`SELECT set_config('twinworld.tenant', ${lit(tenant)}, true)`]),
      ...(readOnly ? [] : [lockStatement(this.lockKey)]),
    ];
  }

  head(): Promise<number> {
    return this.reads.head();
  }

  getResource(type: string, id: string): Promise<Resource | undefined> {
    return this.reads.getResource(type, id);
  }

  listResources(type: string): Promise<Resource[]> {
    return this.reads.listResources(type);
  }

  lookup(type: string, index: string, key: string): Promise<Resource[]> {
    return this.reads.lookup(type, index, key);
  }

  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Promise<Resource[]> {
    return this.reads.lookupUpTo(type, index, maxKey, limit);
  }

  readEntries(afterSeq: number, limit: number): Promise<Entry[]> {
    return this.reads.readEntries(afterSeq, limit);
  }

  entriesBySubject(type: string, id: string): Promise<Entry[]> {
    return this.reads.entriesBySubject(type, id);
  }

  getMeta(key: string): Promise<string | undefined> {
    return this.reads.getMeta(key);
  }

  async *liveResources(after?: { type: string; id: string }): AsyncIterable<Resource> {
    const past =
      after === undefined ? '' : ` AND (type, id) > (${lit(after.type)}, ${lit(after.id)})`;
    const query = `SELECT type, id, version, deleted, fields FROM twinworld.resources WHERE world = ${lit(this.world)} AND twin = ${lit(this.name)}${past} AND NOT deleted ORDER BY type, id`;
    for await (const row of this.stream<ResourceRow>(query)) yield toResource(row);
  }

  async *entryBodies(afterSeq: number): AsyncIterable<string> {
    const query = `SELECT body FROM twinworld.entries WHERE world = ${lit(this.world)} AND twin = ${lit(this.name)} AND seq > ${Math.floor(afterSeq)} ORDER BY seq`;
    for await (const row of this.stream<{ body: string }>(query)) yield row.body;
  }

  /**
   * Rows of one snapshot, a batch at a time, through a cursor in a read-only repeatable-read
   * transaction; the session goes back to the pool when the loop ends, breaks or throws.
   */
  private async *stream<R>(query: string): AsyncGenerator<R> {
    this.usable();
    const client: Client = await this.conn.acquire();
    let open = true;
    let broken = false;
    try {
      await this.driver(undefined, () =>
        client.query(
          `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; DECLARE twinworld_stream NO SCROLL CURSOR FOR ${query}`,
        ),
      );
      for (;;) {
        const rows = await this.driver(
          undefined,
          async () =>
            (await client.query<R & object>(`FETCH ${STREAM_BATCH} FROM twinworld_stream`)).rows,
        );
        for (const row of rows) yield row;
        if (rows.length < STREAM_BATCH) break;
      }
      await this.driver(undefined, () => client.query('COMMIT'));
      open = false;
    } finally {
      if (open) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      this.conn.release(client, broken);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.queue;
    this.closed = true;
    this.onClose(this);
  }
}
