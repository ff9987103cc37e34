// A twin: one log, its folded resources, and the atomic action that appends to it. The action
// is exclusive across processes and hosts; decide() is synchronous and sees state caught up with
// every entry anyone appended. Over an asynchronous store, a decide that reads something not yet
// loaded is run again once it is (a read-set restart: decide is pure, so re-running is safe).
// Every entry is linked to the one before it by hash (src/log/chain.ts): the link is made here,
// from the chain head kept with the log, and the root's mark of the head is checked on open.
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import {
  CHAIN_META_KEY,
  decodeChainHead,
  encodeChainHead,
  GENESIS,
  lineHash,
  type ChainHead,
} from '../log/chain.js';
import { buildEntry, validateWrite, type Entry, type Write } from '../log/write.js';
import {
  indexKeys,
  indexSignature,
  type IndexDeclaration,
  type IndexKey,
} from '../state/indexes.js';
import type { ReadView } from '../state/read-view.js';
import { foldEntry, freezeResource, resourceKey, type Resource } from '../state/resource.js';
import { compareKeys, stateHash } from '../state/state-hash.js';
import type { Awaitable, IndexDelta, StoreScope, StoreTx, TwinStore } from '../storage/port.js';
import { SyncTwinStore } from '../storage/sync-store.js';
import { ActionQueue, type Waiting } from './action-queue.js';
import { isoAt, type Clock } from './clock.js';
import {
  builtMetaKey,
  DeclaredIndexes,
  decodeDeclarations,
  INDEXES_META_KEY,
  withDeclaration,
} from './declared-indexes.js';
import { normalizeDecision as normalize, type Decision } from './decision.js';
import { MARK_EVERY, type HeadMarks } from './head-marks.js';
import { importLog, type ImportProgress } from './import-log.js';
import type { IdSource } from './ids.js';
import type { SecretStore } from './secrets.js';

/** What a twin needs of the world that opened it (World implements it). */
export interface TwinHost {
  readonly root: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly secrets: SecretStore;
  /** Where the root records how far each twin's log reached; absent for worlds in memory. */
  readonly marks?: HeadMarks | undefined;
  twin(name: string): Twin;
  reportError(error: unknown, where: string): void;
}

export interface AtomicResult<T> {
  readonly result: T;
  readonly entries: readonly Entry[];
  readonly skipped: boolean;
}

/**
 * Extensions that ride on every commit. `withinCommit` sees the entries a decide appended and
 * may add writes to the same commit (the transactional outbox: delivery records); its writes are
 * not fed back into hooks, and like decide it must be pure and synchronous. `afterCommit` runs
 * once the commit is durable.
 */
export interface CommitHooks {
  readonly name: string;
  withinCommit?(
    entries: readonly Entry[],
    view: ReadView,
    twin: Twin,
    before: (entry: Entry) => Resource | undefined,
  ): readonly Write[];
  afterCommit?(entries: readonly Entry[], twin: Twin): void;
}

export type { ImportProgress } from './import-log.js';

const CACHE_LIMIT = 20_000;
/** Entries after the known head asked for with a section's first reads, before the head is known. */
const SPECULATE = 256;
const MAX_RESTARTS = 10_000;

/** Thrown through decide when it read something the store answers asynchronously. */
const MISS: unique symbol = Symbol('twinworld.read-miss');

function isPromise<T>(value: Awaitable<T>): value is Promise<T> {
  return (
    value !== null && typeof value === 'object' && typeof (value as Promise<T>).then === 'function'
  );
}

/** One run of a section: what it loaded asynchronously, and what it will write. */
class Section {
  readonly loaded = new Map<string, unknown>();
  loads: Promise<void>[] = [];
  missed = false;
  /** decide called applyAtomic: refused, even if decide caught the refusal. */
  nested = false;
  appends: { entry: Entry; body: string; hash: string }[] = [];
  puts: { resource: Resource; delta: IndexDelta; subjectOf: number | undefined }[] = [];
  readonly staged = new Map<string, Resource>();
  readonly beforeImages = new Map<number, Resource | undefined>();
  /**
   * Resources the section's catch-up saw another process change (all: too many to tell). A row a
   * pick read ahead of the lock is current when its resource is not among them.
   */
  touched: Set<string> | 'all' = new Set();

  /**
   * `epoch` is the twin's cache epoch when the section began (or caught up). A tenant-scoped section never uses
   * the process cache: what it may see is what the store shows that tenant (row-level security
   * on PostgreSQL), and a row cached for another tenant's or a kernel-wide section must not leak.
   */
  constructor(
    readonly tx: StoreTx,
    public epoch: number,
    readonly tenantScoped = false,
  ) {}

  /** A store read: its value if the store answered at once or it was loaded before; else MISS. */
  read<T>(key: string, load: () => Awaitable<T>): T {
    if (this.loaded.has(key)) return this.loaded.get(key) as T;
    const value = load();
    if (!isPromise(value)) return value;
    this.missed = true;
    this.loads.push(value.then((v) => void this.loaded.set(key, v)));
    throw MISS;
  }

  /**
   * A store read that does not stop the run when it must wait: undefined until loaded, and the run
   * is marked to go again.
   */
  peek<T>(key: string, load: () => Awaitable<T>): T | undefined {
    if (this.loaded.has(key)) return this.loaded.get(key) as T;
    const value = load();
    if (!isPromise(value)) return value;
    this.missed = true;
    this.loads.push(value.then((v) => void this.loaded.set(key, v)));
    return undefined;
  }

  /**
   * Starts a read this run will want later, so it shares a round trip with the read that stops
   * the run; its answer is kept like any other. A failure is left for the read that needs it.
   */
  prefetch<T>(key: string, load: () => Awaitable<T>): void {
    if (this.loaded.has(key)) return;
    const value = load();
    if (!isPromise(value)) {
      this.loaded.set(key, value);
      return;
    }
    this.loads.push(value.then((v) => void this.loaded.set(key, v)).catch(() => undefined));
  }

  /** Forgets what the last run decided, keeping what it loaded. */
  reset(): void {
    this.missed = false;
    this.appends = [];
    this.puts = [];
    this.staged.clear();
    this.beforeImages.clear();
  }
}

type AnyDecide = (view: ReadView) => Decision<unknown>;

/** What one member of a group got: its own result, or its own refusal. */
type MemberOutcome =
  { ok: true; result: unknown; skipped: boolean; entries: Entry[] } | { ok: false; error: unknown };

interface GroupOutcome {
  readonly outcomes: MemberOutcome[];
  readonly staged: Map<string, Resource>;
  /** The newest entry appended and its hash, when any member appended. */
  readonly last: ChainHead | undefined;
}

function nestedError(twin: string): TwinError {
  return new TwinError(
    'INVALID_ARGUMENT',
    `twin "${twin}": applyAtomic was called from inside a decide; return all writes from the one decide instead`,
  );
}

export class Twin {
  private store: TwinStore | undefined;
  /** Opening the store and building declared indexes: every operation waits for it. */
  private init: Promise<void> | undefined;
  private readonly cache = new Map<string, Resource | null>();
  /**
   * Lookup answers as the store gave them, per type, then "index\0key": dropped for a type as soon
   * as any entry — committed here or caught up from another process — touches a resource of it.
   * What a write reads on every commit (the endpoints that take an event) rarely changes, so the
   * query per write (a round trip each on PostgreSQL) is made once per change of that type.
   */
  private readonly lookups = new Map<string, Map<string, readonly Resource[]>>();
  private knownHead = 0;
  /** The newest entry this process committed or learned of, and its hash: the next entry's prev. */
  private chain: ChainHead | undefined;
  /** The seq the root's mark holds for this twin (0: none yet). */
  private markSeq = 0;
  /**
   * Whether each commit records the chain head beside the log. A store that answers
   * asynchronously (PostgreSQL) sends it with the commit at no extra round trip, and may hide the
   * newest entry from a tenant's section, so the next append needs it. A synchronous store
   * (SQLite, memory) shows every entry, and there the extra row cost a WAL page per commit
   * (~20 µs of CPU on a single-write commit, measured): it links to the newest entry itself.
   */
  private recordsHead = false;
  /**
   * Moves on every commit of this twin: a read section that began before it (over a store whose
   * sections overlap, as on PostgreSQL) must not cache what it loaded, which may be older.
   */
  private epoch = 0;
  /** Declared here or by any process on the store (declared-indexes.ts). */
  private readonly indexes: DeclaredIndexes;
  private readonly hooks: CommitHooks[] = [];
  private section: Section | undefined;
  private readonly actions = new ActionQueue<AnyDecide, AtomicResult<unknown>>((group) =>
    this.runGroup(group),
  );
  private closed = false;

  constructor(
    readonly name: string,
    readonly world: TwinHost,
    open: () => Promise<TwinStore>,
  ) {
    this.indexes = new DeclaredIndexes(name);
    this.init = open().then(async (store) => {
      await this.checkMark(store);
      this.recordsHead = !(store instanceof SyncTwinStore);
      // Indexes any process declared: this one maintains them too, declared here or not.
      this.indexes.adopt(
        await store.transact((tx) => tx.getMeta(INDEXES_META_KEY), { readOnly: true }),
      );
      this.store = store;
    });
    this.settleInit();
  }

  private settleInit(): void {
    const current = this.init;
    void current?.then(
      () => {
        if (this.init === current) this.init = undefined;
      },
      () => undefined,
    );
  }

  private async opened(): Promise<TwinStore> {
    this.assertOpen();
    while (this.init !== undefined) await this.init;
    return this.store!;
  }

  /**
   * Refuses a database that holds fewer entries than the root recorded for it: emptied, truncated
   * or replaced by an older copy. Opening it as it is would restart the log and lose the history.
   */
  private async checkMark(store: TwinStore): Promise<void> {
    const mark = this.world.marks?.read(this.name);
    if (mark === undefined) return;
    const head = await store.head();
    if (head < mark.seq) {
      const file = this.world.marks!.file(this.name);
      throw new TwinError(
        'TWIN_LOG_MISSING',
        `twin "${this.name}" in the world at ${this.world.root} holds ${head === 0 ? 'no entries' : `only ${head} entries`}, but the root recorded that its log reached entry ${mark.seq} (${file}): its database was emptied, truncated or replaced by an older copy. Restore the database from a backup (or import an export of its log into it); if the loss is intended, delete ${file} to accept the database as it is`,
        { path: 'twin', details: { twin: this.name, head, recorded: mark.seq, file } },
      );
    }
    this.markSeq = mark.seq;
  }

  /** Moves the root's mark after a commit: at the first one, then every MARK_EVERY entries. */
  private noteHead(head: ChainHead, force: boolean): void {
    const marks = this.world.marks;
    if (marks === undefined || head.seq <= this.markSeq) return;
    if (!force && this.markSeq > 0 && head.seq - this.markSeq < MARK_EVERY) return;
    try {
      marks.write(this.name, head);
      this.markSeq = head.seq;
    } catch (error) {
      // The commit is durable; a mark that could not be written only weakens the check on open.
      this.world.reportError(error, `recording the head of twin "${this.name}" in its root`);
    }
  }

  // ---- reads ---------------------------------------------------------------------------------

  /**
   * Entries appended elsewhere since we last looked evict what they touched from the cache. When
   * the head is not known yet (the section's first run over an asynchronous store), the run goes on
   * as if nothing moved, asking at once for the entries after the known head: what it reads then
   * travels with the lock and the head in one round trip, and the run after it (its answers are
   * from the same locked snapshot) usually needs nothing more.
   */
  private catchUp(s: Section, chain = false): number {
    const head = s.peek('head', () => s.tx.head());
    const from = this.knownHead;
    if (head === undefined) {
      s.peek(`entries:${from}`, () => s.tx.readEntries(from, SPECULATE));
      return from;
    }
    if (head === from) return head;
    const moved =
      head < from || head - from > CACHE_LIMIT
        ? undefined
        : head - from <= SPECULATE && s.loaded.has(`entries:${from}`)
          ? s.read(`entries:${from}`, () => s.tx.readEntries(from, SPECULATE))
          : s.read(`entries:${from}:${head}`, () => s.tx.readEntries(from, head - from));
    const last = moved?.[moved.length - 1];
    if (last?.seq === head && head - from === moved!.length)
      // Every entry up to the head was read: the next links to the newest, hashed here.
      this.chain = { seq: head, hash: lineHash(canonicalJson(last)) };
    // Another process appended: the next entry links to its newest, read with what it touched.
    else if (chain && this.recordsHead && head > 0 && this.chain?.seq !== head)
      s.prefetch(CHAIN_READ, () => s.tx.getMeta(CHAIN_META_KEY));
    if (moved === undefined) {
      this.cache.clear();
      this.lookups.clear();
      s.touched = 'all';
    } else {
      const touch = (type: string, id: string): void => {
        const key = resourceKey(type, id);
        this.cache.delete(key);
        this.lookups.delete(type);
        if (s.touched !== 'all') s.touched.add(key);
      };
      for (const e of moved) {
        if (e.seq > head) break;
        touch(e.subjectType, e.subjectId);
        const p = e.projection;
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

  private resource(s: Section, type: string, id: string): Resource | undefined {
    const key = resourceKey(type, id);
    const staged = s.staged.get(key);
    if (staged !== undefined) return staged;
    const cached = s.tenantScoped ? undefined : this.cache.get(key);
    // Evicted in insertion order (FIFO): re-ordering on every hit cost more than the misses it saves.
    if (cached !== undefined) return cached ?? undefined;
    const stored = s.read(`get:${key}`, () => s.tx.getResource(type, id));
    const value = stored === undefined ? null : freezeResource(stored);
    if (s.epoch === this.epoch && !s.tenantScoped) this.remember(key, value);
    return value ?? undefined;
  }

  /** After a commit: what it staged is cached, and lookups of the types it touched are dropped. */
  private committed(staged: ReadonlyMap<string, Resource>): void {
    this.epoch++;
    for (const [key, value] of staged) {
      this.lookups.delete(value.type);
      this.remember(key, value);
    }
  }

  private lookupRows(s: Section, type: string, index: string, key: string): readonly Resource[] {
    const slot = `${index}\u0000${key}`;
    const cacheable = !s.tenantScoped;
    const cached = cacheable ? this.lookups.get(type)?.get(slot) : undefined;
    if (cached !== undefined) return cached;
    const rows = s
      .read(`lookup:${type}\u0000${slot}`, () => s.tx.lookup(type, index, key))
      .map(freezeResource);
    if (cacheable && s.epoch === this.epoch) {
      let byType = this.lookups.get(type);
      if (byType === undefined) this.lookups.set(type, (byType = new Map()));
      // Bounded like the resource cache: a type looked up under many keys starts over.
      if (byType.size >= CACHE_LIMIT) byType.clear();
      byType.set(slot, rows);
    }
    return rows;
  }

  private remember(key: string, value: Resource | null): void {
    this.cache.set(key, value);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
  }

  private view(s: Section, head: number): ReadView {
    return {
      head,
      get: (type, id) => this.resource(s, type, id),
      list: (type) =>
        withStaged(
          s,
          type,
          s.read(`list:${type}`, () => s.tx.listResources(type)),
          () => true,
        ),
      lookup: (type, index, key) => {
        const decls = this.declared(type, index);
        const rows = this.lookupRows(s, type, index, key);
        return withStaged(s, type, rows, (r) => indexKeys(r, decls).some((k) => k.key === key));
      },
      lookupUpTo: (type, index, maxKey, limit) => {
        const decls = this.declared(type, index);
        const rows = s.read(`upTo:${type}\u0000${index}\u0000${maxKey}\u0000${limit}`, () =>
          s.tx.lookupUpTo(type, index, maxKey, limit),
        );
        return withStagedRange(s, type, rows.map(freezeResource), decls, maxKey, limit);
      },
      pickUpTo: (type, index, maxKey, limit) => {
        const decls = this.declared(type, index);
        const tx = s.tx;
        const rows = s.read(`pick:${type}\u0000${index}\u0000${maxKey}\u0000${limit}`, () =>
          tx.pickUpTo === undefined
            ? tx.lookupUpTo(type, index, maxKey, limit)
            : tx.pickUpTo(type, index, maxKey, limit),
        );
        // The pick may have been answered ahead of the lock: a row no entry since this process's
        // known head touched is as it is now, so the decide's get of it costs no second read.
        if (s.touched !== 'all')
          for (const r of rows) {
            const key = resourceKey(r.type, r.id);
            if (!s.touched.has(key) && !s.loaded.has(`get:${key}`)) s.loaded.set(`get:${key}`, r);
          }
        return withStagedRange(s, type, rows.map(freezeResource), decls, maxKey, limit);
      },
    };
  }

  private declared(type: string, index: string): IndexDeclaration[] {
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

  /**
   * Runs a pure, synchronous read over a consistent view of the latest state (caught up with
   * every process's appends), without taking the write lock.
   */
  async read<T>(fn: (view: ReadView) => T, scope: StoreScope = {}): Promise<T> {
    const store = await this.opened();
    return store.transact((tx) => this.run(tx, (s) => fn(this.view(s, this.catchUp(s))), scope), {
      ...scope,
      readOnly: true,
    });
  }

  get(type: string, id: string): Promise<Resource | undefined> {
    return this.read((view) => view.get(type, id));
  }

  list(type: string): Promise<Resource[]> {
    return this.read((view) => view.list(type));
  }

  lookup(type: string, index: string, key: string): Promise<Resource[]> {
    return this.read((view) => view.lookup(type, index, key));
  }

  async head(): Promise<number> {
    return (await this.opened()).head();
  }

  async entries(options: { after?: number; limit?: number } = {}): Promise<Entry[]> {
    const store = await this.opened();
    return store.transact(
      (tx) => tx.readEntries(options.after ?? 0, options.limit ?? Number.MAX_SAFE_INTEGER),
      { readOnly: true },
    );
  }

  async entriesFor(type: string, id: string): Promise<Entry[]> {
    return (await this.opened()).entriesBySubject(type, id);
  }

  /** Every live resource in (type, id) order, streamed: one pass, for dumps and hashes. */
  async *liveResources(): AsyncIterable<Resource> {
    const store = await this.opened();
    for await (const r of store.liveResources()) yield freezeResource(r);
  }

  async hash(): Promise<string> {
    return stateHash((await this.opened()).liveResources());
  }

  /** The newest entry's seq and hash: what the next entry will carry as prev. */
  async chainHead(): Promise<ChainHead | undefined> {
    const store = await this.opened();
    return store.transact(
      (tx) =>
        this.run(tx, (s) => {
          const head = s.read('head', () => s.tx.head());
          return head === 0 ? undefined : { seq: head, hash: this.hashAt(s, head) };
        }),
      { readOnly: true },
    );
  }

  /**
   * The newest entry's seq and hash as the commit that appended it recorded them, on a store that
   * records them (chain.ts); undefined elsewhere.
   */
  async recordedChainHead(): Promise<ChainHead | undefined> {
    const store = await this.opened();
    return decodeChainHead(
      await store.transact((tx) => tx.getMeta(CHAIN_META_KEY), { readOnly: true }),
    );
  }

  /** Canonical JSONL lines of the whole log, streamed. */
  async *exportLines(after = 0): AsyncIterable<string> {
    const store = await this.opened();
    yield* store.entryBodies(after);
  }

  // ---- configuration -------------------------------------------------------------------------

  /**
   * Declares an indexed lookup. Keys for existing resources are built once, when first declared;
   * the build runs before this twin's next operation, which reports its failure.
   */
  declareIndex(input: IndexDeclaration): void {
    const decl = this.indexes.declare(input);
    if (decl === undefined) return;
    const before = this.init ?? Promise.resolve();
    this.init = before.then(() => this.buildIndex(decl));
    this.settleInit();
  }

  private async buildIndex(decl: IndexDeclaration): Promise<void> {
    const metaKey = builtMetaKey(decl);
    const signature = indexSignature([decl]);
    // Synchronous where the store is: a section that awaits while holding SQLite's write lock
    // would block every other connection of this process on the busy timeout.
    await this.store!.transact((tx) =>
      this.run(tx, (s) => {
        const list = s.read(INDEXES_READ, () => tx.getMeta(INDEXES_META_KEY));
        const recorded = decodeDeclarations(list).some((d) => indexSignature([d]) === signature);
        const built = s.read(`meta:${metaKey}`, () => tx.getMeta(metaKey)) === signature;
        if (built && recorded) return;
        if (!built) {
          const all = s.read(`all:${decl.type}`, () => tx.allResources(decl.type));
          tx.clearIndex(decl.type, decl.name);
          for (const r of all) tx.putResource(r, { remove: [], add: indexKeys(r, [decl]) });
          tx.setMeta(metaKey, signature);
        }
        // Recorded with the build, in one commit: every later write section of any process sees both.
        tx.setMeta(INDEXES_META_KEY, withDeclaration(list, decl));
      }),
    );
    this.lookups.delete(decl.type);
  }

  use(hooks: CommitHooks): () => void {
    if (this.hooks.some((h) => h.name === hooks.name)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `twin "${this.name}" already has commit hooks named "${hooks.name}"`,
        { path: 'hooks.name' },
      );
    }
    this.hooks.push(hooks);
    return () => {
      const i = this.hooks.indexOf(hooks);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  // ---- writes --------------------------------------------------------------------------------

  applyWrite(write: Write): Promise<Entry> {
    return this.applyAtomic(() => [write]).then((r) => r.entries[0]!);
  }

  /**
   * Brings state up to date, calls `decide` inside the twin's exclusive section and commits what
   * it returns, all or nothing. `decide` must be pure and synchronous: no await, no I/O. Over an
   * asynchronous store it may run more than once; only its last run's writes commit.
   */
  applyAtomic<T = undefined>(
    decide: (view: ReadView) => Decision<T>,
    scope: StoreScope = {},
  ): Promise<AtomicResult<T>> {
    // Thrown, not rejected: called from inside a decide, it must fail that decide, whose caller
    // would otherwise drop the promise and commit without the nested writes.
    if (this.section !== undefined) {
      this.section.nested = true;
      throw nestedError(this.name);
    }
    return this.atomic(decide, scope);
  }

  private async atomic<T>(
    decide: (view: ReadView) => Decision<T>,
    scope: StoreScope,
  ): Promise<AtomicResult<T>> {
    if (typeof decide !== 'function')
      throw new TwinError(
        'INVALID_ARGUMENT',
        'applyAtomic(decide): decide must be a function (view) => writes | commit(...) | skip()',
        { path: 'decide' },
      );
    await this.opened();
    return (await this.actions.submit(decide, scope)) as AtomicResult<T>;
  }

  /**
   * One section for a group of waiting actions (action-queue.ts): each decide in arrival order
   * against the view the ones before it left, one commit, each caller answered with its own result
   * or refusal. When the section itself fails (a write the store refuses, a lost connection), no one
   * learns which member caused it, so each is tried again alone and answered by its own attempt.
   */
  private async runGroup(group: Waiting<AnyDecide, AtomicResult<unknown>>[]): Promise<void> {
    const scope = group[0]!.scope;
    let done: GroupOutcome;
    try {
      const store = await this.opened();
      done = await store.transact(
        (tx) =>
          this.run(
            tx,
            (s) =>
              this.decideGroup(
                s,
                group.map((g) => g.action),
              ),
            scope,
          ),
        scope,
      );
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else for (const member of group) await this.runGroup([member]);
      return;
    }
    if (done.last !== undefined) {
      this.knownHead = done.last.seq;
      this.committed(done.staged);
      this.chain = done.last;
      this.noteHead(done.last, false);
      for (const o of done.outcomes) if (o.ok && o.entries.length > 0) this.afterCommit(o.entries);
    }
    done.outcomes.forEach((o, i) => {
      if (o.ok) group[i]!.resolve({ result: o.result, entries: o.entries, skipped: o.skipped });
      else group[i]!.reject(o.error);
    });
  }

  private afterCommit(entries: readonly Entry[]): void {
    for (const hook of this.hooks) {
      if (hook.afterCommit === undefined) continue;
      try {
        hook.afterCommit(entries, this);
      } catch (error) {
        // The commit is durable: a failing observer must not turn it into an error for the writer.
        this.world.reportError(error, `afterCommit hook "${hook.name}" of twin "${this.name}"`);
      }
    }
  }

  /**
   * Decides every member in turn after one catch-up. A member that throws (or is refused) has what
   * it staged taken back, so the next sees the view as if it never ran and the log stays dense.
   */
  private decideGroup(s: Section, decides: readonly AnyDecide[]): GroupOutcome {
    const head = this.catchUp(s, true);
    this.adoptIndexes(s);
    // Once a run must wait for a load, the members after it still run, so that every read the
    // group needs leaves in the same round trip; only a run that waited for nothing commits.
    let waiting = s.missed;
    const outcomes = decides.map((decide): MemberOutcome => {
      const at = {
        appends: s.appends.length,
        puts: s.puts.length,
        staged: decides.length > 1 ? new Map(s.staged) : undefined,
      };
      s.missed = false;
      try {
        const outcome = this.decideAndFold(s, head, decide);
        if (s.nested) throw nestedError(this.name);
        return { ok: true, ...outcome };
      } catch (error) {
        s.nested = false;
        s.appends.length = at.appends;
        s.puts.length = at.puts;
        if (at.staged !== undefined) {
          s.staged.clear();
          for (const [key, value] of at.staged) s.staged.set(key, value);
        }
        if (error === MISS || s.missed) waiting = true;
        return { ok: false, error };
      } finally {
        s.missed = waiting;
      }
    });
    if (waiting) throw MISS;
    return { outcomes, staged: s.staged, last: lastOf(s) };
  }

  /**
   * Runs `body` inside a store section: at once when every read answers synchronously, else again
   * after each round of loads. The id source replays a re-run's draws (mark/reset/release), so
   * ids drawn by the final run are the ones a synchronous store would have drawn, and a decide that
   * reads what it just drew (a new id's row) finds the same key on every run.
   */
  private run<T>(tx: StoreTx, body: (s: Section) => T, scope: StoreScope = {}): Awaitable<T> {
    const s = new Section(tx, this.epoch, scope.tenant !== undefined);
    const ids = this.world.ids;
    const mark = ids.mark();
    const once = (): T | typeof MISS => {
      this.section = s;
      try {
        const value = body(s);
        if (s.nested) throw nestedError(this.name);
        if (s.missed) throw MISS; // decide swallowed a miss: its answer is not to be trusted
        for (const a of s.appends) tx.append(a.entry, a.body);
        const last = s.appends[s.appends.length - 1];
        if (last !== undefined && this.recordsHead)
          tx.setMeta(CHAIN_META_KEY, encodeChainHead({ seq: last.entry.seq, hash: last.hash }));
        for (const p of s.puts) tx.putResource(p.resource, p.delta, p.subjectOf);
        return value;
      } catch (error) {
        if (error !== MISS && !s.missed) throw error;
        s.reset();
        return MISS;
      } finally {
        this.section = undefined;
        ids.release?.(mark);
      }
    };
    const first = once();
    if (first !== MISS) return first;
    return (async () => {
      for (let i = 0; i < MAX_RESTARTS; i++) {
        const loads = s.loads;
        s.loads = [];
        await Promise.all(loads);
        ids.reset(mark);
        const next = once();
        if (next !== MISS) return next;
      }
      throw new TwinError(
        'UNSTABLE_DECIDE',
        `twin "${this.name}": decide read new keys on each of ${MAX_RESTARTS} runs; a decide must be pure, so the same state gives the same reads`,
      );
    })();
  }

  private decideAndFold<T>(
    s: Section,
    head: number,
    decide: (view: ReadView) => Decision<T>,
  ): { result: T; skipped: boolean; entries: Entry[] } {
    const decision = decide(this.view(s, head + s.appends.length)) as
      Decision<T> | PromiseLike<unknown>;
    if (
      decision !== null &&
      typeof decision === 'object' &&
      typeof (decision as PromiseLike<unknown>).then === 'function'
    ) {
      throw new TwinError(
        'ASYNC_DECIDE',
        `twin "${this.name}": decide returned a promise; decide must be synchronous — do the async work first, then decide`,
      );
    }
    if (s.missed) throw MISS;
    const { writes, result, skipped } = normalize(decision as Decision<T>);
    if (skipped) return { result, skipped, entries: [] };
    const decided = writes.map((w, i) =>
      this.appendOne(s, head, w, writes.length === 1 ? 'write' : `writes[${i}]`),
    );
    const entries = [...decided];
    for (const hook of this.hooks) {
      if (hook.withinCommit === undefined) continue;
      const extra = hook.withinCommit(decided, this.view(s, head + s.appends.length), this, (e) =>
        s.beforeImages.get(e.seq),
      );
      extra.forEach((w, i) => entries.push(this.appendOne(s, head, w, `${hook.name}[${i}]`)));
    }
    return { result, skipped, entries };
  }

  /** Indexes another process declared since this one last looked: this write maintains them too. */
  private adoptIndexes(s: Section): void {
    // Asked for with the section's first reads; a run that must wait anyway adopts on the next.
    const stored = s.peek(INDEXES_READ, () => s.tx.getMeta(INDEXES_META_KEY));
    if (s.missed) return;
    for (const type of this.indexes.adopt(stored)) this.lookups.delete(type);
  }

  /**
   * The hash of entry `head`, which the next entry carries as prev: remembered from this process's
   * last commit, else the chain head recorded with the log, else the newest entry's own line — one
   * read, however long the log.
   */
  private hashAt(s: Section, head: number): string {
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

  private appendOne(s: Section, head: number, input: Write, path: string): Entry {
    const write = validateWrite(input, path);
    const before = s.appends[s.appends.length - 1];
    const prev = before === undefined ? this.hashAt(s, head) : before.hash;
    const { entry, line } = buildEntry(
      write,
      {
        seq: head + s.appends.length + 1,
        writeId: this.world.ids.ksuid(),
        twin: this.name,
        recordedAt: isoAt(this.world.clock.now()),
        prev,
      },
      path,
    );
    this.stageEntry(s, entry, line);
    return entry;
  }

  private stageEntry(s: Section, entry: Entry, body: string, hash = lineHash(body)): void {
    s.appends.push({ entry, body, hash });
    if (this.hooks.length > 0)
      s.beforeImages.set(entry.seq, this.resource(s, entry.subjectType, entry.subjectId));
    foldEntry(entry, (t, i) => this.resource(s, t, i)).forEach((next, i) => {
      const decls = this.indexes.of(next.type);
      const delta =
        decls.length === 0
          ? NO_DELTA
          : diffKeys(
              indexKeys(this.resource(s, next.type, next.id), decls),
              indexKeys(next, decls),
            );
      // foldEntry yields the subject first
      s.puts.push({ resource: next, delta, subjectOf: i === 0 ? entry.seq : undefined });
      s.staged.set(resourceKey(next.type, next.id), next);
    });
  }

  // ---- files ---------------------------------------------------------------------------------

  /**
   * Appends entries from JSONL lines (see import-log.ts). An entry already present (same seq and
   * writeId) is skipped, so an interrupted import can be run again. A malformed line, or a line
   * whose hash chain is broken, stops the import there, naming its number; every line before it
   * stays committed. Commit hooks do not run: this is history.
   */
  async importLines(
    lines: Iterable<string> | AsyncIterable<string>,
    onProgress?: (p: ImportProgress) => void,
  ): Promise<ImportProgress> {
    const store = await this.opened();
    return importLog(
      {
        name: this.name,
        head: () => store.head(),
        hashAt: (seq) =>
          store.transact((tx) => this.run(tx, (s) => this.hashAt(s, seq)), { readOnly: true }),
        entryAt: async (seq) =>
          (await store.transact((tx) => tx.readEntries(seq - 1, 1), { readOnly: true }))[0],
        append: async (items) => {
          const staged = await store.transact((tx) =>
            this.run(tx, (s) => {
              s.prefetch(INDEXES_READ, () => s.tx.getMeta(INDEXES_META_KEY));
              this.catchUp(s);
              this.adoptIndexes(s);
              for (const item of items) this.stageEntry(s, item.entry, item.body, item.hash);
              return s.staged;
            }),
          );
          this.committed(staged);
          this.knownHead += items.length;
          const last = items[items.length - 1]!;
          this.chain = { seq: last.entry.seq, hash: last.hash };
          this.noteHead(this.chain, false);
        },
      },
      lines,
      onProgress,
    );
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed)
      throw new TwinError(
        'WORLD_CLOSED',
        `twin "${this.name}" is closed; open the world again to use it`,
      );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.init?.catch(() => undefined);
    if (this.chain !== undefined) this.noteHead(this.chain, true);
    await this.store?.close();
  }
}

const NO_DELTA: IndexDelta = { remove: [], add: [] };

/** The section-read key of the twin's recorded index declarations. */
const INDEXES_READ = `meta:${INDEXES_META_KEY}`;

/** The section-read key of the recorded chain head. */
const CHAIN_READ = `meta:${CHAIN_META_KEY}`;

function lastOf(s: Section): ChainHead | undefined {
  const last = s.appends[s.appends.length - 1];
  return last === undefined ? undefined : { seq: last.entry.seq, hash: last.hash };
}

/**
 * A list or lookup as the store answered it, with what this section staged laid over it: the
 * store may not hold a section's writes until commit, yet a commit hook must see the endpoint
 * the same decide created (a new hook's ping).
 */
function withStaged(
  s: Section,
  type: string,
  stored: readonly Resource[],
  keep: (r: Resource) => boolean,
): Resource[] {
  const out = stored.map(freezeResource);
  if (s.staged.size === 0) return out;
  let changed = false;
  const byId = new Map(out.map((r) => [r.id, r]));
  for (const r of s.staged.values()) {
    if (r.type !== type) continue;
    changed = true;
    if (!r.deleted && keep(r)) byId.set(r.id, r);
    else byId.delete(r.id);
  }
  if (!changed) return out;
  return [...byId.values()].sort((a, b) => compareKeys(a.id, b.id));
}

/** A range as the store answered it, with this section's staged writes laid over it, in (key, id) order. */
function withStagedRange(
  s: Section,
  type: string,
  stored: Resource[],
  decls: readonly IndexDeclaration[],
  maxKey: string,
  limit: number,
): Resource[] {
  if (s.staged.size === 0) return stored;
  const keyOf = (r: Resource): string | undefined =>
    indexKeys(r, decls)
      .map((k) => k.key)
      .filter((k) => compareKeys(k, maxKey) <= 0)
      .sort(compareKeys)[0];
  const byId = new Map<string, { r: Resource; key: string }>();
  for (const r of stored) byId.set(r.id, { r, key: keyOf(r) ?? maxKey });
  for (const r of s.staged.values()) {
    if (r.type !== type) continue;
    const key = r.deleted ? undefined : keyOf(r);
    if (key === undefined) byId.delete(r.id);
    else byId.set(r.id, { r, key });
  }
  return [...byId.values()]
    .sort((a, b) => compareKeys(a.key, b.key) || compareKeys(a.r.id, b.r.id))
    .slice(0, limit)
    .map((x) => x.r);
}

function diffKeys(before: IndexKey[], after: IndexKey[]): IndexDelta {
  const id = (k: IndexKey): string => `${k.name}\u0000${k.key}`;
  const b = new Set(before.map(id));
  const a = new Set(after.map(id));
  return { remove: before.filter((k) => !a.has(id(k))), add: after.filter((k) => !b.has(id(k))) };
}
