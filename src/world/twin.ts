// A twin: one log, its folded resources, and the atomic action that appends to it. The action
// is exclusive across processes and hosts; decide() is synchronous and sees state caught up with
// every entry anyone appended. Over an asynchronous store, a decide that reads something not yet
// loaded is run again once it is (a read-set restart: decide is pure, so re-running is safe).
// Every entry is linked to the one before it by hash (src/log/chain.ts): the link is made here,
// from the chain head kept with the log, and the root's mark of the head is checked on open.
// This file is the façade; a section's run and restart are in section.ts, the caches and catch-up
// in twin-state.ts, the decide's view in twin-view.ts, a group's decides in group-run.ts, and
// staging an entry in stage-entry.ts.
import { checkCallback, TwinError } from '../errors.js';
import { CHAIN_META_KEY, decodeChainHead, type ChainHead } from '../log/chain.js';
import type { Entry, Write } from '../log/write.js';
import type { IndexDeclaration } from '../state/indexes.js';
import { RetriedSteps } from './retried-steps.js';
import type { ReadView } from '../state/read-view.js';
import { freezeResource, type Resource } from '../state/resource.js';
import { stateHash } from '../state/state-hash.js';
import {
  HeadMoved,
  RowPresent,
  type Awaitable,
  type StoreScope,
  type StoreTx,
  type TwinStore,
} from '../storage/port.js';
import { SyncTwinStore } from '../storage/sync-store.js';
import { ActionQueue, type Waiting } from './action-queue.js';
import { observeCommit } from './after-commit.js';
import type { Clock } from './clock.js';
import { INDEXES_META_KEY } from './declared-indexes.js';
import type { Decision } from './decision.js';
import { MARK_EVERY, type HeadMarks } from './head-marks.js';
import { importLog, type ImportProgress } from './import-log.js';
import type { IdSource } from './ids.js';
import type { SecretStore } from './secrets.js';
import {
  decideGroup,
  groupRunOf,
  joiningGroup,
  type AnyDecide,
  type GroupOutcome,
  type GroupRun,
} from './group-run.js';
import { nestedError, runSection } from './section.js';
import type { RunContext, Section, SectionDraws } from './section.js';
import { stageEntry, type StageContext } from './stage-entry.js';
import { INDEXES_READ, TwinState } from './twin-state.js';
import { buildIndexIn } from './build-index.js';
import {
  checkEntriesOptions,
  checkLogCount,
  checkLookup,
  checkResourceRef,
} from './read-arguments.js';
import { checkedMark } from './twin-mark.js';
import { sectionView } from './twin-view.js';
import { addCommitHooks } from './commit-hooks.js';

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

export class Twin {
  private store: TwinStore | undefined;
  /** Opening the store and building declared indexes: every operation waits for them. */
  private readonly init = new RetriedSteps(
    () => this.prepare(),
    () => this.store === undefined || this.unbuilt.length > 0,
  );
  /** Indexes declared and not built yet: a build that failed is tried again, never dropped. */
  private readonly unbuilt: IndexDeclaration[] = [];
  /** Caches, the known head and chain link, the declared indexes (twin-state.ts). */
  private readonly state: TwinState;
  private readonly runContext: RunContext;
  /** The seq the root's mark holds for this twin (0: none yet). */
  private markSeq = 0;
  private readonly hooks: CommitHooks[] = [];
  private section: Section | undefined;
  private readonly actions = new ActionQueue<AnyDecide, AtomicResult<unknown>>((group) =>
    this.runGroup(group),
  );
  private closed = false;

  constructor(
    readonly name: string,
    readonly world: TwinHost,
    private readonly openStore: () => Promise<TwinStore>,
  ) {
    this.state = new TwinState(name);
    const state = this.state;
    this.runContext = {
      name,
      ids: world.ids,
      get recordsHead(): boolean {
        return state.recordsHead;
      },
      enter: (s) => {
        this.section = s;
      },
    };
    this.init.again();
  }

  /** Opens the store if it is not open yet, then builds the indexes declared since. */
  private async prepare(): Promise<void> {
    if (this.store === undefined) {
      // The backend keeps what it opened by name: a retry after a failed check gets the same one.
      const store = await this.openStore();
      await this.checkMark(store);
      this.state.recordsHead = !(store instanceof SyncTwinStore);
      // Indexes any process declared: this one maintains them too, declared here or not.
      this.state.adoptStored(
        await store.transact((tx) => tx.getMeta(INDEXES_META_KEY), { readOnly: true }),
      );
      this.store = store;
    }
    while (this.unbuilt.length > 0) {
      await this.buildIndex(this.unbuilt[0]!);
      this.unbuilt.shift();
    }
  }

  private async opened(): Promise<TwinStore> {
    this.assertOpen();
    await this.init.done();
    return this.store!;
  }

  /** Refuses a database that holds fewer entries than the root recorded (twin-mark.ts). */
  private async checkMark(store: TwinStore): Promise<void> {
    this.markSeq = await checkedMark(this.world, this.name, store);
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
   * Runs a pure, synchronous read over a consistent view of the latest state (caught up with
   * every process's appends), without taking the write lock.
   */
  async read<T>(fn: (view: ReadView) => T, scope: StoreScope = {}): Promise<T> {
    checkCallback('read(fn)', fn);
    const store = await this.opened();
    return store.transact(
      (tx) => this.run(tx, (s) => fn(sectionView(this.state, s, this.state.catchUp(s))), scope),
      {
        ...scope,
        readOnly: true,
      },
    );
  }

  get(type: string, id: string): Promise<Resource | undefined> {
    checkResourceRef('get', type, id);
    return this.read((view) => view.get(type, id));
  }

  list(type: string): Promise<Resource[]> {
    checkResourceRef('list', type);
    return this.read((view) => view.list(type));
  }

  lookup(type: string, index: string, key: string): Promise<Resource[]> {
    checkLookup(type, index, key);
    return this.read((view) => view.lookup(type, index, key));
  }

  async head(): Promise<number> {
    return (await this.opened()).head();
  }

  async entries(options: { after?: number; limit?: number } = {}): Promise<Entry[]> {
    checkEntriesOptions(options);
    const store = await this.opened();
    return store.transact(
      (tx) => tx.readEntries(options.after ?? 0, options.limit ?? Number.MAX_SAFE_INTEGER),
      { readOnly: true },
    );
  }

  async entriesFor(type: string, id: string): Promise<Entry[]> {
    checkResourceRef('entriesFor', type, id);
    return (await this.opened()).entriesBySubject(type, id);
  }

  /**
   * Every live resource in (type, id) order, streamed: one pass, for dumps and hashes; with
   * `after`, only those past it (a seek, not a scan).
   */
  async *liveResources(after?: { type: string; id: string }): AsyncIterable<Resource> {
    const store = await this.opened();
    for await (const r of store.liveResources(after)) yield freezeResource(r);
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
          return head === 0 ? undefined : { seq: head, hash: this.state.hashAt(s, head) };
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
    checkLogCount(after, 'after', 0);
    const store = await this.opened();
    yield* store.entryBodies(after);
  }

  // ---- configuration -------------------------------------------------------------------------

  /**
   * Declares an indexed lookup. Keys for existing resources are built once, when first declared;
   * the build runs before this twin's next operation, which reports its failure.
   */
  declareIndex(input: IndexDeclaration): void {
    const decl = this.state.indexes.declare(input);
    if (decl === undefined) return;
    this.unbuilt.push(decl);
    this.init.again();
  }

  private async buildIndex(decl: IndexDeclaration): Promise<void> {
    const stored = await this.store!.transact((tx) =>
      this.run(tx, (s) => buildIndexIn(tx, s, decl)),
    );
    this.state.adoptStored(stored);
    this.state.lookups.delete(decl.type);
  }

  use(hooks: CommitHooks): () => void {
    return addCommitHooks(this.hooks, hooks, this.name);
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
  private async runGroup(
    group: Waiting<AnyDecide, AtomicResult<unknown>>[],
    joining = true,
    /** Set after a guess failed: the mark of that section's draws, drawn again, and no guess. */
    guessed?: unknown,
  ): Promise<void> {
    const scope = group[0]!.scope;
    // Nothing moved as far as this process knows: the first run reads no head and commits under
    // the condition that nothing did (one round trip); if something had, the group runs again.
    const optimistic =
      guessed === undefined && this.state.mayGoOptimistic(scope.tenant !== undefined);
    const draws: SectionDraws = { mark: guessed };
    let done: GroupOutcome;
    try {
      const store = await this.opened();
      done = await store.transact(
        (tx) =>
          this.state.hints.during(tx, optimistic, this.world.clock, () =>
            this.run(
              tx,
              joiningGroup(
                this.actions,
                group,
                (s, decides, joinedFrom) => decideGroup(this.groupRun(), s, decides, joinedFrom),
                joining,
              ),
              scope,
              optimistic,
              draws,
            ),
          ),
        scope,
      );
    } catch (error) {
      // A row taken for absent exists (a seeded source drew its ids again): nobody else appended,
      // so the process stays optimistic, but this group runs again, drawing the same ids and
      // reading what it guessed, as if it had never guessed.
      if (error instanceof RowPresent) return this.runGroup(group, joining, draws.mark);
      if (error instanceof HeadMoved) {
        this.state.quiet = 0;
        return this.runGroup(group, joining);
      }
      if (group.length === 1) group[0]!.reject(error);
      // Alone, and joined by nobody: the members keep their order before later arrivals, and one
      // the store refuses is answered instead of tried again with whoever came meanwhile.
      else for (const member of group) await this.runGroup([member], false);
      return;
    }
    if (done.last !== undefined) {
      this.state.hints.committed(done.last.seq);
      this.state.knownHead = done.last.seq;
      this.state.committed(done.staged, done.puts);
      this.state.chain = done.last;
      this.noteHead(done.last, false);
      for (const o of done.outcomes)
        if (o.ok && o.entries.length > 0)
          observeCommit(this.hooks, o.entries, this, (e, where) =>
            this.world.reportError(e, where),
          );
    }
    done.outcomes.forEach((o, i) => {
      if (o.ok) group[i]!.resolve({ result: o.result, entries: o.entries, skipped: o.skipped });
      else group[i]!.reject(o.error);
    });
  }

  /** Runs `body` in a section of the store (section.ts: the read-set restart). */
  private run<T>(
    tx: StoreTx,
    body: (s: Section) => T,
    scope: StoreScope = {},
    optimistic = false,
    draws?: SectionDraws,
  ): Awaitable<T> {
    const tenantScoped = scope.tenant !== undefined;
    return runSection(tx, body, this.runContext, this.state.epoch, tenantScoped, optimistic, draws);
  }

  private staging(): StageContext {
    return { ids: this.world.ids, clock: this.world.clock, keepBefore: this.hooks.length > 0 };
  }

  /** What a group section needs of this twin: its state, how to stage, its hooks' writes. */
  private groupRun(): GroupRun {
    return groupRunOf(this.state, this.staging(), this.hooks, this);
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
          store.transact((tx) => this.run(tx, (s) => this.state.hashAt(s, seq)), {
            readOnly: true,
          }),
        entryAt: async (seq) =>
          (await store.transact((tx) => tx.readEntries(seq - 1, 1), { readOnly: true }))[0],
        append: async (items) => {
          const staged = await store.transact((tx) =>
            this.run(tx, (s) => {
              s.prefetch(INDEXES_READ, () => s.tx.getMeta(INDEXES_META_KEY));
              this.state.catchUp(s);
              this.state.adoptIndexes(s);
              for (const item of items)
                stageEntry(this.state, this.staging(), s, item.entry, item.body, item.hash);
              return s.staged;
            }),
          );
          this.state.committed(staged);
          this.state.knownHead += items.length;
          const last = items[items.length - 1]!;
          this.state.chain = { seq: last.entry.seq, hash: last.hash };
          this.noteHead(this.state.chain, false);
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
    await this.init.settled();
    if (this.state.chain !== undefined) this.noteHead(this.state.chain, true);
    await this.store?.close();
  }
}
