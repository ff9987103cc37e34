// What croner 11 does on its own with a `timezone` option, next to what occurrences.ts
// declares. The module does not use croner's zone handling (it runs croner in UTC on local
// wall times); these tests pin the native behaviour the module header describes, so that a
// croner upgrade that changes it is noticed, and they show where the two differ.
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { occurrencesBetween } from '../../../src/triggers/cron/occurrences.js';

const at = (iso: string): number => Date.parse(iso);

function native(cron: string, zone: string, from: string, until: string): string[] {
  const job = new Cron(cron, { timezone: zone, paused: true, mode: '5-or-6-parts' });
  const out: string[] = [];
  for (
    let d = job.nextRun(new Date(at(from)));
    d !== null && d.getTime() <= at(until);
    d = job.nextRun(d)
  ) {
    out.push(d.toISOString());
  }
  return out;
}

function ours(cron: string, zone: string, from: string, until: string): string[] {
  return occurrencesBetween({ cron, timezone: zone }, at(from), at(until), 10_000).occurrences.map(
    (o) => new Date(o.nominalAt).toISOString(),
  );
}

const NY = 'America/New_York';

describe('croner 11 native DST behaviour vs the declared rules', () => {
  it('fixed-time job in a gap: both run at the first instant after it (03:00 EDT)', () => {
    const args = ['30 2 * * *', NY, '2026-03-07T12:00:00Z', '2026-03-09T12:00:00Z'] as const;
    expect(native(...args)).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(ours(...args)).toEqual(native(...args));
  });

  it('fixed-time job in a fold: both run once, on the first pass', () => {
    const args = ['30 1 * * *', NY, '2026-10-31T12:00:00Z', '2026-11-02T12:00:00Z'] as const;
    expect(native(...args)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(ours(...args)).toEqual(native(...args));
  });

  it('interval job in a fold: croner runs both passes, the declared rule only the first', () => {
    const args = ['0 * * * *', NY, '2026-11-01T04:30:00Z', '2026-11-01T07:30:00Z'] as const;
    expect(native(...args)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
    ]);
    expect(ours(...args)).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T07:00:00.000Z']);
  });

  it('interval job in a gap: croner skips 02:30, the declared rule shifts it to 03:00', () => {
    const args = ['30 * * * *', NY, '2026-03-08T06:00:00Z', '2026-03-08T08:00:00Z'] as const;
    expect(native(...args)).toEqual(['2026-03-08T06:30:00.000Z', '2026-03-08T07:30:00.000Z']);
    expect(ours(...args)).toEqual([
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
  });

  it('a list counts as an interval job for croner (02:30 skipped); the declared rule shifts it', () => {
    const args = ['30 2,14 * * *', NY, '2026-03-08T00:00:00Z', '2026-03-08T23:00:00Z'] as const;
    expect(native(...args)).toEqual(['2026-03-08T18:30:00.000Z']);
    expect(ours(...args)).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-08T18:30:00.000Z']);
  });

  it('a skipped calendar day (Pacific/Apia 2011-12-30): croner skips it, the declared rule shifts it', () => {
    const args = [
      '0 9 * * *',
      'Pacific/Apia',
      '2011-12-29T12:00:00Z',
      '2011-12-31T00:00:00Z',
    ] as const;
    expect(native(...args)).toEqual(['2011-12-29T19:00:00.000Z', '2011-12-30T19:00:00.000Z']);
    expect(ours(...args)).toEqual([
      '2011-12-29T19:00:00.000Z',
      '2011-12-30T10:00:00.000Z',
      '2011-12-30T19:00:00.000Z',
    ]);
  });
});

describe('agreement with croner native away from DST changes', () => {
  const zones = [
    'America/New_York',
    'Europe/London',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'Asia/Kolkata',
    'America/Sao_Paulo',
  ];
  const from = '2026-01-01T00:00:00Z';
  const until = '2027-01-01T00:00:00Z';

  // Fixed-time patterns follow the same rules natively, so the whole year must agree,
  // transition days included.
  const fixed = [
    '30 2 * * *',
    '45 1 * * *',
    '0 0 * * *',
    '15 2 * * 0',
    '0 9 * * 1-5',
    '0 23 L * *',
    '0 12 * * 5#2',
    '30 8 15W * *',
    '10 30 2 * * *',
    '0 0 29 2 *',
  ];
  for (const zone of zones) {
    it(`fixed-time patterns agree all year in ${zone}`, () => {
      for (const cron of fixed)
        expect([cron, ours(cron, zone, from, until)]).toEqual([
          cron,
          native(cron, zone, from, until),
        ]);
    });
  }

  // Interval patterns differ only within a day of a transition.
  const interval = ['0 */3 * * *', '*/20 1-3 * * *', '0 6,18 * * *'];
  for (const zone of zones) {
    it(`interval patterns agree in ${zone} except within a day of a transition`, () => {
      const day = 86_400_000;
      const fmt = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      const offset = (ms: number): string | undefined =>
        fmt.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value;
      const quiet = (iso: string): boolean =>
        offset(Date.parse(iso) - day) === offset(Date.parse(iso) + day);
      for (const cron of interval) {
        const a = ours(cron, zone, from, until).filter(quiet);
        const b = native(cron, zone, from, until).filter(quiet);
        expect(a.length).toBeGreaterThan(300);
        expect([cron, a]).toEqual([cron, b]);
      }
    });
  }
});
