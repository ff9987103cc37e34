// The world clock. Every timestamp a twin writes comes from here. A real clock follows wall
// time; a virtual clock moves only when told to and runs what fell due in a fixed order.
import { describeValue, TwinError } from '../errors.js';
import { readTimeText, timeTextProblem } from '../log/iso-time.js';

export type Task = () => void | Promise<void>;

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Runs `task` once the clock reaches `at`; returns a cancel function. */
  schedule(at: number, task: Task): () => void;
}

let lastMs = Number.NaN;
let lastIso = '';

/** Many stamps fall in one millisecond (a section's entries, a group's decides): built once. */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    // Date's own refusal is a bare RangeError, "Invalid time value", naming neither value nor call.
    if (typeof ms !== 'number' || !Number.isFinite(ms) || outOfRange(ms))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `isoAt(ms): ms must be epoch milliseconds a date can hold (±${LAST_MS}), got ${describeValue(ms)}`,
        { path: 'ms' },
      );
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/**
 * Wall time. Tasks wait in one queue ordered by (time, scheduling order) behind a single timer,
 * so due tasks start earliest first and ties in scheduling order. A timer per task would not keep
 * that order: Node orders timers by the delay each was given, and a delay computed a moment later
 * is a millisecond shorter (test/ports/clock-conformance.test.ts caught it).
 */
export class RealClock implements Clock {
  private queue: ScheduledTask[] = [];
  private order = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  now(): number {
    return Date.now();
  }

  schedule(at: number, task: Task): () => void {
    checkSchedule(at, task);
    const item: ScheduledTask = { at, order: this.order++, task };
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.at > at) i--;
    this.queue.splice(i, 0, item);
    this.arm();
    return () => {
      const j = this.queue.indexOf(item);
      if (j < 0) return;
      this.queue.splice(j, 1);
      this.arm();
    };
  }

  /** One timer, for the earliest task; unref'd, as each task's own timer was, so it never holds the process open. */
  private arm(): void {
    const next = this.queue[0];
    if (next !== undefined && this.timer !== undefined && this.timerAt === next.at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (next === undefined) return;
    this.timerAt = next.at;
    this.timer = setTimeout(() => this.runDue(), Math.max(0, next.at - Date.now()));
    this.timer.unref();
  }

  private runDue(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    // A task may schedule or cancel others: the queue is read afresh before each one.
    for (
      let next = this.queue[0];
      next !== undefined && next.at <= Date.now();
      next = this.queue[0]
    ) {
      this.queue.shift();
      try {
        void next.task();
      } catch (error) {
        // As from its own timer: the error surfaces, and the tasks after it still run.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.arm();
  }
}

/** A task waiting on a clock: due at `at`; `order` breaks ties in scheduling order. */
export interface ScheduledTask {
  readonly at: number;
  readonly order: number;
  readonly task: Task;
}

/** The last instant a Date holds (ECMAScript's ±8.64e15 ms): past it, no time can be written. */
export const LAST_MS = 8.64e15;

function outOfRange(ms: number): boolean {
  return ms > LAST_MS || ms < -LAST_MS;
}

/** A time a virtual clock is given: whole epoch milliseconds, an ISO 8601 time, or a Date. */
export type ClockTime = number | string | Date;

const TIME_EXAMPLE = "e.g. '2026-01-01T00:00:00Z'";

function refuse(call: string, path: string, message: string): never {
  throw new TwinError('INVALID_ARGUMENT', `${call}: ${message}`, { path });
}

/**
 * `time` in epoch ms, or a refusal naming `path`. A world clock counts whole milliseconds (the
 * clock port promises now() is one, and a timestamp keeps no more), so a fraction is refused rather
 * than cut; a Date keeps its milliseconds. Text is read as the CLI reads a time: Date.parse would
 * take one without a zone in this machine's zone (another instant on another host) and roll
 * "2026-02-30" over into March.
 */
function epochMs(time: unknown, call: string, path: string): number {
  let ms: number;
  if (typeof time === 'number') ms = time;
  else if (time instanceof Date) ms = time.getTime();
  else if (typeof time === 'string') {
    const read = readTimeText(time);
    if (!('iso' in read))
      refuse(call, path, `${path} ${describeValue(time)} ${timeTextProblem(read, TIME_EXAMPLE)}`);
    ms = Date.parse(read.iso);
  } else
    refuse(
      call,
      path,
      `${path} must be epoch milliseconds, an ISO 8601 time or a Date, got ${describeValue(time)}`,
    );
  if (!Number.isFinite(ms))
    refuse(
      call,
      path,
      time instanceof Date
        ? `${path} is an invalid Date`
        : `${path} must be a finite number of epoch milliseconds, got ${describeValue(ms)}`,
    );
  if (!Number.isInteger(ms))
    refuse(
      call,
      path,
      `${path} must be a whole number of milliseconds, got ${ms}; a world clock counts whole milliseconds (round it with Math.round)`,
    );
  return ms;
}

/** The range refusal: past it every timestamp a write takes would be "Invalid time value". */
function outsideDates(call: string, path: string, ms: number, from: number | undefined): never {
  return refuse(
    call,
    path,
    `${ms} ms is outside the times a date can hold (${isoAt(-LAST_MS)} to ${isoAt(LAST_MS)})${from === undefined ? '' : `; from ${isoAt(from)} the clock may move up to ${LAST_MS - from} ms more`}`,
  );
}

export class VirtualClock implements Clock {
  private current: number;
  private order = 0;
  private queue: ScheduledTask[] = [];
  private advancing = false;

  constructor(start: ClockTime = '2026-01-01T00:00:00.000Z') {
    const ms = epochMs(start, 'new VirtualClock(start)', 'start');
    if (outOfRange(ms)) outsideDates('new VirtualClock(start)', 'start', ms, undefined);
    this.current = ms;
  }

  now(): number {
    return this.current;
  }

  schedule(at: number, task: Task): () => void {
    checkSchedule(at, task);
    // Run at the first whole millisecond at or after `at`: never early, and now() stays whole.
    const item: ScheduledTask = { at: Math.ceil(at), order: this.order++, task };
    this.queue.push(item);
    return () => {
      this.queue = this.queue.filter((q) => q !== item);
    };
  }

  /** Tasks waiting, for walks that want to know whether anything is left to run. */
  pending(): number {
    return this.queue.length;
  }

  /** The time of the next scheduled task, if any. */
  nextAt(): number | undefined {
    let min: number | undefined;
    for (const q of this.queue) if (min === undefined || q.at < min) min = q.at;
    return min;
  }

  /** The task to run next among those due by `limit`: earliest first, ties in scheduling order. */
  protected peekDue(limit: number): ScheduledTask | undefined {
    let next: ScheduledTask | undefined;
    for (const q of this.queue) {
      if (
        q.at <= limit &&
        (next === undefined || q.at < next.at || (q.at === next.at && q.order < next.order))
      )
        next = q;
    }
    return next;
  }

  /** Takes a task out of the queue to run it, and moves the clock to its instant. */
  protected takeDue(item: ScheduledTask): void {
    this.queue = this.queue.filter((q) => q !== item);
    this.moveTo(item.at);
  }

  /** Moves the clock forward to `at` (never back) without running anything. */
  protected moveTo(at: number): void {
    if (at > this.current) this.current = at;
  }

  /**
   * `to` in epoch ms, checked as every move of a clock is (walks' too): a time, one a date can
   * hold, and not before now. `call` and `path` name the entry point and argument a refusal blames.
   */
  protected target(to: ClockTime, call = 'clock.set(to)', path = 'to'): number {
    const target = epochMs(to, call, path);
    if (outOfRange(target)) outsideDates(call, path, target, this.current);
    if (target < this.current)
      refuse(
        call,
        path,
        `${isoAt(target)} is before the current time ${isoAt(this.current)}; a world clock never goes back`,
      );
    return target;
  }

  /** Moves forward to `to`, running each due task at its own instant, earliest first, ties in scheduling order. */
  async set(to: ClockTime): Promise<void> {
    const target = this.target(to);
    if (this.advancing)
      throw new TwinError(
        'INVALID_ARGUMENT',
        'clock.set/advance is already running; await it before moving the clock again',
      );
    this.advancing = true;
    try {
      for (let next = this.peekDue(target); next !== undefined; next = this.peekDue(target)) {
        this.takeDue(next);
        await next.task();
      }
      this.current = target;
    } finally {
      this.advancing = false;
    }
  }

  /**
   * Moves forward by `ms`, a whole number of milliseconds, 0 or more. Misuse is a rejected promise,
   * as set's is: a caller awaiting either sees every refusal the same way.
   */
  async advance(ms: number): Promise<void> {
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0)
      refuse(
        'clock.advance(ms)',
        'ms',
        `ms must be a whole number of milliseconds, 0 or more, got ${describeValue(ms)}${typeof ms === 'object' || typeof ms === 'string' ? '; to move to a time, use set(time)' : ''}`,
      );
    // set's own range check would blame `to`, a time this caller never gave.
    if (outOfRange(this.current + ms))
      refuse(
        'clock.advance(ms)',
        'ms',
        `${ms} ms from ${isoAt(this.current)} is past ${isoAt(LAST_MS)}, the last time a date can hold; the clock may move up to ${LAST_MS - this.current} ms more`,
      );
    return this.set(this.current + ms);
  }
}

/**
 * A task at a time no clock reaches (NaN, text) would never run and never say so; a task that is
 * no function would fail only when due, far from the call.
 */
function checkSchedule(at: unknown, task: unknown): void {
  if (typeof at !== 'number' || Number.isNaN(at))
    refuse(
      'clock.schedule(at, task)',
      'at',
      `at must be epoch milliseconds, got ${describeValue(at)}`,
    );
  if (typeof task !== 'function')
    refuse(
      'clock.schedule(at, task)',
      'task',
      `task must be a function, got ${describeValue(task)}`,
    );
}
