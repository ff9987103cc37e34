// The walk's clock: a VirtualClock that runs one due thing at a time — a scheduled task (a retry)
// or a ticker (a calendar) — and lets the walk settle in-flight deliveries after each, so work a
// task causes never races the next task. Same seed, same order, same log.
import { TwinError } from '../errors.js';
import { isoAt, VirtualClock, type ClockTime, type ScheduledTask } from '../world/clock.js';

/** Something that falls due on the clock without scheduling a task: a calendar source's ticks. */
export interface Ticker {
  readonly name: string;
  /** Epoch ms of the next thing due after the last tick, if any. */
  nextAt(): number | undefined | Promise<number | undefined>;
  /** Runs what is due at `now` (the clock already reads `now`). */
  tick(now: number): Promise<unknown>;
}

/** A runaway guard: a ticker whose nextAt never moves would otherwise spin forever. */
const MAX_STEPS_PER_MOVE = 100_000;

export class WalkClock extends VirtualClock {
  private readonly tickers: Ticker[] = [];
  private moving = false;
  private settleFn: () => Promise<void> = async () => {};

  /** Called after each step, and before the clock moves at all: the walk settles deliveries here. */
  onStep(settle: () => Promise<void>): void {
    this.settleFn = settle;
  }

  addTicker(ticker: Ticker): () => void {
    this.tickers.push(ticker);
    return () => {
      const i = this.tickers.indexOf(ticker);
      if (i >= 0) this.tickers.splice(i, 1);
    };
  }

  /** The earliest scheduled task or ticker occurrence (tickers read their state from the store). */
  async nextDue(): Promise<number | undefined> {
    return (await this.next(Infinity))?.at;
  }

  /**
   * Moves to `to`, one step at a time: at each step the earliest due task runs (ties in
   * scheduling order, tasks before tickers, tickers in registration order), then the walk settles.
   */
  override async set(to: ClockTime): Promise<void> {
    const target = this.target(to);
    if (this.moving)
      throw new TwinError(
        'INVALID_ARGUMENT',
        'clock.set/advance is already running; await it before moving the clock again',
      );
    this.moving = true;
    try {
      await this.settleFn();
      for (let steps = 0; ; steps++) {
        if (steps >= MAX_STEPS_PER_MOVE) {
          throw new TwinError(
            'INVALID_ARGUMENT',
            `the walk clock ran ${MAX_STEPS_PER_MOVE} steps before reaching ${isoAt(target)}; a task or ticker keeps falling due (check its nextAt)`,
          );
        }
        const next = await this.next(target);
        if (next === undefined) break;
        if ('task' in next) {
          this.takeDue(next.task);
          await next.task.task();
        } else {
          this.moveTo(next.at);
          await next.ticker.tick(this.now());
        }
        await this.settleFn();
      }
      this.moveTo(target);
    } finally {
      this.moving = false;
    }
  }

  private async next(
    limit: number,
  ): Promise<({ at: number; task: ScheduledTask } | { at: number; ticker: Ticker }) | undefined> {
    // The tasks' queue and its order are VirtualClock's; the walk adds the tickers beside it.
    const task = this.peekDue(limit);
    let ticker: { at: number; ticker: Ticker } | undefined;
    for (const k of this.tickers) {
      const at = await k.nextAt();
      if (at !== undefined && at <= limit && (ticker === undefined || at < ticker.at))
        ticker = { at, ticker: k };
    }
    if (task !== undefined && (ticker === undefined || task.at <= ticker.at))
      return { at: task.at, task };
    return ticker;
  }
}
