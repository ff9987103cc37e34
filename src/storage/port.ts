// The asynchronous storage port (issue 11): what the kernel needs from a backend and nothing about
// how it is kept. Memory, SQLite and PostgreSQL implement it; test/storage/port-conformance.ts holds
// every one of them to the same contract. (The lead's copy replaces this one on merge.)
import type { Entry } from '../log/write.js';
import type { IndexKey } from '../state/indexes.js';
import type { Resource } from '../state/resource.js';

export type Awaitable<T> = T | Promise<T>;

export interface IndexDelta {
  readonly remove: readonly IndexKey[];
  readonly add: readonly IndexKey[];
}

/** Options for one section or read: the tenant whose rows it may see (row-level security on PostgreSQL). */
export interface StoreScope {
  readonly tenant?: string;
}

/** One twin's log and folded state. */
export interface TwinStore {
  readonly name: string;
  /**
   * Runs `section` with exclusive write access to this twin across every process and host sharing the
   * store (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction holding pg_advisory_xact_lock for this
   * (world, twin)). Everything the section wrote through `tx` commits when its promise resolves, nothing
   * if it rejects. Sections do not nest.
   */
  transact<T>(section: (tx: StoreTx) => Awaitable<T>, scope?: StoreScope): Promise<T>;
  // Reads outside a section: committed state.
  head(): Promise<number>;
  getResource(type: string, id: string): Promise<Resource | undefined>;
  /** Live only, ordered by id. */
  listResources(type: string): Promise<Resource[]>;
  /** Live only, ordered by id. */
  lookup(type: string, index: string, key: string): Promise<Resource[]>;
  /** Every live resource, (type, id) order, streamed. */
  liveResources(): AsyncIterable<Resource>;
  /** seq in (after, after+limit], ascending. */
  readEntries(afterSeq: number, limit: number): Promise<Entry[]>;
  /** Raw canonical lines, ascending, streamed. */
  entryBodies(afterSeq: number): AsyncIterable<string>;
  /** Ascending. */
  entriesBySubject(type: string, id: string): Promise<Entry[]>;
  getMeta(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * A section's handle. Reads may answer synchronously (SQLite) or asynchronously (PostgreSQL); the kernel
 * handles both. The kernel never reads back inside a section what it wrote in that section, so backends may
 * buffer writes and send them at commit (PostgreSQL: batch them into as few round trips as possible).
 */
export interface StoreTx {
  /** The head as of taking the lock. */
  head(): Awaitable<number>;
  readEntries(afterSeq: number, limit: number): Awaitable<Entry[]>;
  getResource(type: string, id: string): Awaitable<Resource | undefined>;
  listResources(type: string): Awaitable<Resource[]>;
  lookup(type: string, index: string, key: string): Awaitable<Resource[]>;
  /** Tombstones included (index rebuilds). */
  allResources(type: string): Awaitable<Resource[]>;
  getMeta(key: string): Awaitable<string | undefined>;
  /** entry.seq must be head + 1 + (entries appended earlier in this section). `body` is its canonical JSON. */
  append(entry: Entry, body: string): void;
  /** `subjectOf` = seq of the entry just appended when this resource is that entry's subject. */
  putResource(resource: Resource, delta: IndexDelta, subjectOf?: number): void;
  setMeta(key: string, value: string): void;
  /** Drop one index's keys for a type. */
  clearIndex(type: string, index: string): void;
}

export interface StorageBackend {
  /** 'memory' | 'sqlite' | 'postgres' */
  readonly kind: string;
  openTwin(name: string): Promise<TwinStore>;
  listTwins(): Promise<string[]>;
  close(): Promise<void>;
}
