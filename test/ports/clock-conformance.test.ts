// The Clock port's conformance suite, run unchanged against every implementation: RealClock on
// wall time, VirtualClock, and the walk's WalkClock. Each case says only how to let time pass and
// how long one unit of time is for it; the suite states the contract.
//
// The contract: now() is integer epoch milliseconds and never runs backwards while time passes; a
// scheduled task runs once, not before its time and with now() at or past it, once time passes
// it; due tasks start earliest first, ties in scheduling order; cancel() stops a task that has not
// run (also from inside an earlier task) and is harmless after; a task scheduled in the past runs
// at the next opportunity; a task scheduled by a task runs if it falls due in the same stretch.
import { describe, expect, it } from 'vitest';
import { RealClock, VirtualClock, type Clock } from '../../src/world/clock.js';
import { WalkClock } from '../../src/walk/walk-clock.js';

interface ClockCase {
  readonly name: string;
  create(): Clock;
  /** Lets `ms` of the clock's time pass, returning once every task due by then has started. */
  pass(clock: Clock, ms: number): Promise<void>;
  /** One unit of time in ms: long enough for the implementation to tell instants apart reliably. */
  readonly unit: number;
  /** Virtual clocks run a task with now() exactly at its time; a real clock only at or after it. */
  readonly exact: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const START = Date.parse('2026-06-01T00:00:00.000Z');

const cases: ClockCase[] = [
  {
    name: 'RealClock',
    create: () => new RealClock(),
    async pass(clock, ms) {
      const target = clock.now() + ms;
      await sleep(ms);
      while (clock.now() < target) await sleep(1);
      // timers that fell due by `target` have fired before one more turn of the timer phase
      await sleep(5);
    },
    unit: 30,
    exact: false,
  },
  {
    name: 'VirtualClock',
    create: () => new VirtualClock(START),
    pass: (clock, ms) => (clock as VirtualClock).advance(ms),
    unit: 60_000,
    exact: true,
  },
  {
    name: 'WalkClock',
    create: () => new WalkClock(START),
    pass: (clock, ms) => (clock as WalkClock).advance(ms),
    unit: 60_000,
    exact: true,
  },
];

for (const c of cases) {
  describe(`Clock conformance: ${c.name}`, () => {
    const U = c.unit;

    it('now() is integer epoch milliseconds and does not run backwards as time passes', async () => {
      const clock = c.create();
      const a = clock.now();
      expect(Number.isSafeInteger(a)).toBe(true);
      expect(a).toBeGreaterThan(Date.parse('2000-01-01T00:00:00Z'));
      await c.pass(clock, U);
      const b = clock.now();
      expect(b - a).toBeGreaterThanOrEqual(U);
    });

    it('a task runs once, not before its time, with now() at or past its time', async () => {
      const clock = c.create();
      const at = clock.now() + 4 * U;
      const seen: number[] = [];
      clock.schedule(at, () => void seen.push(clock.now()));
      await c.pass(clock, U);
      expect(seen).toEqual([]);
      await c.pass(clock, 4 * U);
      expect(seen).toHaveLength(1);
      if (c.exact) expect(seen[0]).toBe(at);
      else expect(seen[0]).toBeGreaterThanOrEqual(at);
      await c.pass(clock, 2 * U);
      expect(seen).toHaveLength(1);
    });

    it('due tasks start earliest first, whatever order they were scheduled in', async () => {
      const clock = c.create();
      const now = clock.now();
      const order: string[] = [];
      for (const [name, k] of [
        ['third', 3],
        ['first', 1],
        ['fourth', 4],
        ['second', 2],
      ] as const)
        clock.schedule(now + k * U, () => void order.push(name));
      await c.pass(clock, 5 * U);
      expect(order).toEqual(['first', 'second', 'third', 'fourth']);
    });

    it('tasks due at the same instant start in the order they were scheduled', async () => {
      const clock = c.create();
      const now = clock.now();
      const order: string[] = [];
      // five instants a third of a unit apart, scheduled out of order, six tasks each
      for (const g of [2, 0, 4, 1, 3]) {
        for (let i = 0; i < 6; i++) {
          clock.schedule(now + 2 * U + g * Math.round(U / 3), () => void order.push(`${g}.${i}`));
          // let the wall clock move between schedules, as separate callers would
          const spin = performance.now();
          while (performance.now() - spin < 0.4);
        }
      }
      await c.pass(clock, 4 * U);
      expect(order).toEqual(
        [0, 1, 2, 3, 4].flatMap((g) => [0, 1, 2, 3, 4, 5].map((i) => `${g}.${i}`)),
      );
    });

    it('cancel stops a task that has not run, leaves the others, and is harmless twice or after the run', async () => {
      const clock = c.create();
      const now = clock.now();
      const ran: string[] = [];
      const cancelA = clock.schedule(now + U, () => void ran.push('a'));
      const cancelB = clock.schedule(now + 2 * U, () => void ran.push('b'));
      clock.schedule(now + 2 * U, () => void ran.push('c'));
      cancelB();
      cancelB();
      await c.pass(clock, 3 * U);
      expect(ran).toEqual(['a', 'c']);
      cancelA();
      await c.pass(clock, U);
      expect(ran).toEqual(['a', 'c']);
    });

    it('a task can cancel one due at the same instant after it', async () => {
      const clock = c.create();
      const at = clock.now() + U;
      const ran: string[] = [];
      let cancelSecond = () => {};
      clock.schedule(at, () => {
        ran.push('first');
        cancelSecond();
      });
      cancelSecond = clock.schedule(at, () => void ran.push('second'));
      await c.pass(clock, 2 * U);
      expect(ran).toEqual(['first']);
    });

    it('a task scheduled in the past runs at the next opportunity, without moving now() backwards', async () => {
      const clock = c.create();
      const before = clock.now();
      const seen: number[] = [];
      clock.schedule(before - 10 * U, () => void seen.push(clock.now()));
      await c.pass(clock, U);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeGreaterThanOrEqual(before);
    });

    it('a task scheduled by a task runs in the same stretch when it falls due within it', async () => {
      const clock = c.create();
      const now = clock.now();
      const ran: [string, number][] = [];
      clock.schedule(now + U, () => {
        ran.push(['outer', clock.now()]);
        clock.schedule(now + 2 * U, () => void ran.push(['inner', clock.now()]));
      });
      clock.schedule(now + 3 * U, () => void ran.push(['later', clock.now()]));
      await c.pass(clock, 4 * U);
      expect(ran.map(([n]) => n)).toEqual(['outer', 'inner', 'later']);
      if (c.exact) expect(ran.map(([, t]) => t - now)).toEqual([U, 2 * U, 3 * U]);
    });

    // Whether the clock waits for an async task before starting the next is the implementation's
    // choice (virtual clocks do, for determinism; a real clock cannot hold time still): only the
    // start order and that everything runs are the contract.
    it('an async task is started when due; the ones after it still run', async () => {
      const clock = c.create();
      const now = clock.now();
      const ran: string[] = [];
      clock.schedule(now + U, async () => {
        ran.push('async-start');
        await Promise.resolve();
        ran.push('async-end');
      });
      clock.schedule(now + 2 * U, () => void ran.push('sync'));
      await c.pass(clock, 3 * U);
      expect(ran[0]).toBe('async-start');
      expect([...ran].sort()).toEqual(['async-end', 'async-start', 'sync']);
    });
  });
}
