// The storage port: what the kernel needs from a backend, and nothing about how it is kept.
// Asynchronous, so a network database can stand behind it; a section's reads may still answer
// synchronously (SQLite, memory), which the kernel uses to decide in one pass. Every backend
// passes one conformance suite (test/storage/).
import type { IndexKey } from '../state/indexes.js';
import type { Resource } from '../state/resource.js';
import type { Entry } from '../log/write.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { Awaitable, SecretStore } from './secret-store.js';

export type { Awaitable };

export interface IndexDelta {
  readonly remove: readonly IndexKey[];
  readonly add: readonly IndexKey[];
}

/**
 * A bounded read of an ordered index: the resources whose key starts with `prefix`, in (key, id)
 * order or its reverse, starting just past `after`, at most `limit`. Its cost follows the page,
 * not how many resources the index holds.
 */
export interface RangeQuery {
  readonly prefix: string;
  /**
   * Start past this resource's row; it is looked for among keys starting with `within` (itself
   * starting with `prefix`, narrowed by the caller so the search stays short). No such row: none.
   */
  readonly after?: { readonly id: string; readonly within: string };
  readonly limit: number;
  readonly descending?: boolean;
}

/** One row a range read answers: the key it was found under, and the live resource. */
export interface RangeRow {
  readonly key: string;
  readonly resource: Resource;
}

/**
 * One entry as a catch-up needs it (StoreTx.readTouched): its seq and subject always, the whole
 * entry only where the catch-up reads more of it — where it may carry a projection (the resources
 * it touches besides its subject) and for the log's newest entry (whose hash the next entry links to).
 */
export interface TouchedEntry {
  readonly seq: number;
  readonly subjectType: string;
  readonly subjectId: string;
  /**
   * Given for every entry that carries a projection, and for the entry at the head when it is
   * among them; a backend may give it for any other too. A store that leaves out a projection leaves a stale cache behind.
   */
  readonly entry?: Entry;
}

/** What one section or read may see and do. */
export interface StoreScope {
  /** The tenant whose rows it may see (row-level security on PostgreSQL). */
  readonly tenant?: string;
  /** A consistent read without the twin's write lock; writing through it is an error. */
  readonly readOnly?: boolean;
}

/**
 * A section's handle. Reads may answer synchronously (SQLite) or asynchronously (PostgreSQL).
 * The kernel never reads back inside a section what it wrote there, so a backend may buffer
 * writes and send them at commit.
 */
export interface StoreTx {
  /** The head as of taking the lock. */
  head(): Awaitable<number>;
  /** Entries with seq in (afterSeq, afterSeq + limit], ascending. */
  readEntries(afterSeq: number, limit: number): Awaitable<Entry[]>;
  /**
   * What entries with seq in (afterSeq, afterSeq + limit] touched, ascending (TouchedEntry): what
   * a process evicts from its cache when others appended, without reading every body. Like
   * `readEntries`, it leaves out entries the section's scope cannot see (another tenant's).
   */
  readTouched(afterSeq: number, limit: number): Awaitable<TouchedEntry[]>;
  /** The resource, tombstone included. */
  getResource(type: string, id: string): Awaitable<Resource | undefined>;
  /** Live resources of one type, ordered by id. */
  listResources(type: string): Awaitable<Resource[]>;
  /** Live resources of a type whose declared index holds `key`, ordered by id. */
  lookup(type: string, index: string, key: string): Awaitable<Resource[]>;
  /**
   * Live resources of a type whose key in a declared index is at most `maxKey` (byte order),
   * ordered by (key, id), at most `limit`: due work, found by an index ordered by due time.
   */
  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Awaitable<Resource[]>;
  /** Live resources under an ordered index, one page (RangeQuery). */
  range(type: string, index: string, query: RangeQuery): Awaitable<RangeRow[]>;
  /** Every resource of a type, tombstones included (index rebuilds). */
  allResources(type: string): Awaitable<Resource[]>;
  getMeta(key: string): Awaitable<string | undefined>;
  /** `entry.seq` must follow the head and this section's earlier appends; `body` is its canonical JSON. */
  append(entry: Entry, body: string): void;
  /** `subjectOf` is the seq of the entry just appended when this resource is its subject. */
  putResource(resource: Resource, delta: IndexDelta, subjectOf?: number): void;
  setMeta(key: string, value: string): void;
  /** Drops one index's keys for a type so they can be rebuilt. */
  clearIndex(type: string, index: string): void;
  /**
   * Makes the commit conditional: it happens only if the head is still `head`, the meta value
   * under `meta.key` is still `meta.value` (undefined: none) and no resource in `absent` has a row
   * (deleted or not); otherwise the section fails with HeadMoved (RowPresent for `absent`) and
   * nothing is written. A section that read nothing and carries this condition may be sent in one
   * round trip, lock and all. Optional: the kernel uses it only where it exists.
   */
  expect?(
    head: number,
    meta: { readonly key: string; readonly value: string | undefined },
    absent?: readonly { readonly type: string; readonly id: string }[],
  ): void;
  /**
   * This section makes work due now: when it commits, wake whoever listens (StorageBackend.wakeups)
   * in every process. Optional: a backend whose processes learn of work only by polling ignores it.
   */
  wake?(): void;
  /**
   * Reads `lookupUpTo(type, index, maxKey, limit)` as part of the commit, after its writes and
   * under the same lock, and hands the rows to `rows` once the commit succeeded (never when it
   * failed). Optional: for a store whose reads are round trips, so the read costs none of its own.
   */
  lookupAtCommit?(
    type: string,
    index: string,
    maxKey: string,
    limit: number,
    rows: (rows: Resource[]) => void,
  ): void;
}

/**
 * A write section must run again, nothing written: a conditional commit (StoreTx.expect) found the
 * head or the meta value moved, or the store aborted the section to break a deadlock with another.
 */
export class HeadMoved extends Error {
  constructor(twin: string, why = 'another process appended since this process last looked') {
    super(`twin "${twin}": ${why}`);
    this.name = 'HeadMoved';
  }
}

/**
 * A write section must run again, nothing written: a resource its optimistic run took for absent
 * (StoreTx.expect) has a row. Nothing says another process appended: the run after it reads.
 */
export class RowPresent extends HeadMoved {
  constructor(twin: string) {
    super(twin, 'a resource the section took for absent has a row');
    this.name = 'RowPresent';
  }
}

/** One twin's log and its folded state, kept side by side so opening never replays. */
export interface TwinStore {
  readonly name: string;
  /**
   * Runs `section` with exclusive write access to this twin across every process and host
   * sharing the store (or, with `readOnly`, a consistent snapshot). What it wrote commits when
   * its result settles, nothing if it throws or rejects. Sections do not nest.
   */
  transact<T>(section: (tx: StoreTx) => Awaitable<T>, scope?: StoreScope): Promise<T>;
  /** seq of the newest entry, 0 for an empty log. */
  head(): Promise<number>;
  /** Raw canonical lines in (afterSeq, …], ascending, streamed: for export and replay. */
  entryBodies(afterSeq: number): AsyncIterable<string>;
  /**
   * Every live resource in (type, id) order (UTF-8 byte order), streamed; with `after`, only those
   * past it, so a reader that stops early can resume (or skip the rest of a type) with a seek.
   */
  liveResources(after?: { readonly type: string; readonly id: string }): AsyncIterable<Resource>;
  /** Entries whose subject is (type, id), ascending. */
  entriesBySubject(type: string, id: string): Promise<Entry[]>;
  close(): Promise<void>;
}

export interface StorageBackend {
  readonly kind: string;
  openTwin(name: string): Promise<TwinStore>;
  /** Names of the twins this backend already holds. */
  listTwins(): Promise<string[]>;
  /**
   * Where the backend keeps the world's endpoint secrets, when it keeps them itself (PostgreSQL: a
   * table beside the twins, shared by every host). A world opened on the backend uses it unless
   * given a store of its own; closing the backend releases it.
   */
  secretStore?(): SecretStore;
  /** Where the backend keeps vendor surfaces' idempotency keys, when it keeps them itself (as secrets). */
  idempotencyStore?(): IdempotencyStore;
  /**
   * Calls `onWake(twin)` soon after any process sharing the store commits a section that called
   * `StoreTx.wake` on that twin (PostgreSQL: LISTEN/NOTIFY on one connection per backend). A hint
   * only: a notification may be lost (a dropped connection), so a listener still polls, less often.
   * Resolves once listening; the answer stops it. Optional: idle workers poll where it is absent.
   */
  wakeups?(onWake: (twin: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
