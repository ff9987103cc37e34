// One run of a twin's exclusive section and the read-set restart that drives it: what the run loaded
// from the store, what it staged, and what it will write. Over an asynchronous store a decide that
// reads something not yet loaded stops with MISS; the run goes again once the loads land (decide is
// pure, so re-running is safe), and only a run that waited for nothing writes to the store.
import { TwinError } from '../errors.js';
import { encodeChainHead, CHAIN_META_KEY } from '../log/chain.js';
import type { Entry } from '../log/write.js';
import type { Resource } from '../state/resource.js';
import type { Awaitable, IndexDelta, StoreTx } from '../storage/port.js';
import type { IdSource } from './ids.js';
import { isPromise } from '../storage/secret-store.js';

const MAX_RESTARTS = 10_000;

/** Thrown through decide when it read something the store answers asynchronously. */
export const MISS: unique symbol = Symbol('twinworld.read-miss');

/** One run of a section: what it loaded asynchronously, and what it will write. */
export class Section {
  readonly loaded = new Map<string, unknown>();
  loads: Promise<void>[] = [];
  /** Keys whose load is in `loads`: asked for again before it lands, they wait for it instead. */
  private readonly loading = new Set<string>();
  missed = false;
  /** decide called applyAtomic: refused, even if decide caught the refusal. */
  nested = false;
  /**
   * What is not loaded yet is not asked for: the run misses instead (a member that joined a
   * section late must not add a round trip to it while the lock is held; see group-run.ts).
   */
  noLoads = false;
  appends: { entry: Entry; body: string; hash: string }[] = [];
  /** `wakes`: the put makes work due now (a due key at or before its entry's time). */
  puts: {
    resource: Resource;
    delta: IndexDelta;
    subjectOf: number | undefined;
    wakes?: boolean;
  }[] = [];
  readonly staged = new Map<string, Resource>();
  readonly beforeImages = new Map<number, Resource | undefined>();
  /**
   * The first run of a write section when nothing moved as far as this process knows: it reads no
   * head and no entries, and commits under a condition that they did not move (StoreTx.expect), so
   * a section whose decides need nothing uncached is one round trip. Any read ends it: the run goes
   * again the ordinary way, its reads leaving with the lock and the head.
   */
  optimistic = false;
  /**
   * Set once a run went optimistically, and kept when the section goes again the ordinary way: the
   * declared indexes are then not read but made part of the commit's condition (no extra round trip).
   */
  guardIndexes = false;
  /** The condition the commit is made under. */
  expect: { head: number; meta: { key: string; value: string | undefined } } | undefined;
  /**
   * Rows an optimistic run took for absent without reading them: resources named by an id this run
   * minted (IdSource.minted). The commit's condition includes that none of them exists.
   */
  absent: { type: string; id: string }[] = [];
  /**
   * Loads taken from a due hint (due-hint.ts), not read in this section: true at the head an
   * optimistic run commits on, and nothing more, so a run that goes again the ordinary way (under
   * the lock, at a head that may have moved) forgets them.
   */
  readonly hinted = new Set<string>();

  /**
   * `epoch` is the twin's cache epoch when the section began (or caught up). A tenant-scoped section never uses
   * the process cache: what it may see is what the store shows that tenant (row-level security
   * on PostgreSQL), and a row cached for another tenant's or a kernel-wide section must not leak.
   */
  constructor(
    readonly tx: StoreTx,
    public epoch: number,
    readonly tenantScoped = false,
    /** Whether this run drew `id` from the world's id source (IdSource.minted). */
    readonly minted: (id: string) => boolean = () => false,
  ) {}

  /**
   * Whether a resource under an id this run minted may be taken for absent without asking the store:
   * on a store that checks a commit's condition (PostgreSQL), for a kernel-wide section, and not on
   * the run after such a guess failed (RowPresent). Set when the section starts.
   */
  mayGuess = false;
  /**
   * Where an ordinary run (under the lock) stands: the head and the declared indexes it read. A
   * commit that took rows for absent is made under this condition, which cannot fail but for those
   * rows (TwinState.adoptIndexes sets it).
   */
  lockedAt: { head: number; meta: { key: string; value: string | undefined } } | undefined;

  /**
   * A resource under an id this run minted is taken for absent, and the commit checks that it is:
   * asking would cost a round trip with the twin's lock held (an optimistic run reads nothing at
   * all; an ordinary one would ask for each such row after the other, as its decide reached it).
   */
  assumesAbsent(type: string, id: string): boolean {
    // Only a run whose commit carries a condition may guess: the guess is checked there.
    if (!this.mayGuess || (this.expect ?? this.lockedAt) === undefined || !this.minted(id))
      return false;
    if (!this.absent.some((a) => a.type === type && a.id === id)) this.absent.push({ type, id });
    return true;
  }

  /** A store read: its value if the store answered at once or it was loaded before; else MISS. */
  read<T>(key: string, load: () => Awaitable<T>): T {
    if (this.loaded.has(key)) return this.loaded.get(key) as T;
    if (this.noLoads) {
      this.missed = true;
      throw MISS;
    }
    if (!this.loading.has(key)) {
      const value = load();
      if (!isPromise(value)) return value;
      this.loads.push(this.landing(key, value));
    }
    this.missed = true;
    throw MISS;
  }

  /**
   * A store read that does not stop the run when it must wait: undefined until loaded, and the run
   * is marked to go again.
   */
  peek<T>(key: string, load: () => Awaitable<T>): T | undefined {
    if (this.loaded.has(key)) return this.loaded.get(key) as T;
    if (this.noLoads) {
      this.missed = true;
      return undefined;
    }
    if (!this.loading.has(key)) {
      const value = load();
      if (!isPromise(value)) return value;
      this.loads.push(this.landing(key, value));
    }
    this.missed = true;
    return undefined;
  }

  /**
   * Starts a read this run will want later, so it shares a round trip with the read that stops
   * the run; its answer is kept like any other. A failure is left for the read that needs it.
   */
  prefetch<T>(key: string, load: () => Awaitable<T>): void {
    if (this.loaded.has(key) || this.loading.has(key) || this.noLoads) return;
    const value = load();
    if (!isPromise(value)) {
      this.loaded.set(key, value);
      return;
    }
    this.loads.push(this.landing(key, value).catch(() => undefined));
  }

  /** Keeps a load's answer once it lands; until it settles, the key is not asked for again. */
  private landing<T>(key: string, value: Promise<T>): Promise<void> {
    this.loading.add(key);
    return value.then(
      (v) => {
        this.loading.delete(key);
        this.loaded.set(key, v);
      },
      (error: unknown) => {
        // A failed load is asked for again by the next read that needs it (which then fails).
        this.loading.delete(key);
        throw error;
      },
    );
  }

  /** Forgets what the last run decided, keeping what it loaded. */
  reset(): void {
    for (const key of this.hinted) this.loaded.delete(key);
    this.hinted.clear();
    this.optimistic = false;
    this.expect = undefined;
    this.lockedAt = undefined;
    this.absent = [];
    this.missed = false;
    this.appends = [];
    this.puts = [];
    this.staged.clear();
    this.beforeImages.clear();
  }
}

/** What a run needs of its twin. */
export interface RunContext {
  readonly name: string;
  readonly ids: IdSource;
  /** Whether each commit records the chain head beside the log (see TwinState.recordsHead). */
  readonly recordsHead: boolean;
  /** The section now running, or none: a decide that calls applyAtomic is refused through it. */
  enter(s: Section | undefined): void;
}

export function nestedError(twin: string): TwinError {
  return new TwinError(
    'INVALID_ARGUMENT',
    `twin "${twin}": applyAtomic was called from inside a decide; return all writes from the one decide instead`,
  );
}

/**
 * A section's draws from the id source: the mark it drew under is left here, and a section given
 * the mark of one whose commit failed on a guess (RowPresent) draws the same ids again.
 */
export interface SectionDraws {
  mark?: unknown;
}

/**
 * Runs `body` inside a store section: at once when every read answers synchronously, else again
 * after each round of loads. The id source replays a re-run's draws (mark/reset/release), so
 * ids drawn by the final run are the ones a synchronous store would have drawn, and a decide that
 * reads what it just drew (a new id's row) finds the same key on every run.
 */
export function runSection<T>(
  tx: StoreTx,
  body: (s: Section) => T,
  ctx: RunContext,
  epoch: number,
  tenantScoped: boolean,
  optimistic = false,
  draws?: SectionDraws,
): Awaitable<T> {
  const s = new Section(tx, epoch, tenantScoped, (id) => ctx.ids.minted?.(id) === true);
  s.optimistic = optimistic && tx.expect !== undefined;
  s.guardIndexes = s.optimistic;
  // A section given the draws of one whose guess failed reads what it had guessed.
  s.mayGuess = tx.expect !== undefined && !tenantScoped && draws?.mark === undefined;
  const ids = ctx.ids;
  let mark: unknown;
  if (draws?.mark === undefined) mark = ids.mark();
  else ids.reset((mark = draws.mark));
  if (draws !== undefined) draws.mark = mark;
  const once = (): T | typeof MISS => {
    ctx.enter(s);
    try {
      const value = body(s);
      if (s.nested) throw nestedError(ctx.name);
      if (s.missed) throw MISS; // decide swallowed a miss: its answer is not to be trusted
      const condition = s.expect ?? (s.absent.length > 0 ? s.lockedAt : undefined);
      if (condition !== undefined) tx.expect!(condition.head, condition.meta, s.absent);
      for (const a of s.appends) tx.append(a.entry, a.body);
      const last = s.appends[s.appends.length - 1];
      if (last !== undefined && ctx.recordsHead)
        tx.setMeta(CHAIN_META_KEY, encodeChainHead({ seq: last.entry.seq, hash: last.hash }));
      let wakes = false;
      for (const p of s.puts) {
        tx.putResource(p.resource, p.delta, p.subjectOf);
        wakes ||= p.wakes === true;
      }
      if (wakes) tx.wake?.();
      return value;
    } catch (error) {
      if (error !== MISS && !s.missed) throw error;
      s.reset();
      return MISS;
    } finally {
      ctx.enter(undefined);
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
      `twin "${ctx.name}": decide read new keys on each of ${MAX_RESTARTS} runs; a decide must be pure, so the same state gives the same reads`,
    );
  })();
}
