// Brute force against the declared rules around real transitions. The oracle walks every
// minute through the zone's clock (read with its own Intl formatter) and fires at instant t
// when the clock reaches, for the first time ever, a wall time the pattern matches. It shares
// no code with zone.ts; croner is used only to ask whether a wall time matches.
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { occurrencesBetween, type Occurrence } from '../../../src/triggers/cron/occurrences.js';

const MIN = 60_000;
const DAY = 86_400_000;

function wallClock(zone: string): (ms: number) => number {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  return (ms) => {
    const p: Record<string, number> = {};
    for (const part of fmt.formatToParts(ms)) p[part.type] = Number(part.value);
    return Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']! % 24, p['minute']!);
  };
}

type Row = [string, string, number, Occurrence['dst']];

function oracle(cron: string, zone: string, from: number, until: number): Row[] {
  const matcher = new Cron(cron, { utcOffset: 0, paused: true, mode: '5-part' });
  const matches = (w: number): boolean => matcher.match(new Date(w));
  const wall = wallClock(zone);
  const start = from - 2 * DAY;
  const walls: number[] = [];
  for (let t = start; t <= until + 2 * DAY; t += MIN) walls.push(wall(t));
  const index = (t: number): number => (t - start) / MIN;
  let high = -Infinity;
  for (let t = start; t <= from; t += MIN) high = Math.max(high, walls[index(t)]!);
  const rows: Row[] = [];
  for (let t = from + MIN; t <= until; t += MIN) {
    const w = walls[index(t)]!;
    if (w <= high) continue;
    let reached = false;
    for (let v = Math.max(high + MIN, w - 2 * DAY); v <= w; v += MIN)
      if (matches(v)) reached = true;
    high = w;
    if (!reached) continue;
    let dst: Occurrence['dst'] = 'normal';
    if (!matches(w)) dst = 'gap-shifted';
    else if (walls.slice(index(t) + 1).includes(w)) dst = 'fold-first';
    const iso = new Date(w).toISOString().slice(0, 16);
    rows.push([new Date(t).toISOString(), iso, (w - t) / MIN, dst]);
  }
  return rows;
}

function ours(cron: string, zone: string, from: number, until: number): Row[] {
  return occurrencesBetween({ cron, timezone: zone }, from, until, 10_000).occurrences.map((o) => [
    new Date(o.nominalAt).toISOString(),
    o.wallTime,
    o.utcOffsetMinutes,
    o.dst,
  ]);
}

/** Midnight-UTC days (as epoch ms) in [from, until) on which the zone's offset changes. */
function transitionDays(zone: string, from: string, until: string): number[] {
  const wall = wallClock(zone);
  const offset = (ms: number): number => wall(ms) - ms;
  const days: number[] = [];
  for (let d = Date.parse(from); d < Date.parse(until); d += DAY)
    if (offset(d) !== offset(d + DAY)) days.push(d);
  return days;
}

const PATTERNS = [
  '*/15 * * * *',
  '0 * * * *',
  '30 * * * *',
  '30 1 * * *',
  '45 2 * * *',
  '0 0 * * *',
  '30 23 * * *',
  '*/7 0-3 * * *',
  '5,55 0,1,2,23 * * *',
];

const ZONES: Array<[string, string, string]> = [
  ['America/New_York', '2026-01-01', '2027-01-01'],
  ['Europe/London', '2026-01-01', '2027-01-01'],
  ['Australia/Lord_Howe', '2026-01-01', '2027-01-01'],
  ['Pacific/Chatham', '2026-01-01', '2027-01-01'],
  ['Antarctica/Troll', '2026-01-01', '2027-01-01'],
  ['America/Havana', '2026-01-01', '2027-01-01'],
  ['America/Sao_Paulo', '2018-10-01', '2019-03-01'],
  ['Asia/Tehran', '2022-01-01', '2023-01-01'],
  ['Pacific/Apia', '2011-12-01', '2012-01-15'],
];

describe('occurrences match a brute-force walk of the zone clock around every transition', () => {
  for (const [zone, from, until] of ZONES) {
    it(`${zone} ${from}..${until}`, () => {
      const days = transitionDays(zone, from, until);
      expect(days.length).toBeGreaterThan(0);
      const kinds = new Set<string>();
      for (const day of days) {
        const lo = day - DAY;
        const hi = day + 2 * DAY;
        for (const cron of PATTERNS) {
          expect([zone, new Date(day).toISOString(), cron, ours(cron, zone, lo, hi)]).toEqual([
            zone,
            new Date(day).toISOString(),
            cron,
            oracle(cron, zone, lo, hi),
          ]);
          for (const row of ours(cron, zone, lo, hi)) kinds.add(row[3]);
        }
      }
      // The walk is not vacuous: both rules were exercised (Apia's window holds only its gap).
      expect(kinds.has('gap-shifted')).toBe(true);
      expect(kinds.has('fold-first')).toBe(zone !== 'Pacific/Apia');
    });
  }
});
