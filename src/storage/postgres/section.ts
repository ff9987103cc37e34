// One section's handle on PostgreSQL. The transaction starts lazily: the section's first read carries
// BEGIN, the tenant, pg_advisory_xact_lock and the head in the same round trip, and reads the section
// issues together (in one tick, e.g. through Promise.all) share one multi-statement query. Every read
// of a writing section comes after the lock: no row is held while the section waits for it, so a
// section holding the lock never waits on one that waits for it (docs/throughput.md, "Batched
// claims"). Writes are buffered and leave at commit as a few executions of statements the session
// prepared, ending in COMMIT: one round trip however much was written. Buffering coalesces: the last
// value of a resource wins, an index key's last add or remove wins, and clearIndex drops the keys
// buffered before it, then runs before those buffered after.
import type { Entry } from '../../log/write.js';
import type { Resource } from '../../state/resource.js';
import {
  HeadMoved,
  RowPresent,
  type IndexDelta,
  type RangeQuery,
  type RangeRow,
  type StoreTx,
  type TouchedEntry,
} from '../port.js';
import type { Client } from './connection.js';
import { commitQueries, type BufferedEntry, type KeyOp } from './commit-queries.js';
import { guardStatement, HEAD_MOVED, ROW_PRESENT, type Guard } from './head-guard.js';
import { notifyStatement } from './wakeups.js';
import { inline, Reads, READS } from './reads.js';
import {
  checkText,
  encodeKey,
  int,
  lit,
  litOrNull,
  toResource,
  type ResourceRow,
} from './sql-text.js';
import { storeError } from './store-error.js';
import { tenantOf, tenantOfFields } from './tenant.js';

/** A read waiting for the next round trip; `sql` undefined: only the transaction's start (head()). */
interface Pending {
  readonly sql: string | undefined;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

type QueryResults = { rows: unknown[] }[];

export class PostgresTx implements StoreTx {
  private readonly entries: BufferedEntry[] = [];
  private readonly resources = new Map<string, { resource: Resource; tenant: string | null }>();
  private readonly keys = new Map<string, KeyOp>();
  private readonly clears = new Map<string, { type: string; name: string }>();
  private readonly meta = new Map<string, string>();
  /** The tenant of the last write's subject: what that write projects without a tenant belongs to it. */
  private projecting: string | null = null;
  private readonly reads: Reads;
  private pending: Pending[] = [];
  /** Settles after the last query sent for reads has been answered. */
  private lastFlush: Promise<void> = Promise.resolve();
  private startHead: number | undefined;
  /** The commit's condition (expect): the head and one meta value as this process last saw them. */
  private guard: Guard | undefined;
  private begun = false;
  private open = true;
  /** The commit wakes idle workers in every process (wake). */
  private wakes = false;
  /** A read that leaves with the commit, and who wants its rows (lookupAtCommit). */
  private atCommit: { text: string; rows: (rows: Resource[]) => void } | undefined;
  /** The query sent and not yet answered, if any: what a slow section reports it waits for. */
  private inFlight: string | undefined;
  /** The commit's last query went out and the connection died before its answer. */
  private unanswered = false;

  constructor(
    private readonly client: Client,
    private readonly world: string,
    private readonly twin: string,
    /** What starts the transaction: BEGIN, the tenant, the lock. A first read adds the head to it. */
    private readonly beginStatements: readonly string[],
    private readonly tenant: string | undefined,
    private readonly mapError: (error: unknown) => unknown,
    private readonly readOnly = false,
  ) {
    this.reads = new Reads(
      world,
      twin,
      (config) => this.enqueue(inline(config.text, config.values)) as Promise<never>,
    );
  }

  get isOpen(): boolean {
    return this.open;
  }

  /**
   * The last entry of a commit whose COMMIT was sent and never answered (the connection dropped):
   * whether it landed is for the caller to find out. Undefined for any other failure.
   */
  get unconfirmed(): { seq: number; body: string } | undefined {
    const last = this.entries[this.entries.length - 1];
    return this.unanswered && last !== undefined ? { seq: last.seq, body: last.body } : undefined;
  }

  /** Whether BEGIN was sent (and so a ROLLBACK is owed if the section fails). */
  get started(): boolean {
    return this.begun;
  }

  private enqueue(sql: string | undefined, internal = false): Promise<unknown[]> {
    if (!this.open && !internal)
      return Promise.reject(
        storeError(
          'INVALID_ARGUMENT',
          `twin "${this.twin}": this section has ended; read only inside its callback`,
        ),
      );
    return new Promise((resolve, reject) => {
      this.pending.push({ sql, resolve, reject });
      if (this.pending.length === 1) queueMicrotask(() => this.flush());
    });
  }

  /** Sends the reads issued so far as one query (with the transaction's start, the first time). */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const begin = !this.begun;
    this.begun = true;
    const start = begin
      ? [...this.beginStatements, inline(READS.head, [this.world, this.twin])]
      : [];
    const statements = [...start, ...batch.flatMap((p) => (p.sql === undefined ? [] : [p.sql]))];
    if (statements.length === 0) {
      // Only head() again while the start is in flight: answer when it lands.
      this.lastFlush = this.lastFlush.then(() => {
        for (const p of batch) {
          if (this.startHead === undefined)
            p.reject(
              storeError(
                'STORE_FAILED',
                `twin "${this.twin}": the section's transaction did not start`,
              ),
            );
          else p.resolve([]);
        }
      });
      return;
    }
    this.lastFlush = this.query(statements.join(';\n')).then(
      (result) => {
        const results = (Array.isArray(result) ? result : [result]) as QueryResults;
        const opened = start.length;
        if (begin) {
          const head = (results[opened - 1]?.rows[0] as { head?: number } | undefined)?.head;
          if (head === undefined) {
            const missing = storeError(
              'STORE_FAILED',
              `twin "${this.twin}" has no row in twinworld.twins; open it through the backend first`,
            );
            for (const p of batch) p.reject(missing);
            return;
          }
          this.startHead = head;
        }
        let i = opened;
        for (const p of batch) p.resolve(p.sql === undefined ? [] : results[i++]!.rows);
      },
      (error: unknown) => {
        const mapped = this.mapError(error);
        for (const p of batch) p.reject(mapped);
      },
    );
  }

  head(): number | Promise<number> {
    if (this.startHead !== undefined) return this.startHead;
    return this.enqueue(undefined).then(() => this.startHead!);
  }

  readEntries(afterSeq: number, limit: number): Promise<Entry[]> {
    return this.reads.readEntries(afterSeq, limit);
  }

  readTouched(afterSeq: number, limit: number): Promise<TouchedEntry[]> {
    return this.reads.readTouched(afterSeq, limit);
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

  range(type: string, index: string, query: RangeQuery): Promise<RangeRow[]> {
    return this.reads.range(type, index, query);
  }

  allResources(type: string): Promise<Resource[]> {
    return this.reads.allResources(type);
  }

  getMeta(key: string): Promise<string | undefined> {
    return this.reads.getMeta(key);
  }

  private writable(): void {
    if (!this.open)
      throw storeError(
        'INVALID_ARGUMENT',
        `twin "${this.twin}": this section has ended; write only inside its callback`,
      );
    if (this.readOnly)
      throw storeError(
        'INVALID_ARGUMENT',
        `twin "${this.twin}": this section is read-only; write through applyAtomic`,
      );
  }

  private checkSeq(seq: number, expected: number): void {
    if (seq !== expected)
      throw storeError(
        'INVALID_ARGUMENT',
        `twin "${this.twin}": entry seq ${seq} does not follow head ${expected - 1}`,
        { path: 'entry.seq' },
      );
  }

  append(entry: Entry, body: string): void {
    this.writable();
    // Dense: after the head when it is known, else after the entries before it (the head is checked at commit).
    const first =
      this.entries[0]?.seq ?? (this.startHead === undefined ? entry.seq : this.startHead + 1);
    this.checkSeq(entry.seq, first + this.entries.length);
    checkText(entry.subjectType, 'entry.subjectType');
    checkText(entry.subjectId, 'entry.subjectId');
    // Until its subject is put (the kernel puts it right after), an entry carries its own tenantId.
    this.entries.push({
      seq: entry.seq,
      tenant: storedTenant(tenantOfFields(entry.fields)),
      type: entry.subjectType,
      id: entry.subjectId,
      body,
    });
  }

  putResource(resource: Resource, delta: IndexDelta, subjectOf?: number): void {
    this.writable();
    checkText(resource.type, 'resource.type');
    checkText(resource.id, 'resource.id');
    const tenant = storedTenant(tenantOf(resource));
    if (this.tenant !== undefined && tenant !== null && tenant !== this.tenant) {
      throw storeError(
        'TENANT_MISMATCH',
        `twin "${this.twin}": ${resource.type} ${resource.id} belongs to tenant "${tenant}"; a section scoped to tenant "${this.tenant}" cannot write it`,
        { path: 'resource.fields.tenantId' },
      );
    }
    // Without a tenant of its own: the subject of a write is the section's (shared when kernel-wide);
    // what the write projects beside it (a routine run) is its subject's. Its stored row, if it
    // already had a tenant, keeps it (see commitQueries).
    const owner = tenant ?? (subjectOf === undefined ? this.projecting : (this.tenant ?? null));
    if (subjectOf !== undefined) this.projecting = owner;
    this.resources.set(`${resource.type}\u0000${resource.id}`, { resource, tenant: owner });
    if (subjectOf !== undefined && this.entries.length > 0) {
      const entry = this.entries[subjectOf - this.entries[0]!.seq];
      if (entry !== undefined && entry.seq === subjectOf) entry.tenant = owner;
    }
    for (const k of delta.remove) this.keyOp(resource, k.name, k.key, false, owner);
    for (const k of delta.add) this.keyOp(resource, k.name, k.key, true, owner);
  }

  private keyOp(
    resource: Resource,
    name: string,
    key: string,
    add: boolean,
    tenant: string | null,
  ): void {
    checkText(name, 'index name');
    const encoded = encodeKey(key);
    this.keys.set(`${resource.type}\u0000${name}\u0000${encoded}\u0000${resource.id}`, {
      type: resource.type,
      name,
      key: encoded,
      id: resource.id,
      add,
      tenant,
    });
  }

  setMeta(key: string, value: string): void {
    this.writable();
    checkText(key, 'meta key');
    checkText(value, 'meta value');
    this.meta.set(key, value);
  }

  clearIndex(type: string, index: string): void {
    this.writable();
    checkText(type, 'type');
    checkText(index, 'index name');
    const prefix = `${type}\u0000${index}\u0000`;
    for (const k of this.keys.keys()) if (k.startsWith(prefix)) this.keys.delete(k);
    this.clears.set(prefix, { type, name: index });
  }

  expect(
    head: number,
    meta: { readonly key: string; readonly value: string | undefined },
    absent: readonly { readonly type: string; readonly id: string }[] = [],
  ): void {
    this.writable();
    checkText(meta.key, 'meta key');
    if (meta.value !== undefined) checkText(meta.value, 'meta value');
    this.guard = { head, meta: { key: meta.key, value: meta.value }, absent: [...absent] };
  }

  wake(): void {
    this.writable();
    this.wakes = true;
  }

  lookupAtCommit(
    type: string,
    index: string,
    maxKey: string,
    limit: number,
    rows: (rows: Resource[]) => void,
  ): void {
    this.writable();
    checkText(type, 'type');
    checkText(index, 'index name');
    const values = [this.world, this.twin, type, index, encodeKey(maxKey), Math.max(0, limit)];
    this.atCommit = { text: inline(READS.lookupUpTo, values), rows };
  }

  /** Ends the section: no more reads or writes. */
  close(): void {
    this.open = false;
  }

  /**
   * A read-only section's COMMIT, handed to the connection now, or undefined while a query of its
   * own is still unanswered (then `commit` ends it). Once handed over, the session may go back to
   * the pool at once: the connection runs its next user's queries after this one, in order.
   */
  endSnapshot(): Promise<unknown> | undefined {
    if (!this.readOnly || this.pending.length > 0 || this.inFlight !== undefined) return undefined;
    if (!this.begun) return Promise.resolve();
    return this.query('COMMIT');
  }

  private get wrote(): boolean {
    return (
      this.entries.length +
        this.resources.size +
        this.keys.size +
        this.clears.size +
        this.meta.size >
      0
    );
  }

  /**
   * Commits what the section wrote. A section that neither read nor wrote never began a transaction
   * and sends nothing; one that appended without reading first takes the lock (one round trip) so its
   * entries can be checked against the head.
   */
  async commit(): Promise<void> {
    if (!this.begun && this.guard !== undefined) return this.commitGuarded();
    if (!this.begun && !this.wrote) return;
    // Blind writes (meta, resources, keys, no entries) need no head: the lock rides with the commit.
    const blind = !this.begun && this.entries.length === 0;
    if (!blind) {
      if (this.startHead === undefined) await this.enqueue(undefined, true);
      if (this.entries.length > 0) this.checkSeq(this.entries[0]!.seq, this.startHead! + 1);
    }
    const queries = this.commitQueries();
    // The condition (expect) of a section that read: the head cannot have moved under the lock,
    // but the meta value is checked here instead of read.
    if (this.guard !== undefined && !blind)
      queries[0] = `${guardStatement(this.world, this.twin, this.guard!)};\n${queries[0]}`;
    if (blind) {
      this.begun = true;
      queries[0] = `${this.beginStatements.join(';\n')};\n${queries[0]}`;
    }
    await this.send(queries);
  }

  /** One round trip, remembered while it is unanswered. */
  private query(text: string): Promise<unknown> {
    this.inFlight = text;
    const answered = (): void => {
      if (this.inFlight === text) this.inFlight = undefined;
    };
    return this.client.query(text).finally(answered);
  }

  /** What the section waits for now: the server's answer to a query, or this process. */
  waitingFor(): string {
    if (this.inFlight === undefined)
      return 'no query of its own in flight: it waits in this process (for a read it has not sent, or for work between its reads and its commit)';
    // A commit's text runs to megabytes: only its start is shown.
    const head = this.inFlight.slice(0, 400).replace(/\s+/g, ' ');
    return `waiting for PostgreSQL to answer: ${head.length > 200 || this.inFlight.length > 400 ? `${head.slice(0, 200)}…` : head}`;
  }

  /** Sends a commit's queries in order; a failed condition is HeadMoved. */
  private async send(queries: readonly string[]): Promise<void> {
    let last: unknown;
    for (const [i, text] of queries.entries()) {
      try {
        last = await this.query(text);
      } catch (error) {
        if (error instanceof Error && error.message.includes(HEAD_MOVED))
          throw new HeadMoved(this.twin);
        if (error instanceof Error && error.message.includes(ROW_PRESENT))
          throw new RowPresent(this.twin);
        // The query holding COMMIT went out and no answer came back: the server may have committed.
        if (i === queries.length - 1 && connectionLost(error)) this.unanswered = true;
        throw this.mapError(error);
      }
    }
    // Committed: the read that rode with COMMIT is the last answer but one.
    if (this.atCommit !== undefined && Array.isArray(last) && last.length >= 2)
      this.atCommit.rows(
        ((last as QueryResults)[last.length - 2]!.rows as ResourceRow[]).map(toResource),
      );
  }

  /**
   * A section that read nothing, under a condition (expect): BEGIN, the lock, the condition, the
   * writes and COMMIT leave as one round trip. A condition that fails is HeadMoved; a section that
   * wrote nothing still checks it, since what it decided rests on the same view.
   */
  private async commitGuarded(): Promise<void> {
    this.startHead = this.guard!.head;
    if (this.entries.length > 0) this.checkSeq(this.entries[0]!.seq, this.startHead + 1);
    const queries = this.commitQueries();
    this.begun = true;
    queries[0] = `${[...this.beginStatements, guardStatement(this.world, this.twin, this.guard!)].join(';\n')};\n${queries[0]}`;
    await this.send(queries);
  }

  /** The commit, as the query texts to send in order; the last ends with COMMIT. */
  private commitQueries(): string[] {
    return commitQueries({
      world: this.world,
      twin: this.twin,
      resources: [...this.resources.values()],
      tenantOfResource: (type, id) => this.resources.get(`${type}\u0000${id}`)?.tenant,
      tenantScoped: this.tenant !== undefined,
      entries: this.entries,
      clears: [...this.clears.values()],
      keys: [...this.keys.values()],
      meta: [...this.meta],
      newHead: this.entries.length > 0 ? this.startHead! + this.entries.length : undefined,
      wakes: this.wakes,
      ...(this.atCommit === undefined ? {} : { readAtCommit: this.atCommit.text }),
    });
  }
}

/** The tenant a row is stored under is text like its type and id: a NUL in it is refused as theirs is. */
function storedTenant(tenant: string | null): string | null {
  return tenant === null ? null : checkText(tenant, 'fields.tenantId');
}

/**
 * A failure that is not the server's answer: the socket closed or errored. The server answers with
 * a SQLSTATE; of those only connection exceptions (08) and operator intervention (57, a terminated
 * session) leave the fate of a COMMIT in flight open.
 */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57');
}
