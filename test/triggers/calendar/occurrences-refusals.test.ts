// Every refusal of the calendar's occurrence and catch-up functions says exactly what was wrong
// and how to fix it, with the field as path, and the bounds are inclusive: the first and last
// accepted instants work, one millisecond beyond is refused, and the end of croner's range is
// an empty answer rather than a crash.
import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../../src/errors.js';
import {
  nextOccurrence,
  occurrencesBetween,
  planCatchUp,
  validateCalendarSpec,
  validateCatchUpPolicy,
  type Occurrence,
} from '../../../src/triggers/cron/occurrences.js';

const EXAMPLE = "'30 2 * * *' (02:30 every day) or '0 */15 9-17 * * 1-5' (with seconds)";
const FIELDS = `use 5 (minute hour day-of-month month day-of-week) or 6 (second first), e.g. ${EXAMPLE}`;
const ZONES = "'America/New_York', 'Europe/London' or 'UTC'";
const MIN = Date.UTC(100, 0, 2);
const MAX = Date.UTC(9999, 11, 30);
const RANGE = 'between 0100-01-02T00:00:00.000Z and 9999-12-30T00:00:00.000Z';
const daily = { cron: '0 0 * * *', timezone: 'UTC' };

function refusal(fn: () => unknown, code: string, path: string | undefined): string {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(isTwinError(caught), `expected a TwinError, got ${String(caught)}`).toBe(true);
  expect((caught as { code: string }).code).toBe(code);
  expect((caught as { path?: string }).path).toBe(path);
  return (caught as Error).message;
}
const spec =
  (cron: string, timezone = 'UTC') =>
  () =>
    validateCalendarSpec({ cron, timezone });

describe('calendar spec refusals', () => {
  it('a wrong number of fields, with the nickname hint only for a nickname', () => {
    expect(refusal(spec('* * * *'), 'INVALID_CONFIG', 'cron')).toBe(
      `cron '* * * *' has 4 field(s); ${FIELDS}`,
    );
    expect(refusal(spec(' @daily'), 'INVALID_CONFIG', 'cron')).toBe(
      `cron ' @daily' has 1 field(s); ${FIELDS}; nicknames are not accepted, write the fields ` +
        "instead ('@daily' is '0 0 * * *', '@hourly' is '0 * * * *')",
    );
  });

  it("croner's reason is passed on without its class prefix", () => {
    expect(refusal(spec('*/0 * * * *'), 'INVALID_CONFIG', 'cron')).toBe(
      `cron '*/0 * * * *' is not a valid cron expression (Syntax error, illegal stepping: 0); write it like ${EXAMPLE}`,
    );
  });

  it('a value out of its range names the field and the value as written', () => {
    // croner counts day-of-month and month from 0 and would say "month: 12" for a 13.
    for (const [cron, reason] of [
      ['61 * * * *', 'minute 61 is out of range: minute takes 0–59'],
      ['0 24 * * *', 'hour 24 is out of range: hour takes 0–23'],
      ['60 0 3 * * *', 'second 60 is out of range: second takes 0–59'],
      ['0 3 0 * *', 'day-of-month 0 is out of range: day-of-month takes 1–31'],
      ['0 3 32 * *', 'day-of-month 32 is out of range: day-of-month takes 1–31'],
      ['0 3 32W * *', 'day-of-month 32 is out of range: day-of-month takes 1–31'],
      ['0 3 * 13 *', 'month 13 is out of range: month takes 1–12 (or JAN–DEC)'],
      ['0 3 * 0 *', 'month 0 is out of range: month takes 1–12 (or JAN–DEC)'],
      [
        '0 3 * * 8',
        'day-of-week 8 is out of range: day-of-week takes 0–7 (or SUN–SAT; 0 and 7 are Sunday)',
      ],
    ] as const) {
      expect(refusal(spec(cron), 'INVALID_CONFIG', 'cron')).toBe(
        `cron '${cron}' is not a valid cron expression (${reason}); write it like ${EXAMPLE}`,
      );
    }
  });

  it('an empty zone is told to name one; an unknown zone is named', () => {
    expect(refusal(spec('0 * * * *', ''), 'INVALID_CONFIG', 'timezone')).toBe(
      `timezone must be an IANA zone name such as ${ZONES}`,
    );
    expect(refusal(spec('0 * * * *', 'Mars/Olympus_Mons'), 'INVALID_CONFIG', 'timezone')).toBe(
      `unknown time zone 'Mars/Olympus_Mons'; use an IANA zone name such as ${ZONES}`,
    );
  });
});

describe('instant bounds are inclusive', () => {
  it('the first and last accepted instants work; one millisecond beyond is refused', () => {
    expect(nextOccurrence(daily, MIN)?.wallTime).toBe('0100-01-03T00:00');
    expect(nextOccurrence(daily, MAX)).toBeUndefined();
    for (const [value, path] of [
      [MIN - 1, 'afterMs'],
      [MAX + 1, 'afterMs'],
    ] as const) {
      expect(refusal(() => nextOccurrence(daily, value), 'INVALID_ARGUMENT', path)).toBe(
        `${path} must be an integer epoch-milliseconds instant ${RANGE}`,
      );
    }
    expect(
      refusal(() => occurrencesBetween(daily, MIN, MAX + 1, 1), 'INVALID_ARGUMENT', 'untilMs'),
    ).toBe(`untilMs must be an integer epoch-milliseconds instant ${RANGE}`);
  });

  it('a range past the last date croner finds is empty, not an error', () => {
    expect(
      occurrencesBetween({ cron: '0 0 29 2 *', timezone: 'UTC' }, Date.UTC(2999, 5, 1), MAX, 10),
    ).toEqual({ occurrences: [], truncated: false });
  });
});

describe('occurrencesBetween argument refusals', () => {
  it('a range that ends before it starts names both ends', () => {
    expect(refusal(() => occurrencesBetween(daily, 10, 5, 10), 'INVALID_ARGUMENT', 'untilMs')).toBe(
      'untilMs (5) must not be before afterMs (10)',
    );
  });

  it('limit 1 is the smallest limit; 0 is refused', () => {
    const H = 3_600_000;
    expect(occurrencesBetween(daily, 0, 3 * 24 * H, 1)).toMatchObject({
      occurrences: [{ nominalAt: 24 * H }],
      truncated: true,
    });
    expect(refusal(() => occurrencesBetween(daily, 0, H, 0), 'INVALID_ARGUMENT', 'limit')).toBe(
      'limit must be a positive integer',
    );
  });
});

describe('catch-up refusals', () => {
  const H = 3_600_000;
  const due = (...at: number[]) =>
    at.map((t) => ({ nominalAt: t * H, wallTime: '', utcOffsetMinutes: 0, dst: 'normal' }));

  it('a policy without max or with an unknown kind says what to write', () => {
    expect(refusal(() => validateCatchUpPolicy({ kind: 'all' }), 'INVALID_CONFIG', 'max')).toBe(
      "kind 'all' needs max, a positive integer bounding how many missed occurrences run, e.g. { kind: 'all', max: 10 }",
    );
    expect(refusal(() => validateCatchUpPolicy({}), 'INVALID_CONFIG', 'kind')).toBe(
      "catch-up kind must be 'skip', 'latest' or 'all', not undefined",
    );
  });

  it('due that is not an array', () => {
    expect(
      refusal(
        () => planCatchUp('x' as unknown as Occurrence[], { kind: 'skip' }),
        'INVALID_ARGUMENT',
        'due',
      ),
    ).toBe('due must be an array of occurrences, oldest first');
  });

  it('an entry whose nominalAt is not a finite number', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '3600000', undefined]) {
      const list = [...due(1), { ...due(2)[0], nominalAt: bad }] as unknown as Occurrence[];
      expect(
        refusal(() => planCatchUp(list, { kind: 'latest' }), 'INVALID_ARGUMENT', 'due[1]'),
      ).toBe('due[1] is not an occurrence with a numeric nominalAt');
    }
  });

  it('an entry out of order names it and the one before it', () => {
    expect(
      refusal(
        () => planCatchUp(due(1, 3, 2) as Occurrence[], { kind: 'latest' }),
        'INVALID_ARGUMENT',
        'due[2]',
      ),
    ).toBe(
      'due must be strictly ascending by nominalAt with no repeats; due[2] is at or before due[1]',
    );
  });
});
