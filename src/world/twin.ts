// A twin: one log, its folded resources, and the atomic action that appends to it. The action
// is exclusive across processes; decide() is synchronous and sees state caught up with every
// entry any process appended.
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import type { TwinStore } from '../storage/port.js';
import { buildEntry, validateEntry, validateWrite, type Entry, type Write } from '../log/write.js';
import { indexKeys, indexSignature, validateIndex, type IndexDeclaration, type IndexKey } from '../state/indexes.js';
import type { ReadView } from '../state/read-view.js';
import { foldEntry, freezeResource, resourceKey, type Resource } from '../state/resource.js';
import { stateHash } from '../state/state-hash.js';
import { isoAt } from './clock.js';
import { normalizeDecision as normalize, type Decision } from './decision.js';
import type { Clock } from './clock.js';
import type { IdSource } from './ids.js';
import type { SecretStore } from './secrets.js';

export interface AtomicResult<T> {
  readonly result: T;
  readonly entries: readonly Entry[];
  readonly skipped: boolean;
}

/**
 * Extensions that ride on every commit. `withinCommit` sees the entries a decide appended and
 * may add writes to the same commit (the transactional outbox: delivery records); its writes are
 * not fed back into hooks. `afterCommit` runs once the commit is durable, in the world's scope.
 */
export interface CommitHooks {
  readonly name: string;
  withinCommit?(entries: readonly Entry[], view: ReadView, twin: Twin, before: (entry: Entry) => Resource | undefined): readonly Write[];
  afterCommit?(entries: readonly Entry[], twin: Twin): void;
}

export interface ImportProgress {
  readonly line: number;
  readonly appended: number;
  readonly skipped: number;
}

/** What a twin needs of the world that opened it (World implements it). */
export interface TwinHost {
  readonly root: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly secrets: SecretStore;
  twin(name: string): Twin;
  reportError(error: unknown, where: string): void;
}

const CACHE_LIMIT = 20_000;
const IMPORT_BATCH = 1_000;

export class Twin {
  private readonly cache = new Map<string, Resource | null>();
  private knownHead = 0;
  private indexes: IndexDeclaration[] = [];
  private readonly indexesByType = new Map<string, IndexDeclaration[]>();
  private readonly hooks: CommitHooks[] = [];
  private pending: Map<string, Resource> | undefined;
  /** Entries appended so far in the open section: the next seq is knownHead + this + 1. */
  private sectionAppends = 0;
  /** Each appended entry's subject as it was just before that entry, for hooks that render changes. */
  private readonly beforeImages = new Map<number, Resource | undefined>();
  private closed = false;

  constructor(
    readonly name: string,
    readonly world: TwinHost,
    private readonly store: TwinStore,
  ) {
    this.knownHead = store.head();
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** Entries other processes appended since we last looked evict what they touched from the cache. */
  private catchUp(): number {
    const head = this.store.head();
    if (head === this.knownHead) return head;
    if (head < this.knownHead || head - this.knownHead > CACHE_LIMIT) {
      this.cache.clear();
    } else {
      for (const e of this.store.readEntries(this.knownHead, head - this.knownHead)) {
        this.cache.delete(resourceKey(e.subjectType, e.subjectId));
        const p = e.projection;
        if (p !== undefined) for (const r of [...(p.creates ?? []), ...(p.updates ?? []), ...(p.deletes ?? [])]) this.cache.delete(resourceKey(r.type, r.id));
      }
    }
    this.knownHead = head;
    return head;
  }

  private read(type: string, id: string): Resource | undefined {
    const key = resourceKey(type, id);
    const staged = this.pending?.get(key);
    if (staged !== undefined) return staged;
    const cached = this.cache.get(key);
    // Evicted in insertion order (FIFO): re-ordering on every hit cost more than the misses it saves.
    if (cached !== undefined) return cached ?? undefined;
    const stored = this.store.getResource(type, id);
    const value = stored === undefined ? null : freezeResource(stored);
    this.remember(key, value);
    return value ?? undefined;
  }

  private remember(key: string, value: Resource | null): void {
    this.cache.set(key, value);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
  }

  private view(head: number): ReadView {
    return {
      head,
      get: (type, id) => this.read(type, id),
      list: (type) => this.store.listResources(type).map(freezeResource),
      lookup: (type, index, key) => {
        if (!this.indexesByType.get(type)?.some((d) => d.name === index)) {
          throw new TwinError('INVALID_ARGUMENT', `twin "${this.name}" has no index "${index}" on type "${type}"; declare it with twin.declareIndex({type, name, field})`, { path: 'index' });
        }
        return this.store.lookup(type, index, key).map(freezeResource);
      },
    };
  }

  /** A view of the latest state, caught up with every process's appends. */
  state(): ReadView {
    this.assertOpen();
    return this.view(this.catchUp());
  }

  get(type: string, id: string): Resource | undefined {
    return this.state().get(type, id);
  }

  list(type: string): Resource[] {
    return this.state().list(type);
  }

  lookup(type: string, index: string, key: string): Resource[] {
    return this.state().lookup(type, index, key);
  }

  head(): number {
    this.assertOpen();
    return this.store.head();
  }

  entries(options: { after?: number; limit?: number } = {}): Entry[] {
    this.assertOpen();
    return this.store.readEntries(options.after ?? 0, options.limit ?? Number.MAX_SAFE_INTEGER);
  }

  entriesFor(type: string, id: string): Entry[] {
    this.assertOpen();
    return this.store.entriesBySubject(type, id);
  }

  /** Every live resource in (type, id) order, streamed: one pass, for dumps and hashes. */
  *liveResources(): Iterable<Resource> {
    this.assertOpen();
    for (const r of this.store.liveResources()) yield freezeResource(r);
  }

  hash(): string {
    this.assertOpen();
    return stateHash(this.store.liveResources());
  }

  /** Canonical JSONL lines of the whole log, streamed. */
  exportLines(after = 0): Iterable<string> {
    this.assertOpen();
    return this.store.entryBodies(after);
  }

  // ---- configuration -------------------------------------------------------------------------

  /** Declares an indexed lookup; keys for existing resources are built once, when first declared. */
  declareIndex(input: IndexDeclaration): void {
    const decl = validateIndex(input);
    const existing = this.indexes.find((d) => d.type === decl.type && d.name === decl.name);
    if (existing !== undefined) {
      if (existing.field !== decl.field) {
        throw new TwinError('INVALID_ARGUMENT', `twin "${this.name}": index "${decl.name}" on "${decl.type}" is already declared on field "${existing.field}"; pick another name`, { path: 'index.name' });
      }
      return;
    }
    this.indexes = [...this.indexes, decl];
    this.indexesByType.set(decl.type, [...(this.indexesByType.get(decl.type) ?? []), decl]);
    const metaKey = `index:${decl.type}:${decl.name}`;
    const signature = indexSignature([decl]);
    if (this.store.getMeta(metaKey) === signature) return;
    this.store.exclusive(() => {
      if (this.store.getMeta(metaKey) === signature) return;
      this.store.clearIndex(decl.type, decl.name);
      for (const r of this.store.allResources(decl.type)) this.store.putResource(r, { remove: [], add: indexKeys(r, [decl]) });
      this.store.setMeta(metaKey, signature);
    });
  }

  use(hooks: CommitHooks): () => void {
    if (this.hooks.some((h) => h.name === hooks.name)) {
      throw new TwinError('INVALID_ARGUMENT', `twin "${this.name}" already has commit hooks named "${hooks.name}"`, { path: 'hooks.name' });
    }
    this.hooks.push(hooks);
    return () => {
      const i = this.hooks.indexOf(hooks);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  // ---- writes --------------------------------------------------------------------------------

  applyWrite(write: Write): Entry {
    return this.applyAtomic(() => [write]).entries[0]!;
  }

  /**
   * Brings state up to date, calls `decide` once inside the twin's exclusive section and commits
   * what it returns, all or nothing. `decide` must be synchronous: no await, no I/O.
   */
  applyAtomic<T = undefined>(decide: (view: ReadView) => Decision<T>): AtomicResult<T> {
    this.assertOpen();
    if (typeof decide !== 'function') throw new TwinError('INVALID_ARGUMENT', 'applyAtomic(decide): decide must be a function (view) => writes | commit(...) | skip()', { path: 'decide' });
    if (this.pending !== undefined) {
      throw new TwinError('INVALID_ARGUMENT', `twin "${this.name}": applyAtomic was called from inside a decide; return all writes from the one decide instead`);
    }
    let appended: Entry[] = [];
    let outcome: { result: T; skipped: boolean } | undefined;
    const pending = new Map<string, Resource>();
    try {
      this.store.exclusive(() => {
        this.pending = pending;
        this.sectionAppends = 0;
        appended = [];
        const head = this.catchUp();
        const view = this.view(head);
        const decision = decide(view) as Decision<T> | PromiseLike<unknown>;
        if (decision !== null && typeof decision === 'object' && typeof (decision as PromiseLike<unknown>).then === 'function') {
          throw new TwinError('ASYNC_DECIDE', `twin "${this.name}": decide returned a promise; decide must be synchronous — do the async work first, then decide`);
        }
        const { writes, result, skipped } = normalize(decision as Decision<T>);
        outcome = { result, skipped };
        if (skipped) return;
        const decided = writes.map((w, i) => this.appendOne(w, writes.length === 1 ? 'write' : `writes[${i}]`));
        appended.push(...decided);
        for (const hook of this.hooks) {
          if (hook.withinCommit === undefined) continue;
          const extra = hook.withinCommit(decided, this.view(this.knownHead + appended.length), this, (e) => this.beforeImages.get(e.seq));
          extra.forEach((w, i) => appended.push(this.appendOne(w, `${hook.name}[${i}]`)));
        }
      });
    } finally {
      this.pending = undefined;
      this.sectionAppends = 0;
      this.beforeImages.clear();
    }
    if (appended.length > 0) {
      this.knownHead += appended.length;
      for (const [key, value] of pending) this.remember(key, value);
      for (const hook of this.hooks) {
        if (hook.afterCommit === undefined) continue;
        try {
          hook.afterCommit(appended, this);
        } catch (error) {
          // The commit is durable: a failing observer must not turn it into an error for the writer.
          this.world.reportError(error, `afterCommit hook "${hook.name}" of twin "${this.name}"`);
        }
      }
    }
    return { result: outcome!.result, entries: appended, skipped: outcome!.skipped };
  }

  private appendOne(input: Write, path: string): Entry {
    const write = validateWrite(input, path);
    const { entry, line } = buildEntry(write, { seq: this.knownHead + this.sectionAppends + 1, writeId: this.world.ids.ksuid(), twin: this.name, recordedAt: isoAt(this.world.clock.now()) }, path);
    this.commitEntry(entry, line);
    return entry;
  }

  private commitEntry(entry: Entry, body: string): void {
    const pending = this.pending!;
    this.store.append(entry, body);
    this.sectionAppends++;
    if (this.hooks.length > 0) this.beforeImages.set(entry.seq, this.read(entry.subjectType, entry.subjectId));
    foldEntry(entry, (t, i) => this.read(t, i)).forEach((next, i) => {
      const decls = this.indexesByType.get(next.type) ?? [];
      const delta = decls.length === 0 ? NO_DELTA : diffKeys(indexKeys(this.read(next.type, next.id), decls), indexKeys(next, decls));
      // foldEntry yields the subject first
      this.store.putResource(next, delta, i === 0 ? entry.seq : undefined);
      pending.set(resourceKey(next.type, next.id), next);
    });
  }

  // ---- files ---------------------------------------------------------------------------------

  /**
   * Appends entries from JSONL lines. An entry already present (same seq and writeId) is skipped,
   * so an interrupted import can be run again. A malformed line stops the import there, naming
   * its number; every line before it stays committed. Commit hooks do not run: this is history.
   */
  async importLines(lines: Iterable<string> | AsyncIterable<string>, onProgress?: (p: ImportProgress) => void): Promise<ImportProgress> {
    this.assertOpen();
    let lineNo = 0;
    let appended = 0;
    let skippedCount = 0;
    let batch: { entry: Entry; body: string }[] = [];
    const flush = (): void => {
      if (batch.length === 0) return;
      const items = batch;
      batch = [];
      this.store.exclusive(() => {
        this.pending = new Map();
        try {
          this.catchUp();
          this.sectionAppends = 0;
          for (const item of items) this.commitEntry(item.entry, item.body);
          for (const [key, value] of this.pending) this.remember(key, value);
        } finally {
          this.pending = undefined;
          this.sectionAppends = 0;
          this.beforeImages.clear();
        }
      });
      this.knownHead += items.length;
      appended += items.length;
    };
    let expected = this.store.head() + 1;
    for await (const raw of lines) {
      lineNo++;
      const line = raw.trim();
      if (line === '') continue;
      let entry: Entry;
      try {
        entry = validateEntry(JSON.parse(line), `line ${lineNo}`);
      } catch (error) {
        flush();
        const reason = error instanceof TwinError ? error.message : `it is not valid JSON (${(error as Error).message})`;
        throw new TwinError('IMPORT_MALFORMED_LINE', `import into twin "${this.name}" stopped at line ${lineNo}: ${reason}; lines before it were kept (${appended} appended)`, {
          path: error instanceof TwinError && error.path !== undefined ? error.path : `line ${lineNo}`,
          details: { line: lineNo, appended },
        });
      }
      if (entry.seq < expected) {
        const [existing] = this.store.readEntries(entry.seq - 1, 1);
        if (existing?.writeId !== entry.writeId) {
          flush();
          throw new TwinError('IMPORT_CONFLICT', `import into twin "${this.name}" stopped at line ${lineNo}: seq ${entry.seq} is already taken by a different entry (writeId ${existing?.writeId ?? '?'}); import into an empty twin instead`, {
            path: `line ${lineNo}.seq`,
            details: { line: lineNo, appended },
          });
        }
        skippedCount++;
        continue;
      }
      if (entry.seq !== expected) {
        flush();
        throw new TwinError('IMPORT_MALFORMED_LINE', `import into twin "${this.name}" stopped at line ${lineNo}: seq ${entry.seq} leaves a gap after ${expected - 1}; entries must be dense`, {
          path: `line ${lineNo}.seq`,
          details: { line: lineNo, appended },
        });
      }
      const own = entry.twin === this.name ? entry : { ...entry, twin: this.name };
      batch.push({ entry: own, body: own === entry ? canonicalJson(entry) : canonicalJson(own) });
      expected++;
      if (batch.length >= IMPORT_BATCH) {
        flush();
        onProgress?.({ line: lineNo, appended, skipped: skippedCount });
      }
    }
    flush();
    const progress = { line: lineNo, appended, skipped: skippedCount };
    onProgress?.(progress);
    return progress;
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw new TwinError('WORLD_CLOSED', `twin "${this.name}" is closed; open the world again to use it`);
  }

  close(): void {
    this.closed = true;
    this.store.close();
  }
}

const NO_DELTA = { remove: [], add: [] };

function diffKeys(before: IndexKey[], after: IndexKey[]): { remove: IndexKey[]; add: IndexKey[] } {
  const id = (k: IndexKey): string => `${k.name}\u0000${k.key}`;
  const b = new Set(before.map(id));
  const a = new Set(after.map(id));
  return { remove: before.filter((k) => !a.has(id(k))), add: after.filter((k) => !b.has(id(k))) };
}
