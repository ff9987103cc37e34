import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../../src/errors.js';
import {
  DST_RULES,
  nextOccurrence,
  occurrencesBetween,
  validateCalendarSpec,
  type CalendarSpec,
  type Occurrence,
} from '../../../src/triggers/cron/occurrences.js';

const at = (iso: string): number => Date.parse(iso);
const NY = 'America/New_York';
const LONDON = 'Europe/London';
const LORD_HOWE = 'Australia/Lord_Howe';

function spec(cron: string, timezone: string): CalendarSpec {
  return { cron, timezone };
}

/** Occurrences in (from, until] as compact tuples: [ISO instant, wall time, offset, dst]. */
function between(
  cron: string,
  zone: string,
  from: string,
  until: string,
): Array<[string, string, number, Occurrence['dst']]> {
  const { occurrences, truncated } = occurrencesBetween(
    spec(cron, zone),
    at(from),
    at(until),
    10_000,
  );
  expect(truncated).toBe(false);
  return occurrences.map((o) => [
    new Date(o.nominalAt).toISOString(),
    o.wallTime,
    o.utcOffsetMinutes,
    o.dst,
  ]);
}

function expectConfigError(fn: () => unknown, path: string | undefined, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(isTwinError(caught, 'INVALID_CONFIG')).toBe(true);
  if (!isTwinError(caught)) return;
  expect(caught.path).toBe(path);
  expect(caught.message).toMatch(message);
}

describe('declared DST rules', () => {
  it('are shift-forward for gaps and first for folds', () => {
    expect(DST_RULES).toEqual({ gap: 'shift-forward', fold: 'first' });
  });
});

describe('America/New_York, spring forward 2026-03-08 (02:00 EST -> 03:00 EDT at 07:00Z)', () => {
  it('fires a daily 02:30 at 03:00 EDT (07:00Z), marked gap-shifted, then resumes at 02:30', () => {
    const first = nextOccurrence(spec('30 2 * * *', NY), at('2026-03-07T12:00:00Z'));
    expect(first).toEqual({
      nominalAt: at('2026-03-08T07:00:00Z'),
      wallTime: '2026-03-08T03:00',
      utcOffsetMinutes: -240,
      dst: 'gap-shifted',
    });
    expect(between('30 2 * * *', NY, '2026-03-06T12:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      ['2026-03-07T07:30:00.000Z', '2026-03-07T02:30', -300, 'normal'],
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'gap-shifted'],
      ['2026-03-09T06:30:00.000Z', '2026-03-09T02:30', -240, 'normal'],
    ]);
  });

  it('merges the nonexistent 02:00 of an hourly job into the real 03:00 (one run, normal)', () => {
    expect(between('0 * * * *', NY, '2026-03-08T04:30:00Z', '2026-03-08T08:30:00Z')).toEqual([
      ['2026-03-08T05:00:00.000Z', '2026-03-08T00:00', -300, 'normal'],
      ['2026-03-08T06:00:00.000Z', '2026-03-08T01:00', -300, 'normal'],
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'normal'],
      ['2026-03-08T08:00:00.000Z', '2026-03-08T04:00', -240, 'normal'],
    ]);
  });

  it('shifts the 02:30 of an interval job (`30 * * * *`) to 03:00 instead of skipping it', () => {
    expect(between('30 * * * *', NY, '2026-03-08T06:00:00Z', '2026-03-08T08:00:00Z')).toEqual([
      ['2026-03-08T06:30:00.000Z', '2026-03-08T01:30', -300, 'normal'],
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'gap-shifted'],
      ['2026-03-08T07:30:00.000Z', '2026-03-08T03:30', -240, 'normal'],
    ]);
  });

  it('collapses every wall time in the gap into one run (`*/15`)', () => {
    expect(between('*/15 * * * *', NY, '2026-03-08T06:40:00Z', '2026-03-08T07:20:00Z')).toEqual([
      ['2026-03-08T06:45:00.000Z', '2026-03-08T01:45', -300, 'normal'],
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'normal'],
      ['2026-03-08T07:15:00.000Z', '2026-03-08T03:15', -240, 'normal'],
    ]);
    expect(between('20,40 * * * *', NY, '2026-03-08T06:30:00Z', '2026-03-08T07:30:00Z')).toEqual([
      ['2026-03-08T06:40:00.000Z', '2026-03-08T01:40', -300, 'normal'],
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'gap-shifted'],
      ['2026-03-08T07:20:00.000Z', '2026-03-08T03:20', -240, 'normal'],
    ]);
  });

  it('applies the same rule to lists (`30 2,14 * * *`), which croner would skip', () => {
    expect(between('30 2,14 * * *', NY, '2026-03-08T00:00:00Z', '2026-03-08T23:00:00Z')).toEqual([
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'gap-shifted'],
      ['2026-03-08T18:30:00.000Z', '2026-03-08T14:30', -240, 'normal'],
    ]);
  });

  it('handles 6-field patterns with seconds in the gap', () => {
    expect(between('10 30 2 * * *', NY, '2026-03-08T00:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      ['2026-03-08T07:00:00.000Z', '2026-03-08T03:00', -240, 'gap-shifted'],
      ['2026-03-09T06:30:10.000Z', '2026-03-09T02:30', -240, 'normal'],
    ]);
  });

  it('treats the shifted instant like any other for strictly-after', () => {
    const s = spec('30 2 * * *', NY);
    expect(nextOccurrence(s, at('2026-03-08T06:59:59.999Z'))?.nominalAt).toBe(
      at('2026-03-08T07:00:00Z'),
    );
    expect(nextOccurrence(s, at('2026-03-08T07:00:00Z'))?.nominalAt).toBe(
      at('2026-03-09T06:30:00Z'),
    );
  });
});

describe('America/New_York, fall back 2026-11-01 (02:00 EDT -> 01:00 EST at 06:00Z)', () => {
  it('fires a daily 01:30 once, at 01:30 EDT (05:30Z), marked fold-first', () => {
    expect(nextOccurrence(spec('30 1 * * *', NY), at('2026-10-31T12:00:00Z'))).toEqual({
      nominalAt: at('2026-11-01T05:30:00Z'),
      wallTime: '2026-11-01T01:30',
      utcOffsetMinutes: -240,
      dst: 'fold-first',
    });
    expect(between('30 1 * * *', NY, '2026-10-31T00:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      ['2026-10-31T05:30:00.000Z', '2026-10-31T01:30', -240, 'normal'],
      ['2026-11-01T05:30:00.000Z', '2026-11-01T01:30', -240, 'fold-first'],
      ['2026-11-02T06:30:00.000Z', '2026-11-02T01:30', -300, 'normal'],
    ]);
  });

  it('does not fire the 01:30 again after a restart during the repeated hour', () => {
    const s = spec('30 1 * * *', NY);
    // 06:10Z is 01:10 EST, the second pass; 06:30Z (01:30 EST) must not fire.
    expect(nextOccurrence(s, at('2026-11-01T06:10:00Z'))?.nominalAt).toBe(
      at('2026-11-02T06:30:00Z'),
    );
    expect(nextOccurrence(s, at('2026-11-01T05:29:59.999Z'))?.nominalAt).toBe(
      at('2026-11-01T05:30:00Z'),
    );
    expect(nextOccurrence(s, at('2026-11-01T05:30:00Z'))?.nominalAt).toBe(
      at('2026-11-02T06:30:00Z'),
    );
  });

  it('fires an hourly job at 01:00 EDT but not again at 01:00 EST (rule first)', () => {
    expect(between('0 * * * *', NY, '2026-11-01T03:30:00Z', '2026-11-01T09:30:00Z')).toEqual([
      ['2026-11-01T04:00:00.000Z', '2026-11-01T00:00', -240, 'normal'],
      ['2026-11-01T05:00:00.000Z', '2026-11-01T01:00', -240, 'fold-first'],
      // no 06:00Z (01:00 EST): the repeated 01:00 does not fire a second time
      ['2026-11-01T07:00:00.000Z', '2026-11-01T02:00', -300, 'normal'],
      ['2026-11-01T08:00:00.000Z', '2026-11-01T03:00', -300, 'normal'],
      ['2026-11-01T09:00:00.000Z', '2026-11-01T04:00', -300, 'normal'],
    ]);
    // From inside the second pass, the next run is 02:00 EST.
    expect(nextOccurrence(spec('0 * * * *', NY), at('2026-11-01T06:00:00Z'))?.nominalAt).toBe(
      at('2026-11-01T07:00:00Z'),
    );
  });

  it('keeps a `*/30` job silent for the repeated hour', () => {
    expect(between('*/30 * * * *', NY, '2026-11-01T04:40:00Z', '2026-11-01T07:40:00Z')).toEqual([
      ['2026-11-01T05:00:00.000Z', '2026-11-01T01:00', -240, 'fold-first'],
      ['2026-11-01T05:30:00.000Z', '2026-11-01T01:30', -240, 'fold-first'],
      ['2026-11-01T07:00:00.000Z', '2026-11-01T02:00', -300, 'normal'],
      ['2026-11-01T07:30:00.000Z', '2026-11-01T02:30', -300, 'normal'],
    ]);
  });
});

describe('Europe/London 2026', () => {
  it('spring forward (Mar 29, 01:00 GMT -> 02:00 BST at 01:00Z): 01:30 fires at 02:00 BST, gap-shifted', () => {
    expect(between('30 1 * * *', LONDON, '2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z')).toEqual([
      ['2026-03-28T01:30:00.000Z', '2026-03-28T01:30', 0, 'normal'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T02:00', 60, 'gap-shifted'],
      ['2026-03-30T00:30:00.000Z', '2026-03-30T01:30', 60, 'normal'],
    ]);
    expect(between('0 * * * *', LONDON, '2026-03-28T23:30:00Z', '2026-03-29T02:30:00Z')).toEqual([
      ['2026-03-29T00:00:00.000Z', '2026-03-29T00:00', 0, 'normal'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T02:00', 60, 'normal'],
      ['2026-03-29T02:00:00.000Z', '2026-03-29T03:00', 60, 'normal'],
    ]);
  });

  it('fall back (Oct 25, 02:00 BST -> 01:00 GMT at 01:00Z): 01:30 fires once at 01:30 BST, fold-first', () => {
    expect(between('30 1 * * *', LONDON, '2026-10-24T00:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
      ['2026-10-24T00:30:00.000Z', '2026-10-24T01:30', 60, 'normal'],
      ['2026-10-25T00:30:00.000Z', '2026-10-25T01:30', 60, 'fold-first'],
      ['2026-10-26T01:30:00.000Z', '2026-10-26T01:30', 0, 'normal'],
    ]);
    expect(between('0 * * * *', LONDON, '2026-10-24T22:30:00Z', '2026-10-25T03:30:00Z')).toEqual([
      ['2026-10-24T23:00:00.000Z', '2026-10-25T00:00', 60, 'normal'],
      ['2026-10-25T00:00:00.000Z', '2026-10-25T01:00', 60, 'fold-first'],
      ['2026-10-25T02:00:00.000Z', '2026-10-25T02:00', 0, 'normal'],
      ['2026-10-25T03:00:00.000Z', '2026-10-25T03:00', 0, 'normal'],
    ]);
  });
});

describe('Australia/Lord_Howe 2026 (30-minute DST)', () => {
  it('DST start (Oct 4, 02:00 +10:30 -> 02:30 +11:00): 02:15 falls in the gap and fires at 02:30', () => {
    expect(
      between('15 2 * * *', LORD_HOWE, '2026-10-02T12:00:00Z', '2026-10-05T12:00:00Z'),
    ).toEqual([
      ['2026-10-02T15:45:00.000Z', '2026-10-03T02:15', 630, 'normal'],
      ['2026-10-03T15:30:00.000Z', '2026-10-04T02:30', 660, 'gap-shifted'],
      ['2026-10-04T15:15:00.000Z', '2026-10-05T02:15', 660, 'normal'],
    ]);
  });

  it('DST end (Apr 5, 02:00 +11:00 -> 01:30 +10:30): 01:45 is ambiguous and fires once, first', () => {
    expect(
      between('45 1 * * *', LORD_HOWE, '2026-04-03T12:00:00Z', '2026-04-06T12:00:00Z'),
    ).toEqual([
      ['2026-04-03T14:45:00.000Z', '2026-04-04T01:45', 660, 'normal'],
      ['2026-04-04T14:45:00.000Z', '2026-04-05T01:45', 660, 'fold-first'],
      ['2026-04-05T15:15:00.000Z', '2026-04-06T01:45', 630, 'normal'],
    ]);
    // 15:15Z on Apr 4 is the second 01:45: not a run.
    expect(
      nextOccurrence(spec('45 1 * * *', LORD_HOWE), at('2026-04-04T14:50:00Z'))?.nominalAt,
    ).toBe(at('2026-04-05T15:15:00Z'));
  });

  it('a `*/15` job through the repeated half hour fires each wall time once', () => {
    expect(
      between('*/15 * * * *', LORD_HOWE, '2026-04-04T14:10:00Z', '2026-04-04T15:40:00Z'),
    ).toEqual([
      ['2026-04-04T14:15:00.000Z', '2026-04-05T01:15', 660, 'normal'],
      ['2026-04-04T14:30:00.000Z', '2026-04-05T01:30', 660, 'fold-first'],
      ['2026-04-04T14:45:00.000Z', '2026-04-05T01:45', 660, 'fold-first'],
      ['2026-04-04T15:30:00.000Z', '2026-04-05T02:00', 630, 'normal'],
    ]);
  });
});

describe('other zones', () => {
  it('Pacific/Apia skipped 2011-12-30: its 09:00 fires at the first instant of Dec 31', () => {
    expect(
      between('0 9 * * *', 'Pacific/Apia', '2011-12-28T12:00:00Z', '2011-12-31T12:00:00Z'),
    ).toEqual([
      ['2011-12-28T19:00:00.000Z', '2011-12-28T09:00', -600, 'normal'],
      ['2011-12-29T19:00:00.000Z', '2011-12-29T09:00', -600, 'normal'],
      ['2011-12-30T10:00:00.000Z', '2011-12-31T00:00', 840, 'gap-shifted'],
      ['2011-12-30T19:00:00.000Z', '2011-12-31T09:00', 840, 'normal'],
    ]);
  });

  it('America/Sao_Paulo 2018-11-04 midnight gap: 00:00 fires at 01:00', () => {
    expect(
      between('0 0 * * *', 'America/Sao_Paulo', '2018-11-02T12:00:00Z', '2018-11-05T12:00:00Z'),
    ).toEqual([
      ['2018-11-03T03:00:00.000Z', '2018-11-03T00:00', -180, 'normal'],
      ['2018-11-04T03:00:00.000Z', '2018-11-04T01:00', -120, 'gap-shifted'],
      ['2018-11-05T02:00:00.000Z', '2018-11-05T00:00', -120, 'normal'],
    ]);
  });
});

describe('UTC control', () => {
  it('has no gap or fold: every occurrence is normal, offset 0, wallTime = ISO minute', () => {
    const { occurrences, truncated } = occurrencesBetween(
      spec('*/30 * * * *', 'UTC'),
      at('2026-03-07T00:00:00Z'),
      at('2026-03-10T00:00:00Z'),
      1000,
    );
    expect(truncated).toBe(false);
    expect(occurrences).toHaveLength(3 * 48);
    for (const [i, o] of occurrences.entries()) {
      expect(o.nominalAt).toBe(at('2026-03-07T00:30:00Z') + i * 1_800_000);
      expect(o.dst).toBe('normal');
      expect(o.utcOffsetMinutes).toBe(0);
      expect(o.wallTime).toBe(new Date(o.nominalAt).toISOString().slice(0, 16));
    }
    const daily = between('30 1 * * *', 'UTC', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z');
    expect(daily).toHaveLength(365);
    expect(daily.every(([, , offset, dst]) => offset === 0 && dst === 'normal')).toBe(true);
  });
});

describe('occurrencesBetween bounds and limit', () => {
  const hourly = spec('0 * * * *', 'UTC');
  const t0 = at('2026-05-01T00:00:00Z');
  const H = 3_600_000;

  it('excludes afterMs and includes untilMs', () => {
    const r = occurrencesBetween(hourly, t0, t0 + 3 * H, 100);
    expect(r.occurrences.map((o) => o.nominalAt)).toEqual([t0 + H, t0 + 2 * H, t0 + 3 * H]);
    expect(r.truncated).toBe(false);
    expect(
      occurrencesBetween(hourly, t0 - 1, t0 + 3 * H - 1, 100).occurrences.map((o) => o.nominalAt),
    ).toEqual([t0, t0 + H, t0 + 2 * H]);
  });

  it('returns nothing for an empty range', () => {
    expect(occurrencesBetween(hourly, t0, t0, 10)).toEqual({ occurrences: [], truncated: false });
    expect(occurrencesBetween(hourly, t0 + 1, t0 + H - 1, 10)).toEqual({
      occurrences: [],
      truncated: false,
    });
  });

  it('stops at limit and says so only when more remain in range', () => {
    const cut = occurrencesBetween(hourly, t0, t0 + 5 * H, 3);
    expect(cut.occurrences.map((o) => o.nominalAt)).toEqual([t0 + H, t0 + 2 * H, t0 + 3 * H]);
    expect(cut.truncated).toBe(true);
    const exact = occurrencesBetween(hourly, t0, t0 + 3 * H, 3);
    expect(exact.occurrences).toHaveLength(3);
    expect(exact.truncated).toBe(false);
  });

  it('matches repeated nextOccurrence, ascending, across DST changes', () => {
    const s = spec('*/20 0-3 * * *', NY);
    const from = at('2026-10-31T00:00:00Z');
    const until = at('2026-11-03T00:00:00Z');
    const listed = occurrencesBetween(s, from, until, 1000).occurrences;
    const walked: Occurrence[] = [];
    for (
      let o = nextOccurrence(s, from);
      o !== undefined && o.nominalAt <= until;
      o = nextOccurrence(s, o.nominalAt)
    ) {
      walked.push(o);
    }
    expect(listed).toEqual(walked);
    for (let i = 1; i < listed.length; i++)
      expect(listed[i]!.nominalAt).toBeGreaterThan(listed[i - 1]!.nominalAt);
    // 3 days x 12 wall times, less nothing: each wall time fires exactly once.
    expect(new Set(listed.map((o) => o.wallTime)).size).toBe(listed.length);
    expect(listed).toHaveLength(36);
  });

  it('refuses bad arguments with INVALID_ARGUMENT and the argument as path', () => {
    const cases: Array<[() => unknown, string]> = [
      [() => occurrencesBetween(hourly, t0, t0 - 1, 10), 'untilMs'],
      [() => occurrencesBetween(hourly, t0, t0 + H, 0), 'limit'],
      [() => occurrencesBetween(hourly, t0, t0 + H, 1.5), 'limit'],
      [() => occurrencesBetween(hourly, Number.NaN, t0, 10), 'afterMs'],
      [() => occurrencesBetween(hourly, t0, Number.POSITIVE_INFINITY, 10), 'untilMs'],
      [() => nextOccurrence(hourly, 1.5), 'afterMs'],
      [() => nextOccurrence(hourly, 8.64e15), 'afterMs'],
    ];
    for (const [fn, path] of cases) {
      let caught: unknown;
      try {
        fn();
      } catch (error) {
        caught = error;
      }
      expect(isTwinError(caught, 'INVALID_ARGUMENT')).toBe(true);
      expect((caught as { path?: string }).path).toBe(path);
    }
  });
});

describe('nextOccurrence', () => {
  it('is strictly after afterMs, to the millisecond', () => {
    const s = spec('0 12 * * *', 'Europe/Berlin');
    const noon = at('2026-06-15T10:00:00Z');
    expect(nextOccurrence(s, noon - 1)?.nominalAt).toBe(noon);
    expect(nextOccurrence(s, noon)?.nominalAt).toBe(noon + 86_400_000);
    expect(nextOccurrence(s, noon + 1)?.nominalAt).toBe(noon + 86_400_000);
  });

  it('supports seconds, L, W and # in the zone calendar', () => {
    const s6 = spec('*/20 * * * * *', 'UTC');
    expect(nextOccurrence(s6, at('2026-01-01T00:00:00.500Z'))?.nominalAt).toBe(
      at('2026-01-01T00:00:20Z'),
    );
    // Last day of February 2026, 23:00 in Tokyo = 14:00Z.
    expect(
      nextOccurrence(spec('0 23 L 2 *', 'Asia/Tokyo'), at('2026-01-01T00:00:00Z'))?.wallTime,
    ).toBe('2026-02-28T23:00');
    // Second Friday of May 2026 (the 8th), 09:00 in Kolkata (+05:30) = 03:30Z.
    expect(nextOccurrence(spec('0 9 * * 5#2', 'Asia/Kolkata'), at('2026-05-01T00:00:00Z'))).toEqual(
      {
        nominalAt: at('2026-05-08T03:30:00Z'),
        wallTime: '2026-05-08T09:00',
        utcOffsetMinutes: 330,
        dst: 'normal',
      },
    );
    // 15W in August 2026: the 15th is a Saturday, so Friday the 14th.
    expect(nextOccurrence(spec('0 8 15W * *', 'UTC'), at('2026-08-01T00:00:00Z'))?.wallTime).toBe(
      '2026-08-14T08:00',
    );
  });

  it('returns undefined when the pattern has no later date (croner searches up to the year 3000)', () => {
    expect(nextOccurrence(spec('0 0 29 2 *', 'UTC'), at('2999-06-01T00:00:00Z'))).toBeUndefined();
  });
});

describe('validateCalendarSpec', () => {
  it('returns cron and timezone', () => {
    expect(validateCalendarSpec({ cron: '30 2 * * *', timezone: NY, extra: 1 })).toEqual({
      cron: '30 2 * * *',
      timezone: NY,
    });
    expect(validateCalendarSpec({ cron: '0 30 2 * * 1-5', timezone: 'UTC' }).cron).toBe(
      '0 30 2 * * 1-5',
    );
  });

  it('refuses a spec that is not an object', () => {
    expectConfigError(() => validateCalendarSpec('30 2 * * *'), undefined, /must be an object/);
    expectConfigError(() => validateCalendarSpec(null), undefined, /must be an object/);
  });

  it('refuses bad cron expressions with path cron', () => {
    expectConfigError(
      () => validateCalendarSpec({ cron: 42, timezone: 'UTC' }),
      'cron',
      /non-empty string/,
    );
    expectConfigError(() => validateCalendarSpec({ timezone: 'UTC' }), 'cron', /non-empty string/);
    expectConfigError(
      () => validateCalendarSpec({ cron: '  ', timezone: 'UTC' }),
      'cron',
      /non-empty string/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '* * * *', timezone: 'UTC' }),
      'cron',
      /has 4 field\(s\); use 5/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '0 0 0 1 1 * 2030', timezone: 'UTC' }),
      'cron',
      /has 7 field/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '@daily', timezone: 'UTC' }),
      'cron',
      /'@daily' is '0 0 \* \* \*'/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '61 * * * *', timezone: 'UTC' }),
      'cron',
      /not a valid cron expression/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '0 25 * * *', timezone: 'UTC' }),
      'cron',
      /not a valid cron expression/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: 'a b c d e', timezone: 'UTC' }),
      'cron',
      /not a valid cron expression/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '0 0 30 2 *', timezone: 'UTC' }),
      'cron',
      /never matches/,
    );
  });

  it('refuses unknown or missing zones with path timezone', () => {
    expectConfigError(
      () => validateCalendarSpec({ cron: '0 * * * *', timezone: 'Mars/Olympus_Mons' }),
      'timezone',
      /unknown time zone 'Mars\/Olympus_Mons'.*IANA/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '0 * * * *', timezone: '' }),
      'timezone',
      /IANA zone name/,
    );
    expectConfigError(
      () => validateCalendarSpec({ cron: '0 * * * *' }),
      'timezone',
      /IANA zone name/,
    );
  });

  it('is applied by nextOccurrence and occurrencesBetween', () => {
    expectConfigError(
      () => nextOccurrence({ cron: '0 * * *', timezone: 'UTC' }, 0),
      'cron',
      /field/,
    );
    expectConfigError(
      () => occurrencesBetween({ cron: '0 * * * *', timezone: 'Nowhere/Town' }, 0, 1, 1),
      'timezone',
      /unknown/,
    );
  });
});
