// The read side every decide, pack and CLI sees: get one resource, list a type, or use an
// index a pack declared. None of these scans every resource.
import type { Resource } from './resource.js';

export interface ReadView {
  /** The resource, tombstone included (check `deleted`), or undefined if never written. */
  get(type: string, id: string): Resource | undefined;
  /**
   * `get` of several ids of one type, in their order: the reads the view must make start together
   * (one round trip on a store that answers asynchronously). Present on the views of read sections
   * and decides; elsewhere, get each.
   */
  getMany?(type: string, ids: readonly string[]): (Resource | undefined)[];
  /** Live resources of a type, ordered by id. */
  list(type: string): Resource[];
  /** Live resources of a type whose declared index holds `key`. */
  lookup(type: string, index: string, key: string): Resource[];
  /**
   * `lookup` of several (type, index, key), in their order: the reads the view must make start
   * together, as `getMany`'s do. Present on the views of read sections and decides.
   */
  lookupMany?(asks: readonly LookupAsk[]): Resource[][];
  /**
   * Live resources of a type whose key in a declared index is at most `maxKey` (byte order),
   * ordered by (key, id), at most `limit` — what is due by a time, when the key is an ISO time.
   */
  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Resource[];
  /**
   * `lookupUpTo` for work the decide is about to claim: the rows answered are also what the
   * decide's gets of them read, with no second read. Absent on views that keep no section's
   * reads; `lookupUpTo` is then the answer.
   */
  pickUpTo?(type: string, index: string, maxKey: string, limit: number): Resource[];
  /**
   * One page of an ordered index (IndexDeclaration.orderBy): resources under `key` in (order,
   * stamp) order — newest first when `descending` — starting past the resource `after`. Reads a
   * page, not the index. Present on the views of read sections and decides.
   */
  range?(type: string, index: string, page: RangePage): Resource[];
  /** seq of the newest entry this view reflects. */
  readonly head: number;
}

/** One lookup of `lookupMany`. */
interface LookupAsk {
  readonly type: string;
  readonly index: string;
  readonly key: string;
}

export interface RangePage {
  readonly key: string;
  /** An id: start just past its place (nothing when it is not under `key`). */
  readonly after?: string;
  readonly limit: number;
  readonly descending?: boolean;
}
