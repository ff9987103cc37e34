// The walk clock keeps its tasks in VirtualClock's one queue and adds tickers beside it: the
// queue answers pending() and nextAt() for both, a task runs before a ticker due at the same
// instant, and the walk settles after every step.
import { describe, expect, it } from 'vitest';
import { WalkClock } from '../../src/walk/walk-clock.js';
import { isoAt } from '../../src/world/clock.js';

const START = Date.parse('2026-03-01T00:00:00.000Z');

describe('WalkClock', () => {
  it('schedules into the virtual clock’s queue: pending() and nextAt() see its tasks', () => {
    const clock = new WalkClock(START);
    expect(clock.nextAt()).toBeUndefined();
    const cancel = clock.schedule(START + 5_000, () => {});
    clock.schedule(START + 2_000, () => {});
    expect(clock.pending()).toBe(2);
    expect(clock.nextAt()).toBe(START + 2_000);
    cancel();
    expect(clock.pending()).toBe(1);
  });

  it('runs one due thing per step, tasks before a ticker at the same instant, settling after each', async () => {
    const clock = new WalkClock(START);
    const seen: string[] = [];
    let tickerAt: number | undefined = START + 1_000;
    clock.onStep(async () => void seen.push(`settle@${clock.now() - START}`));
    clock.addTicker({
      name: 'cal',
      nextAt: () => tickerAt,
      tick: async (now) => {
        seen.push(`tick@${now - START}`);
        tickerAt = undefined;
      },
    });
    clock.schedule(START + 1_000, () => void seen.push(`b@${clock.now() - START}`));
    clock.schedule(START + 500, () => {
      seen.push(`a@${clock.now() - START}`);
      // scheduled by a task, due within the stretch: runs in it, after the one due before
      clock.schedule(START + 1_000, () => void seen.push(`c@${clock.now() - START}`));
    });
    expect(await clock.nextDue()).toBe(START + 500);
    await clock.advance(3_000);
    expect(seen).toEqual([
      'settle@0',
      'a@500',
      'settle@500',
      'b@1000',
      'settle@1000',
      'c@1000',
      'settle@1000',
      'tick@1000',
      'settle@1000',
    ]);
    expect(isoAt(clock.now())).toBe('2026-03-01T00:00:03.000Z');
    expect(clock.pending()).toBe(0);
    expect(await clock.nextDue()).toBeUndefined();
  });

  it('refuses a move past the times a date can hold, and stays where it was', async () => {
    // Before the fix the walk's own set() skipped VirtualClock's range check: advance(1e20)
    // moved the clock to an instant no Date holds, and the next write failed as INTERNAL.
    const clock = new WalkClock(START);
    for (const move of [() => clock.set(9e15), () => clock.set(-9e15)])
      await expect(move()).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'to',
        message: expect.stringMatching(/outside the times a date can hold/),
      });
    await expect(clock.advance(1e20)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'ms',
      message: expect.stringMatching(/the last time a date can hold/),
    });
    expect(clock.now()).toBe(START);
    await clock.advance(1_000);
    expect(clock.now()).toBe(START + 1_000);
  });
});
