// A virtual clock takes a time the same way at every entry point (the constructor, set, advance;
// the walk's clock too): whole milliseconds kept exactly, a Date with its milliseconds, text read
// as the CLI reads a time; a fraction, NaN, Infinity, a negative step, text without a zone or off
// the calendar refused as INVALID_ARGUMENT naming the argument. Before, a Date lost its
// milliseconds (Date.parse of its text), a fraction made now() fractional, advance(-1) threw where
// set refused by rejecting, and "2026-03-01T09:00" was read in this machine's zone.
import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import { WalkClock } from '../../src/walk/walk-clock.js';
import { VirtualClock } from '../../src/world/clock.js';

const START = Date.parse('2026-03-01T00:00:00.000Z');

/** What a call refused with, whether it threw or rejected; undefined when it did neither. */
function refusal(call: () => unknown): Promise<unknown> {
  try {
    const answer = call();
    return answer instanceof Promise
      ? answer.then(
          () => undefined,
          (e: unknown) => e,
        )
      : Promise.resolve(undefined);
  } catch (error) {
    return Promise.resolve({ synchronous: error });
  }
}

describe.each([
  ['VirtualClock', (start?: unknown) => new VirtualClock(start as number)],
  ['WalkClock', (start?: unknown) => new WalkClock(start as number)],
])('%s arguments', (_name, make) => {
  it('keeps a Date to the millisecond, at every entry point', async () => {
    const clock = make(new Date('2026-03-01T00:00:00.123Z'));
    expect(clock.now()).toBe(START + 123);
    await clock.set(new Date('2026-03-01T00:00:01.456Z'));
    expect(clock.now()).toBe(START + 1456);
    await clock.set('2026-03-01T00:00:02.789Z');
    expect(clock.now()).toBe(START + 2789);
    await clock.advance(1);
    expect(clock.now()).toBe(START + 2790);
  });

  it('refuses a time that is no whole millisecond, naming the argument, and stays where it was', async () => {
    for (const [bad, words] of [
      [1.5, 'whole number of milliseconds, got'],
      [Number.NaN, 'got NaN'],
      [Number.POSITIVE_INFINITY, 'got Infinity'],
      [new Date('nope'), 'invalid Date'],
      [null, 'got null'],
      [{}, 'got an object (Object)'],
      ['2026-03-01T09:00', 'has no time zone'],
      ['tomorrow', 'is not an ISO 8601 time'],
      ['2026-02-30', 'not a time on the calendar'],
    ] as const) {
      expect(() => make(bad)).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          path: 'start',
          message: expect.stringContaining(words),
        }),
      );
      const clock = make(START);
      const at = START + 60_000;
      const moves = typeof bad === 'number' && Number.isFinite(bad) ? at + bad : bad;
      const refused = await refusal(() => clock.set(moves as number));
      expect(isTwinError(refused, 'INVALID_ARGUMENT')).toBe(true);
      expect(refused).toMatchObject({ path: 'to', message: expect.stringContaining(words) });
      expect(clock.now()).toBe(START);
    }
    // Text, a Date and whole milliseconds name the same instant.
    expect(make('2026-03-01T01:00:00+01:00').now()).toBe(START);
    expect(make('2026-03-01').now()).toBe(START);
  });

  it('refuses a step that is no whole number of milliseconds, 0 or more, by rejecting as set does', async () => {
    const clock = make(START);
    for (const bad of [
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '60000',
      new Date(),
      undefined,
    ]) {
      const refused = await refusal(() => clock.advance(bad as number));
      expect(refused).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'ms',
        message: expect.stringMatching(
          /^clock\.advance\(ms\): ms must be a whole number of milliseconds, 0 or more, got /,
        ),
      });
    }
    expect(await refusal(() => clock.set(START - 1))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'to',
      message: expect.stringContaining('never goes back'),
    });
    expect(clock.now()).toBe(START);
    await clock.advance(0);
    expect(clock.now()).toBe(START);
  });

  it('refuses a task at no time or that is no function; a fraction runs at the next whole millisecond', async () => {
    const clock = make(START);
    expect(() => clock.schedule(Number.NaN, () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'at' }),
    );
    expect(() => clock.schedule('2026-03-01T00:00:01Z' as unknown as number, () => {})).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'at' }),
    );
    expect(() => clock.schedule(START, undefined as unknown as () => void)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'task' }),
    );
    const seen: number[] = [];
    clock.schedule(START + 1.5, () => void seen.push(clock.now()));
    await clock.advance(1);
    expect(seen).toEqual([]);
    await clock.advance(1);
    expect(seen).toEqual([START + 2]);
    expect(Number.isInteger(clock.now())).toBe(true);
  });
});
