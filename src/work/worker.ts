// The worker (docs/work.md): one loop per process that claims due work of every kind, runs it with
// bounded concurrency, and learns of new work by watching the heads of the twins it serves. Due
// times come from the store's due-time index, never from a timer only this process knows, so work
// queued by any process — or left by one that died — is found. Several workers on one store share
// the work; the claims' leases make sure no piece runs twice.
import { TwinError } from '../errors.js';
import { isoAt } from '../world/clock.js';
import type { World } from '../world/world.js';
import { checkLeaseMs, DEFAULT_LEASE_MS } from './lease.js';
import type { DueItem, SendSlot, WorkKind, WorkReport } from './work-kind.js';

export interface WorkerOptions {
  /** The owner written on every claim; defaults to a fresh id from the world's id source. */
  readonly owner?: string;
  /**
   * Items run at once (sends, and runs of other kinds). An item whose outcome only waits to be
   * committed (Taken.freed) no longer holds its slot: the claim for that slot may share the
   * outcome's section. Items claimed ahead (claimAhead) hold none until they start.
   */
  readonly concurrency?: number;
  /**
   * Items a batch may claim beyond the free slots (kinds that batch their claims: deliveries).
   * They wait in this process, their leases kept by heartbeats, and start the moment a slot
   * frees, instead of after the next claim's round trip: what keeps the slots busy when sends end
   * one by one (a slow endpoint). Default 0.
   */
  readonly claimAhead?: number;
  /** Lease length in ms; the owner heartbeats every third of it. */
  readonly leaseMs?: number;
  /**
   * How often the heads of the watched twins are read for new work (ms). Where the store wakes
   * idle workers itself (PostgreSQL's LISTEN/NOTIFY) this is the fallback for a lost wakeup.
   */
  readonly pollMs?: number;
  /** Called after each item ran. */
  readonly onReport?: (report: WorkReport) => void;
  /** Called when an item was claimed and starts running. */
  readonly onClaim?: (kind: string, item: DueItem) => void;
}

export interface WorkerStats {
  claimed: number;
  finished: number;
  byOutcome: Record<string, number>;
}

export interface IdleOptions {
  /**
   * Wait for work scheduled later too (retries, schedule occurrences, delayed dispatches), on the
   * world clock: what a walk or a test on a virtual clock wants. Default true; `work --until-idle`
   * passes false — idle now means nothing due and nothing in flight.
   */
  readonly waitForScheduled?: boolean;
}

/** Work left scheduled when an idle-now run ended: each kind's earliest due time. */
export interface ScheduledLater {
  readonly kind: string;
  /** ISO, on the world clock. */
  readonly at: string;
}

/** Items a worker runs at once unless told otherwise. */
export const WORKER_CONCURRENCY = 8;

/** The longest pause between rounds while the store keeps failing them. */
const RETRY_ROUND_MAX_MS = 5000;
/**
 * The longest an idle worker sleeps without a round (or pollMs, if longer). Its wake-ups are head
 * moves, notifications, finishes and the earliest due time; one that is lost (a due read answered
 * from a snapshot taken before a commit landed, a notification dropped) then costs this, not forever.
 */
const IDLE_ROUND_MS = 1000;

interface Running {
  readonly key: string;
  readonly done: Promise<void>;
}

export class Worker {
  readonly owner: string;
  readonly stats: WorkerStats = { claimed: 0, finished: 0, byOutcome: {} };
  private readonly concurrency: number;
  private readonly claimAhead: number;
  /**
   * Slots held by sends of items claimed ahead (SendSlot), by items of kinds that do not batch
   * their claims, and the items claimed ahead waiting for one.
   */
  private sending = 0;
  private others = 0;
  private readonly slotWaiters: (() => void)[] = [];
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly running = new Map<string, Running>();
  /** Running items whose slot is free already: only their outcome's commit is left (Taken.freed). */
  private readonly settling = new Set<string>();
  /** Items that were due but claimed nothing, with the due time they had: not retried until it changes. */
  private readonly passed = new Map<string, string>();
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** The store woke this worker for a watched twin since the last claim round began. */
  private notified = false;
  private onNotify: (() => void) | undefined;
  /** A heads check in flight: stop() waits for it, so none reads a twin after its world closed. */
  private checking: Promise<void> = Promise.resolve();

  constructor(
    readonly world: World,
    private readonly kinds: readonly WorkKind[],
    private readonly options: WorkerOptions = {},
  ) {
    if (
      options.concurrency !== undefined &&
      (!Number.isSafeInteger(options.concurrency) || options.concurrency < 1)
    )
      throw new TwinError('INVALID_ARGUMENT', 'worker concurrency must be a positive integer', {
        path: 'concurrency',
      });
    this.concurrency = options.concurrency ?? WORKER_CONCURRENCY;
    if (
      options.claimAhead !== undefined &&
      (!Number.isSafeInteger(options.claimAhead) || options.claimAhead < 0)
    )
      throw new TwinError(
        'INVALID_ARGUMENT',
        'worker claimAhead must be a whole number of items, 0 or more',
        { path: 'claimAhead' },
      );
    this.claimAhead = options.claimAhead ?? 0;
    this.leaseMs = checkLeaseMs(options.leaseMs ?? DEFAULT_LEASE_MS, 'leaseMs');
    this.pollMs = checkLeaseMs(options.pollMs ?? 50, 'pollMs');
    this.owner = options.owner ?? `wrk_${world.ids.ksuid()}`;
  }

  /** Runs until stop(): the long-lived loop of `twinworld work` and `serve`. */
  start(): void {
    this.loop ??= this.run('stopped');
  }

  /**
   * Runs until idle and answers what is left scheduled later. By default idle means nothing has a
   * due time at all (queued, claimed, waiting for a retry); with `waitForScheduled: false` it means
   * nothing is due now and no claim is held anywhere — a retry an hour out does not hold it.
   */
  async runUntilIdle(options: IdleOptions = {}): Promise<ScheduledLater[]> {
    this.loop ??= this.run(options.waitForScheduled === false ? 'now' : 'all');
    await this.loop;
    return this.scheduledLater();
  }

  /** Each kind's earliest due time still ahead (none when nothing is scheduled). */
  async scheduledLater(): Promise<ScheduledLater[]> {
    const later: ScheduledLater[] = [];
    for (const kind of this.kinds) {
      const at = await kind.nextDue();
      if (at !== undefined) later.push({ kind: kind.name, at: isoAt(at) });
    }
    return later.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }

  /** Stops claiming, lets what it holds finish (finishing releases each lease), and resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await this.drain();
    await this.checking;
  }

  private async drain(): Promise<void> {
    while (this.running.size > 0)
      await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async run(until: 'stopped' | 'all' | 'now'): Promise<void> {
    const unlisten = await this.listen();
    try {
      await this.loopUntil(until);
    } finally {
      await unlisten?.().catch((error: unknown) => this.world.reportError(error, 'worker wakeups'));
    }
  }

  /**
   * Subscribes to the store's wakeups, when it has them (before the first claim round, so no work
   * appended meanwhile goes unnoticed). One that cannot listen still polls.
   */
  private async listen(): Promise<(() => Promise<void>) | undefined> {
    const backend = this.world.backend;
    if (backend.wakeups === undefined) return undefined;
    try {
      return await backend.wakeups((twin) => {
        if (!this.kinds.some((kind) => kind.twins().some((t) => t.name === twin))) return;
        this.notified = true;
        this.onNotify?.();
      });
    } catch (error) {
      this.world.reportError(error, 'worker wakeups');
      return undefined;
    }
  }

  private async loopUntil(until: 'stopped' | 'all' | 'now'): Promise<void> {
    const heads = new Map<string, number>();
    let failures = 0;
    while (!this.stopping) {
      try {
        const started = await this.claimRound();
        failures = 0;
        if (started > 0) continue;
        if (until !== 'stopped' && this.running.size === 0) {
          // Nothing started this round: everything due now ran or claimed nothing.
          if (until === 'all' && (await this.nextDue()) === undefined) return;
          if (until === 'now' && (await this.nextInFlight()) === undefined) return;
        }
        // Every slot taken: only a finish frees one, and it wakes the loop; nothing to read meanwhile.
        if (this.occupied() >= this.concurrency + this.claimAhead) await this.waitForSlot();
        else await this.waitForWork(heads);
      } catch (error) {
        // A run until idle answers its caller. A long-lived worker outlives a store that failed
        // one round (locked past its busy timeout, a dropped connection): it says so and tries
        // again, backing off, instead of taking the process down with work still queued.
        if (until !== 'stopped') throw error;
        this.world.reportError(error, 'worker');
        await this.rest(Math.min(RETRY_ROUND_MAX_MS, this.pollMs * 2 ** Math.min(++failures, 10)));
      }
    }
  }

  /** Sleeps `ms` of wall time (pacing after a failed round, never a decision), or until stop(). */
  private rest(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = () => {
        if (this.stopping) done();
      };
    });
  }

  /** One pass over every kind: starts what is due, up to the free slots. */
  private async claimRound(): Promise<number> {
    this.notified = false;
    let started = 0;
    const now = this.world.clock.now();
    for (const kind of this.kinds) {
      if (this.stopping) break;
      if (kind.take !== undefined) {
        const room = this.concurrency + this.claimAhead - this.occupied();
        if (room <= 0) continue;
        const prefix = `${kind.name}\u0000`;
        const busy = new Set<string>();
        for (const key of this.running.keys())
          if (key.startsWith(prefix)) busy.add(key.slice(prefix.length));
        const taken = await kind.take(
          now,
          room,
          busy,
          this.claimAhead > 0 ? this.sendSlot : undefined,
        );
        for (const { item, done, freed } of taken) {
          this.track(kind, item, `${prefix}${item.id}`, done, freed);
          started++;
        }
        continue;
      }
      const free = this.concurrency - this.occupied();
      if (free <= 0) continue;
      // Ask for a few more than the free slots: some may be running here already.
      for (const item of await kind.due(now, free + this.running.size)) {
        if (this.occupied() >= this.concurrency || this.stopping) break;
        const key = `${kind.name}\u0000${item.id}`;
        if (this.running.has(key) || this.passed.get(key) === item.dueAt) continue;
        this.launch(kind, item, key);
        started++;
      }
    }
    return started;
  }

  private launch(kind: WorkKind, item: DueItem, key: string): void {
    const run = kind.run(item, { owner: this.owner, leaseMs: this.leaseMs });
    // It holds a slot that a delivery claimed ahead cannot send in until it ends.
    this.others++;
    const ended = (): void => {
      this.others--;
      this.grantSlots();
    };
    run.then(ended, ended);
    this.track(kind, item, key, run);
  }

  /** Keeps an item that runs until `running` settles, and counts what it came to. */
  private track(
    kind: WorkKind,
    item: DueItem,
    key: string,
    running: Promise<WorkReport | undefined>,
    freed?: Promise<void>,
  ): void {
    this.options.onClaim?.(kind.name, item);
    const done = running
      .then(
        (report) => {
          if (report === undefined) {
            this.passed.set(key, item.dueAt);
            return;
          }
          this.passed.delete(key);
          this.stats.claimed++;
          this.stats.finished++;
          this.stats.byOutcome[report.outcome] = (this.stats.byOutcome[report.outcome] ?? 0) + 1;
          this.options.onReport?.(report);
        },
        (error: unknown) => {
          this.passed.set(key, item.dueAt);
          this.world.reportError(error, `worker ${kind.name} ${item.id}`);
        },
      )
      .finally(() => {
        this.running.delete(key);
        this.settling.delete(key);
        this.wake?.();
      });
    this.running.set(key, { key, done });
    void freed?.then(() => {
      if (!this.running.has(key)) return;
      this.settling.add(key);
      this.wake?.();
    });
  }

  /**
   * One of the `concurrency` slots for an item claimed ahead: at once when one is free, else when
   * an item gives its slot back (first come, first served).
   */
  private readonly sendSlot: SendSlot = () => {
    let given = false;
    const giveBack = (): void => {
      if (given) return;
      given = true;
      this.sending--;
      this.grantSlots();
    };
    if (this.slotWaiters.length === 0 && this.sending + this.others < this.concurrency) {
      this.sending++;
      return giveBack;
    }
    return new Promise((resolve) => this.slotWaiters.push(() => resolve(giveBack)));
  };

  /** Hands free slots to the items waiting for one; items of other kinds hold slots too. */
  private grantSlots(): void {
    while (this.slotWaiters.length > 0 && this.sending + this.others < this.concurrency) {
      this.sending++;
      this.slotWaiters.shift()!();
    }
  }

  /** Slots in use: running items but those whose slot was freed before their outcome committed. */
  private occupied(): number {
    return this.running.size - this.settling.size;
  }

  private waitForSlot(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
      if (this.stopping || this.occupied() < this.concurrency + this.claimAhead) this.wake();
    });
  }

  private async nextDue(): Promise<number | undefined> {
    let next: number | undefined;
    for (const kind of this.kinds) {
      const at = await kind.nextDue();
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    return next;
  }

  private async nextInFlight(): Promise<number | undefined> {
    let next: number | undefined;
    for (const kind of this.kinds) {
      const at = await kind.inFlight?.();
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    return next;
  }

  /**
   * Sleeps until something may be due: an item finished, the store woke it (work due now was
   * appended to a watched twin), a watched head moved (another process committed), or the earliest
   * known due time came (on the world clock, so a virtual clock drives it) — and at the latest
   * after IDLE_ROUND_MS. Head polling and the idle round are wall-time I/O pacing, not decisions:
   * they never reach the log.
   */
  private async waitForWork(heads: Map<string, number>): Promise<void> {
    const next = await this.nextDue();
    await new Promise<void>((resolve) => {
      let settled = false;
      let poll: NodeJS.Timeout | undefined;
      let cancelDue: (() => void) | undefined;
      const idle = setTimeout(() => done(), Math.max(IDLE_ROUND_MS, this.pollMs));
      const done = (): void => {
        if (settled) return;
        settled = true;
        if (poll !== undefined) clearTimeout(poll);
        clearTimeout(idle);
        cancelDue?.();
        this.wake = undefined;
        this.onNotify = undefined;
        resolve();
      };
      this.wake = done;
      this.onNotify = done;
      // Woken while the last round ran: work appended after its reads may be due.
      if (this.stopping || this.notified) return done();
      if (next !== undefined) {
        // Due already but claimed nothing this round (held or passed): the idle round looks again.
        if (next > this.world.clock.now()) cancelDue = this.world.clock.schedule(next, done);
      }
      const check = async (): Promise<void> => {
        if (settled) return;
        try {
          if (await this.headsMoved(heads)) return done();
        } catch (error) {
          if (!this.stopping) this.world.reportError(error, 'worker watching heads');
        }
        if (!settled) poll = setTimeout(() => (this.checking = check()), this.pollMs);
      };
      poll = setTimeout(() => (this.checking = check()), this.pollMs);
    });
  }

  private async headsMoved(heads: Map<string, number>): Promise<boolean> {
    let moved = false;
    for (const kind of this.kinds) {
      for (const twin of kind.twins()) {
        const head = await twin.head();
        if (heads.get(twin.name) !== head) {
          heads.set(twin.name, head);
          moved = true;
        }
      }
    }
    return moved;
  }
}
