// The storage port: what the kernel needs from a backend, and nothing about how it is kept.
// Every backend (SQLite file, in-memory, …) passes one conformance suite in test/log/.
import type { IndexKey } from '../state/indexes.js';
import type { Resource } from '../state/resource.js';
import type { Entry } from '../log/write.js';

export interface IndexDelta {
  readonly remove: readonly IndexKey[];
  readonly add: readonly IndexKey[];
}

/** One twin's log and its folded state, kept side by side so opening never replays. */
export interface TwinStore {
  readonly name: string;
  /**
   * Runs `fn` synchronously with exclusive write access across every process sharing the store;
   * everything `fn` appended or put commits together, or nothing does if it throws.
   */
  exclusive<T>(fn: () => T): T;
  /** seq of the newest entry, 0 for an empty log. */
  head(): number;
  /** Only inside `exclusive`: `entry.seq` must be head() + 1. `body` is the entry's canonical JSON. */
  append(entry: Entry, body: string): void;
  /**
   * Only inside `exclusive`. `subjectOf` is the seq of the entry just appended when this resource
   * is that entry's subject (backends may chain a subject's entries through it).
   */
  putResource(resource: Resource, delta: IndexDelta, subjectOf?: number): void;
  getResource(type: string, id: string): Resource | undefined;
  /** Live resources of one type, by id. */
  listResources(type: string): Resource[];
  lookup(type: string, index: string, key: string): Resource[];
  /** Every live resource in (type, id) order, streamed. */
  liveResources(): Iterable<Resource>;
  /** Entries with seq in (afterSeq, afterSeq + limit], ascending. */
  readEntries(afterSeq: number, limit: number): Entry[];
  /** Raw canonical lines in (afterSeq, …], ascending, streamed: for export and replay. */
  entryBodies(afterSeq: number): Iterable<string>;
  /** Entries whose subject is (type, id), ascending. */
  entriesBySubject(type: string, id: string): Entry[];
  getMeta(key: string): string | undefined;
  /** Only inside `exclusive`. */
  setMeta(key: string, value: string): void;
  /** Only inside `exclusive`: drops one index's keys for a type so they can be rebuilt. */
  clearIndex(type: string, index: string): void;
  /** Every resource of a type, tombstones included, streamed (index rebuilds). */
  allResources(type: string): Iterable<Resource>;
  close(): void;
}

export interface StorageBackend {
  readonly kind: string;
  openTwin(name: string): TwinStore;
  /** Names of the twins this backend already holds. */
  listTwins(): string[];
  close(): void;
}
