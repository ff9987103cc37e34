import { describe, expect, it } from 'vitest';
import { isKnownTimeZone, resolveWall, wallHighWater } from '../../../src/triggers/cron/zone.js';
import { wallTime, zoneOffsetMinutes } from '../../../src/triggers/cron/occurrences.js';
import * as triggers from '../../../src/triggers/index.js';

const at = (iso: string): number => Date.parse(iso);
const wall = (local: string): number => Date.parse(`${local}Z`);

describe('zoneOffsetMinutes and wallTime', () => {
  it('read offsets and wall clocks from Intl, including odd offsets', () => {
    const cases: Array<[string, string, number, string]> = [
      ['America/New_York', '2026-01-15T12:00:00Z', -300, '2026-01-15T07:00'],
      ['America/New_York', '2026-07-15T12:00:00Z', -240, '2026-07-15T08:00'],
      ['America/New_York', '2026-03-08T06:59:59.999Z', -300, '2026-03-08T01:59'],
      ['America/New_York', '2026-03-08T07:00:00Z', -240, '2026-03-08T03:00'],
      ['Australia/Lord_Howe', '2026-07-01T00:00:00Z', 630, '2026-07-01T10:30'],
      ['Australia/Lord_Howe', '2026-01-01T00:00:00Z', 660, '2026-01-01T11:00'],
      ['Asia/Kathmandu', '2026-01-01T00:00:00Z', 345, '2026-01-01T05:45'],
      ['Pacific/Chatham', '2026-01-01T00:00:00Z', 825, '2026-01-01T13:45'],
      ['UTC', '2026-01-01T23:59:59Z', 0, '2026-01-01T23:59'],
      ['Europe/London', '1969-12-31T23:00:00Z', 60, '1970-01-01T00:00'], // British Standard Time, pre-epoch
    ];
    for (const [zone, iso, offset, local] of cases) {
      expect([zone, iso, zoneOffsetMinutes(zone, at(iso)), wallTime(zone, at(iso))]).toEqual([
        zone,
        iso,
        offset,
        local,
      ]);
    }
  });

  it('are what twinworld/triggers exports', () => {
    expect(triggers.zoneOffsetMinutes).toBe(zoneOffsetMinutes);
    expect(triggers.wallTime).toBe(wallTime);
  });

  it('refuse an unknown zone or an instant that is no integer, naming the argument', () => {
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        const err = e as { name: string; code: string; path: string; message: string };
        return { name: err.name, code: err.code, path: err.path, message: err.message };
      }
      throw new Error('not refused');
    };
    const noon = at('2026-01-15T12:00:00Z');
    for (const fn of [wallTime, zoneOffsetMinutes]) {
      expect(refusal(() => fn('Mars/Olympus', noon))).toMatchObject({
        name: 'TwinError',
        code: 'INVALID_ARGUMENT',
        path: 'zone',
        message: expect.stringContaining("unknown time zone 'Mars/Olympus'"),
      });
      expect(refusal(() => fn('', noon))).toMatchObject({ code: 'INVALID_ARGUMENT', path: 'zone' });
      expect(refusal(() => fn(undefined as unknown as string, noon))).toMatchObject({
        path: 'zone',
      });
      for (const ms of [Number.NaN, 1.5, Number.POSITIVE_INFINITY, '0' as unknown as number])
        expect(refusal(() => fn('UTC', ms))).toMatchObject({
          name: 'TwinError',
          code: 'INVALID_ARGUMENT',
          path: 'ms',
          message: expect.stringContaining('integer epoch-milliseconds'),
        });
    }
  });

  it('knows IANA zones and nothing else', () => {
    expect(isKnownTimeZone('Europe/London')).toBe(true);
    expect(isKnownTimeZone('UTC')).toBe(true);
    expect(isKnownTimeZone('Europe/Londn')).toBe(false);
    expect(isKnownTimeZone('')).toBe(false);
  });
});

describe('resolveWall', () => {
  const NY = 'America/New_York';
  it('maps ordinary, gap and fold wall times', () => {
    expect(resolveWall(NY, wall('2026-03-08T01:59:00'))).toEqual({
      at: at('2026-03-08T06:59:00Z'),
      kind: 'normal',
    });
    expect(resolveWall(NY, wall('2026-03-08T02:00:00'))).toEqual({
      at: at('2026-03-08T07:00:00Z'),
      kind: 'gap',
    });
    expect(resolveWall(NY, wall('2026-03-08T02:59:59'))).toEqual({
      at: at('2026-03-08T07:00:00Z'),
      kind: 'gap',
    });
    expect(resolveWall(NY, wall('2026-03-08T03:00:00'))).toEqual({
      at: at('2026-03-08T07:00:00Z'),
      kind: 'normal',
    });
    expect(resolveWall(NY, wall('2026-11-01T00:59:59'))).toEqual({
      at: at('2026-11-01T04:59:59Z'),
      kind: 'normal',
    });
    expect(resolveWall(NY, wall('2026-11-01T01:00:00'))).toEqual({
      at: at('2026-11-01T05:00:00Z'),
      kind: 'fold',
    });
    expect(resolveWall(NY, wall('2026-11-01T01:59:59'))).toEqual({
      at: at('2026-11-01T05:59:59Z'),
      kind: 'fold',
    });
    expect(resolveWall(NY, wall('2026-11-01T02:00:00'))).toEqual({
      at: at('2026-11-01T07:00:00Z'),
      kind: 'normal',
    });
  });
});

describe('wallHighWater', () => {
  it('is the wall time, except in the second pass of a fold, where it stays at the fold end', () => {
    const NY = 'America/New_York';
    expect(wallHighWater(NY, at('2026-11-01T05:30:00Z'))).toBe(wall('2026-11-01T01:30:00'));
    expect(wallHighWater(NY, at('2026-11-01T06:00:00Z'))).toBe(wall('2026-11-01T01:59:59.999'));
    expect(wallHighWater(NY, at('2026-11-01T06:59:59Z'))).toBe(wall('2026-11-01T01:59:59.999'));
    expect(wallHighWater(NY, at('2026-11-01T07:00:00Z'))).toBe(wall('2026-11-01T02:00:00'));
    expect(wallHighWater(NY, at('2026-03-08T07:00:00Z'))).toBe(wall('2026-03-08T03:00:00'));
  });
});
