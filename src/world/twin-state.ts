// What a twin keeps in its process between sections, and the section reads that go through it: the
// resource and lookup caches, the head and chain link this process knows, the declared indexes, and
// the catch-up that evicts what other processes changed. Every read of a section comes here first.
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import {
  CHAIN_META_KEY,
  decodeChainHead,
  GENESIS,
  lineHash,
  type ChainHead,
} from '../log/chain.js';
import type { IndexDeclaration } from '../state/indexes.js';
import type { IndexDelta, TouchedEntry } from '../storage/port.js';
import { freezeResource, resourceKey, type Resource } from '../state/resource.js';
import { DeclaredIndexes, INDEXES_META_KEY } from './declared-indexes.js';
import { BoundedMap } from './bounded-map.js';
import { DueHints } from './due-hint.js';
import type { Section } from './section.js';

const CACHE_LIMIT = 20_000;
/** Entries after the known head asked for with a section's first reads, before the head is known. */
const SPECULATE = 256;

/** Quiet looks in a row before a section goes optimistically: other writers make it a loss. */
const QUIET_BEFORE_OPTIMISM = 3;

/** Cached resources remembered as changed by other processes (see TwinState.hot). */
const HOT_LIMIT = 256;

/** The section-read key of the twin's recorded index declarations. */
export const INDEXES_READ = `meta:${INDEXES_META_KEY}`;

/** The section-read key of the recorded chain head. */
const CHAIN_READ = `meta:${CHAIN_META_KEY}`;

export class TwinState {
  readonly cache = new BoundedMap<string, Resource | null>(CACHE_LIMIT);
  /**
   * Lookup answers per type, then "index\0key", as the resource keys the store answered: the rows
   * themselves come from `cache`, so a commit that changes a resource without moving its index keys
   * (a repository's open issue count) leaves the lookups that find it standing. A commit that moves
   * any key of a type, and any entry caught up from another process that touches a resource of it,
   * drops the type's lookups. What a write reads on every commit (the repository it names, the
   * endpoints that take an event) rarely moves, so the query per write (a round trip each on
   * PostgreSQL) is made once per change of that kind.
   */
  readonly lookups = new Map<string, Map<string, readonly string[]>>();
  knownHead = 0;
  /**
   * Resources this process held cached when a catch-up found another process had changed them: a
   * counter or an endpoint's health that several processes write in turn. A section that reads one
   * from the cache before the head is known also asks for its stored row with the lock. If the
   * catch-up then evicts it, the run that goes again finds that row already loaded, instead of
   * spending one more round trip with the twin locked. Without it, a write behind another process's
   * write on the same resource took three round trips under the lock instead of two.
   */
  private readonly hot = new Set<string>();
  /** The newest entry this process committed or learned of, and its hash: the next entry's prev. */
  chain: ChainHead | undefined;
  /**
   * Whether each commit records the chain head beside the log. A store that answers
   * asynchronously (PostgreSQL) sends it with the commit at no extra round trip, and may hide the
   * newest entry from a tenant's section, so the next append needs it. A synchronous store
   * (SQLite, memory) shows every entry, and there the extra row cost a WAL page per commit
   * (~20 µs of CPU on a single-write commit, measured): it links to the newest entry itself.
   */
  recordsHead = false;
  /**
   * Moves on every commit of this twin: a read section that began before it (over a store whose
   * sections overlap, as on PostgreSQL) must not cache what it loaded, which may be older.
   */
  epoch = 0;
  /** Declared here or by any process on the store (declared-indexes.ts). */
  readonly indexes: DeclaredIndexes;
  /** The declarations as last read from the store (null: none stored; undefined: never read). */
  indexesRaw: string | null | undefined;
  /** Looks at the head in a row that found nothing appended by another process (0 after one did). */
  quiet = 0;
  /** The due index as this process's last commit left it, for the next pick (due-hint.ts). */
  readonly hints = new DueHints();

  constructor(readonly name: string) {
    this.indexes = new DeclaredIndexes(name);
  }

  /**
   * Entries appended elsewhere since we last looked evict what they touched from the cache. When
   * the head is not known yet (the section's first run over an asynchronous store), the run goes on
   * as if nothing moved, asking at once for what the entries after the known head touched: what it
   * reads then travels with the lock and the head in one round trip, and the run after it (its
   * answers are from the same locked snapshot) usually needs nothing more. Only what the entries
   * touched is read (StoreTx.readTouched), not their bodies; a process that holds nothing cached
   * reads no entry at all, only the head (and, for a write, the chain head recorded beside it).
   */
  catchUp(s: Section, chain = false): number {
    if (s.optimistic) {
      s.expect = {
        head: this.knownHead,
        meta: { key: INDEXES_META_KEY, value: this.indexesRaw ?? undefined },
      };
      return this.knownHead;
    }
    const head = s.peek('head', () => s.tx.head());
    const from = this.knownHead;
    if (head === undefined) {
      if (!this.holdsNothing()) s.peek(`touched:${from}`, () => s.tx.readTouched(from, SPECULATE));
      else if (chain && this.recordsHead)
        s.prefetch(CHAIN_READ, () => s.tx.getMeta(CHAIN_META_KEY));
      return from;
    }
    if (s.guardIndexes)
      s.expect = { head, meta: { key: INDEXES_META_KEY, value: this.indexesRaw ?? undefined } };
    this.quiet = head === from ? this.quiet + 1 : 0;
    if (head === from) return head;
    const moved = this.touchedSince(s, from, head);
    const newest = moved?.[seenUpTo(moved, head) - 1];
    if (newest?.seq === head && newest.entry !== undefined)
      // The newest entry came whole: the next links to it, hashed here.
      this.chain = { seq: head, hash: lineHash(canonicalJson(newest.entry)) };
    // Another process appended: the next entry links to its newest, read with what it touched.
    else if (chain && this.recordsHead && head > 0 && this.chain?.seq !== head)
      s.prefetch(CHAIN_READ, () => s.tx.getMeta(CHAIN_META_KEY));
    if (moved === undefined) {
      this.cache.clear();
      this.lookups.clear();
    } else {
      const touch = (type: string, id: string): void => {
        const key = resourceKey(type, id);
        if (this.cache.delete(key)) this.markHot(key);
        this.lookups.delete(type);
      };
      for (const e of moved) {
        if (e.seq > head) break;
        touch(e.subjectType, e.subjectId);
        const p = e.entry?.projection;
        if (p !== undefined)
          for (const r of [...(p.creates ?? []), ...(p.updates ?? []), ...(p.deletes ?? [])])
            touch(r.type, r.id);
      }
    }
    this.knownHead = head;
    // A section that loaded before this catch-up must not cache what it loaded; this one reads
    // after it, so what it loads may be cached.
    s.epoch = ++this.epoch;
    return head;
  }

  /**
   * What the entries in (from, head] touched, or undefined when everything cached goes instead:
   * too many to read, a head that went back, or nothing cached to evict (which needs no read).
   */
  private touchedSince(s: Section, from: number, head: number): TouchedEntry[] | undefined {
    if (head < from || head - from > CACHE_LIMIT) return undefined;
    const moved =
      head - from <= SPECULATE && s.loaded.has(`touched:${from}`)
        ? s.read(`touched:${from}`, () => s.tx.readTouched(from, SPECULATE))
        : this.holdsNothing()
          ? undefined
          : s.read(`touched:${from}:${head}`, () => s.tx.readTouched(from, head - from));
    // A tenant's section sees only its tenant's entries (row-level security on PostgreSQL): what
    // the others touched is unknown, and the known head moves past them all the same.
    if (moved !== undefined && seenUpTo(moved, head) < head - from) return undefined;
    return moved;
  }

  /** Nothing cached: a catch-up has nothing to evict (a fresh process, a CLI command). */
  private holdsNothing(): boolean {
    return this.cache.size === 0 && this.lookups.size === 0;
  }

  /** Starts the store read `resource` would make, so reads started together share a round trip. */
  prefetchResource(s: Section, type: string, id: string): void {
    const key = resourceKey(type, id);
    if (s.staged.has(key) || (!s.tenantScoped && this.cache.has(key))) return;
    s.prefetch(`get:${key}`, () => s.tx.getResource(type, id));
  }

  resource(s: Section, type: string, id: string): Resource | undefined {
    const key = resourceKey(type, id);
    const staged = s.staged.get(key);
    if (staged !== undefined) return staged;
    const cached = s.tenantScoped ? undefined : this.cache.get(key);
    // Evicted by age of insertion (BoundedMap): re-ordering on every hit cost more than the misses it saves.
    if (cached !== undefined) {
      // Before the head is known (the first run over an asynchronous store), a row others keep
      // changing is asked for too, with the lock: see `hot`.
      if (this.hot.has(key) && this.recordsHead && !s.optimistic && !s.loaded.has('head'))
        s.prefetch(`get:${key}`, () => s.tx.getResource(type, id));
      return cached ?? undefined;
    }
    if (s.assumesAbsent(type, id)) return undefined;
    const stored = s.read(`get:${key}`, () => s.tx.getResource(type, id));
    const value = stored === undefined ? null : freezeResource(stored);
    if (s.epoch === this.epoch && !s.tenantScoped) this.cache.set(key, value);
    return value ?? undefined;
  }

  /**
   * After a commit: what it staged is cached, and the lookups of each type whose index keys it
   * moved are dropped (`puts` absent: of every type it staged).
   */
  committed(
    staged: ReadonlyMap<string, Resource>,
    puts?: readonly { resource: Resource; delta: IndexDelta }[],
  ): void {
    this.epoch++;
    for (const [key, value] of staged) {
      if (puts === undefined) this.lookups.delete(value.type);
      this.cache.set(key, value);
    }
    for (const p of puts ?? [])
      if (p.delta.add.length > 0 || p.delta.remove.length > 0) this.lookups.delete(p.resource.type);
  }

  /** Starts the store read `lookupRows` would make, so lookups started together share a round trip. */
  prefetchLookup(s: Section, type: string, index: string, key: string): void {
    const slot = `${index}\u0000${key}`;
    if (!s.tenantScoped && this.cachedLookup(type, slot) !== undefined) return;
    s.prefetch(`lookup:${type}\u0000${slot}`, () => s.tx.lookup(type, index, key));
  }

  lookupRows(s: Section, type: string, index: string, key: string): readonly Resource[] {
    const slot = `${index}\u0000${key}`;
    const cacheable = !s.tenantScoped;
    const cached = cacheable ? this.cachedLookup(type, slot) : undefined;
    if (cached !== undefined) return cached;
    const rows = s
      .read(`lookup:${type}\u0000${slot}`, () => s.tx.lookup(type, index, key))
      .map(freezeResource);
    if (cacheable && s.epoch === this.epoch) {
      let byType = this.lookups.get(type);
      if (byType === undefined) this.lookups.set(type, (byType = new Map()));
      // Bounded like the resource cache: a type looked up under many keys starts over.
      if (byType.size >= CACHE_LIMIT) byType.clear();
      const keys = rows.map((r) => resourceKey(r.type, r.id));
      rows.forEach((r, i) => this.cache.set(keys[i]!, r));
      byType.set(slot, keys);
    }
    return rows;
  }

  /** A lookup's rows from the cache, or undefined when one of them is no longer cached. */
  private cachedLookup(type: string, slot: string): readonly Resource[] | undefined {
    const keys = this.lookups.get(type)?.get(slot);
    if (keys === undefined) return undefined;
    const rows: Resource[] = [];
    for (const key of keys) {
      const row = this.cache.get(key);
      if (row === undefined || row === null) return undefined;
      rows.push(row);
    }
    return rows;
  }

  private markHot(key: string): void {
    this.hot.delete(key);
    this.hot.add(key);
    if (this.hot.size > HOT_LIMIT) this.hot.delete(this.hot.keys().next().value as string);
  }

  declared(type: string, index: string): IndexDeclaration[] {
    const decl = this.indexes.named(type, index);
    if (decl === undefined) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `twin "${this.name}" has no index "${index}" on type "${type}"; declare it with twin.declareIndex({type, name, field})`,
        { path: 'index' },
      );
    }
    return [decl];
  }

  /** Indexes another process declared since this one last looked: this write maintains them too. */
  adoptIndexes(s: Section): void {
    // Asked for with the section's first reads; a run that must wait anyway adopts on the next.
    if (s.guardIndexes) return; // the commit's condition covers them
    const stored = s.peek(INDEXES_READ, () => s.tx.getMeta(INDEXES_META_KEY));
    if (s.missed) return;
    this.adoptStored(stored);
    if (s.mayGuess)
      s.lockedAt = { head: this.knownHead, meta: { key: INDEXES_META_KEY, value: stored } };
  }

  /** Adopts the declarations as stored (raw), remembering what was read for optimistic runs. */
  adoptStored(stored: string | undefined): void {
    this.indexesRaw = stored ?? null;
    for (const type of this.indexes.adopt(stored)) this.lookups.delete(type);
  }

  /**
   * Whether the next write section may go optimistically: the store answers asynchronously, the
   * last look found no other process's appends, and the newest entry's hash and the declared
   * indexes are known here.
   */
  mayGoOptimistic(tenantScoped: boolean): boolean {
    return (
      this.recordsHead &&
      this.quiet >= QUIET_BEFORE_OPTIMISM &&
      !tenantScoped &&
      this.knownHead > 0 &&
      this.chain?.seq === this.knownHead &&
      this.indexesRaw !== undefined
    );
  }

  /**
   * The hash of entry `head`, which the next entry carries as prev: remembered from this process's
   * last commit, else the chain head recorded with the log, else the newest entry's own line — one
   * read, however long the log.
   */
  hashAt(s: Section, head: number): string {
    if (head === 0) return GENESIS;
    if (this.chain?.seq === head) return this.chain.hash;
    if (this.recordsHead) {
      const recorded = decodeChainHead(s.read(CHAIN_READ, () => s.tx.getMeta(CHAIN_META_KEY)));
      if (recorded?.seq === head) return recorded.hash;
    }
    const last = s.read(`entry:${head}`, () => s.tx.readEntries(head - 1, 1))[0];
    if (last?.seq !== head) {
      throw new TwinError(
        'STORE_FAILED',
        `twin "${this.name}": entry ${head}, the newest, cannot be read to link the next entry to it; check the log with \`twinworld verify ${this.name}\``,
        { path: 'twin' },
      );
    }
    return lineHash(canonicalJson(last));
  }
}

/** How many of `moved` are at or before `head` (a read may answer past it, never before). */
function seenUpTo(moved: readonly TouchedEntry[], head: number): number {
  let n = moved.length;
  while (n > 0 && moved[n - 1]!.seq > head) n--;
  return n;
}
