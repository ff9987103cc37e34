// What a cron pattern means here, beyond croner's defaults we pin: day-of-month and day-of-week
// are OR-ed (standard cron), a step needs a `*` or a range before it, whitespace around and
// between fields is not a field, and the host's time zone plays no part in any occurrence.
import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../../src/errors.js';
import {
  nextOccurrence,
  occurrencesBetween,
  validateCalendarSpec,
} from '../../../src/triggers/cron/occurrences.js';

const at = (iso: string): number => Date.parse(iso);

/**
 * Node re-reads TZ when it is set, but only on the main thread of a process: the suite runs in
 * forks, where this is true; StrykerJS runs vitest in worker threads, where the zone test below
 * cannot switch the host's zone and is skipped (see test/mutation/modules.mjs).
 */
function canSwitchHostZone(): boolean {
  const saved = process.env['TZ'];
  try {
    process.env['TZ'] = 'Asia/Kolkata';
    return new Date(0).getTimezoneOffset() === -330;
  } finally {
    if (saved === undefined) delete process.env['TZ'];
    else process.env['TZ'] = saved;
  }
}

describe('cron pattern rules', () => {
  it('a day of month and a day of week both given fire on either (OR, as standard cron)', () => {
    // 2026-01-02 is a Friday; the first Friday the 13th of 2026 is in February.
    const spec = { cron: '0 12 13 * 5', timezone: 'UTC' };
    const { occurrences } = occurrencesBetween(
      spec,
      at('2026-01-01T00:00:00Z'),
      at('2026-01-20T00:00:00Z'),
      10,
    );
    expect(occurrences.map((o) => o.wallTime)).toEqual([
      '2026-01-02T12:00',
      '2026-01-09T12:00',
      '2026-01-13T12:00',
      '2026-01-16T12:00',
    ]);
  });

  it('refuses a step with a bare number or nothing before it, naming the fix', () => {
    for (const cron of ['5/10 * * * *', '/10 * * * *']) {
      let caught: unknown;
      try {
        validateCalendarSpec({ cron, timezone: 'UTC' });
      } catch (error) {
        caught = error;
      }
      expect(isTwinError(caught, 'INVALID_CONFIG')).toBe(true);
      expect((caught as Error).message).toMatch(
        /is not a valid cron expression \(Syntax error, stepping with (numeric|missing) prefix .* Use wildcard \(\*\/step\) or range \(min-max\/step\) instead\.\)/,
      );
    }
  });

  it('ignores whitespace around and between fields, for 5 and 6 fields alike', () => {
    const t0 = at('2026-05-01T00:00:00Z');
    for (const cron of [' 0 30 2 * * * ', '0  30\t2 * * *', '  30 2 * * *  ', '30   2 * * *']) {
      expect(validateCalendarSpec({ cron, timezone: 'UTC' })).toEqual({ cron, timezone: 'UTC' });
      expect(nextOccurrence({ cron, timezone: 'UTC' }, t0)?.nominalAt).toBe(
        at('2026-05-01T02:30:00Z'),
      );
    }
  });

  it.runIf(canSwitchHostZone())("gives the same occurrences whatever the host's time zone", () => {
    const spec = { cron: '30 2 * * *', timezone: 'America/New_York' };
    const from = at('2026-03-07T00:00:00Z');
    const until = at('2026-03-10T00:00:00Z');
    const expected = occurrencesBetween(spec, from, until, 10);
    const utc = occurrencesBetween({ cron: '0 9 * * 1-5', timezone: 'UTC' }, from, until, 10);
    const saved = process.env['TZ'];
    try {
      for (const zone of ['Asia/Kolkata', 'America/Los_Angeles', 'Pacific/Chatham']) {
        process.env['TZ'] = zone;
        // The host clock really is in another zone now.
        expect(new Date(at('2026-03-08T12:00:00Z')).getTimezoneOffset()).not.toBe(0);
        expect(occurrencesBetween(spec, from, until, 10)).toEqual(expected);
        expect(
          occurrencesBetween({ cron: '0 9 * * 1-5', timezone: 'UTC' }, from, until, 10),
        ).toEqual(utc);
      }
    } finally {
      if (saved === undefined) delete process.env['TZ'];
      else process.env['TZ'] = saved;
    }
    expect(expected.occurrences.map((o) => [o.wallTime, o.dst])).toEqual([
      ['2026-03-07T02:30', 'normal'],
      ['2026-03-08T03:00', 'gap-shifted'],
      ['2026-03-09T02:30', 'normal'],
    ]);
    expect(utc.occurrences.map((o) => o.wallTime)).toEqual(['2026-03-09T09:00']);
  });
});
