// The worker's one port: a kind of claimable work (deliveries, routine runs, calendar ticks,
// scheduled fires, deferred dispatches). Each kind finds its due items through the due-time index,
// claims one with a lease, runs it, heartbeats while it runs, and finishes it. The layer that owns
// the work implements it; the worker only schedules.
import type { Twin } from '../world/twin.js';

export interface DueItem {
  /** Unique within its kind: the record's id. */
  readonly id: string;
  /** When it fell due (ISO); for a claim held by someone else, when that lease lapses. */
  readonly dueAt: string;
  /**
   * The item's state as the due read found it, when the kind records one: lets `run` skip reading
   * it again (its claim still checks the state, so an item taken meanwhile claims nothing).
   */
  readonly state?: string;
}

export interface WorkContext {
  /** The claimant's worker id, written as the owner of each claim. */
  readonly owner: string;
  readonly leaseMs: number;
}

/** What running one item came to, for status lines and `--json` reports. */
export interface WorkReport {
  readonly kind: string;
  readonly id: string;
  /** Kind-specific: a delivery's state after the attempt, a run's state, "fired", … */
  readonly outcome: string;
  readonly detail?: string;
}

export interface WorkKind {
  readonly name: string;
  /** The twins whose appends can bring new work of this kind (the worker watches their heads). */
  twins(): readonly Twin[];
  /** Up to `limit` items due at `nowMs`, earliest first. */
  due(nowMs: number, limit: number): Promise<DueItem[]>;
  /** The earliest due time of any item (epoch ms), due yet or not; undefined when none has one. */
  nextDue(): Promise<number | undefined>;
  /**
   * The earliest lapse of a claim somebody holds — work in flight here or in another process — or
   * undefined when none is held. An idle-now run waits for these (the holder finishes, or its lease
   * lapses and the work is taken over) but not for work scheduled later. A kind without it never
   * holds claims past one run.
   */
  inFlight?(): Promise<number | undefined>;
  /**
   * Claims up to `limit` due items in one section and starts running each: what a kind that can
   * batch its claims offers (on PostgreSQL its pick skips what another host is claiming). The
   * worker then uses it instead of `due` + `run`. `busy` holds the ids this worker runs already.
   * A worker that claims ahead of its free slots passes `sendSlot`: each item waits for one before
   * its work starts, keeping its claim alive meanwhile, and releases it once its `freed` settles.
   */
  take?(
    nowMs: number,
    limit: number,
    busy: ReadonlySet<string>,
    sendSlot?: SendSlot,
  ): Promise<Taken[]>;
  /**
   * Claims the item, runs it and finishes it. Undefined when there was nothing to claim (another
   * worker took it, or it stopped being due).
   */
  run(item: DueItem, context: WorkContext): Promise<WorkReport | undefined>;
}

/**
 * One of the worker's send slots: the function that gives it back, at once when a slot is free,
 * else a promise of it (the caller may let a virtual clock move while it waits).
 */
export type SendSlot = () => (() => void) | Promise<() => void>;

/** An item a batch claimed, and what running it comes to (undefined: it needed no run). */
interface Taken {
  readonly item: DueItem;
  readonly done: Promise<WorkReport | undefined>;
  /**
   * Settles once the item no longer needs its slot: what is left is recording its outcome (a
   * commit). The worker then claims for the slot at once, so that claim can share the outcome's
   * section instead of taking the twin's lock again after it.
   */
  readonly freed?: Promise<void>;
}
