import { describe, expect, it } from 'vitest';
import { isTwinError } from '../../../src/errors.js';
import {
  planCatchUp,
  validateCatchUpPolicy,
  type CatchUpPolicy,
  type Occurrence,
} from '../../../src/triggers/cron/occurrences.js';

const H = 3_600_000;
const base = Date.parse('2026-05-01T00:00:00Z');
/** n hourly occurrences, oldest first. */
function dueList(n: number): Occurrence[] {
  return Array.from({ length: n }, (_, i) => ({
    nominalAt: base + i * H,
    wallTime: new Date(base + i * H).toISOString().slice(0, 16),
    utcOffsetMinutes: 0,
    dst: 'normal' as const,
  }));
}
const times = (list: readonly Occurrence[]): number[] => list.map((o) => (o.nominalAt - base) / H);

function plan(n: number, policy: CatchUpPolicy): { fire: number[]; missed: number[] } {
  const due = dueList(n);
  const p = planCatchUp(due, policy);
  // Every due occurrence lands in exactly one list, and the same objects are returned.
  expect([...p.missed, ...p.fire].sort((a, b) => a.nominalAt - b.nominalAt)).toEqual(due);
  for (const o of [...p.fire, ...p.missed]) expect(due).toContain(o);
  return { fire: times(p.fire), missed: times(p.missed) };
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('planCatchUp', () => {
  it('plans nothing when nothing is due, whatever the policy', () => {
    for (const policy of [
      { kind: 'skip' },
      { kind: 'latest' },
      { kind: 'all', max: 5 },
    ] as CatchUpPolicy[]) {
      expect(planCatchUp([], policy)).toEqual({ fire: [], missed: [] });
    }
  });

  it('fires a single due occurrence under every policy', () => {
    expect(plan(1, { kind: 'skip' })).toEqual({ fire: [0], missed: [] });
    expect(plan(1, { kind: 'latest' })).toEqual({ fire: [0], missed: [] });
    expect(plan(1, { kind: 'all', max: 1 })).toEqual({ fire: [0], missed: [] });
    expect(plan(1, { kind: 'all', max: 10 })).toEqual({ fire: [0], missed: [] });
  });

  it('skip: with several due (downtime) fires none and records all as missed', () => {
    expect(plan(2, { kind: 'skip' })).toEqual({ fire: [], missed: [0, 1] });
    expect(plan(5, { kind: 'skip' })).toEqual({ fire: [], missed: [0, 1, 2, 3, 4] });
  });

  it('latest: fires only the newest; the older ones are missed', () => {
    expect(plan(2, { kind: 'latest' })).toEqual({ fire: [1], missed: [0] });
    expect(plan(5, { kind: 'latest' })).toEqual({ fire: [4], missed: [0, 1, 2, 3] });
  });

  it('all: fires everything, oldest first, when within max', () => {
    expect(plan(3, { kind: 'all', max: 3 })).toEqual({ fire: [0, 1, 2], missed: [] });
    expect(plan(3, { kind: 'all', max: 1000 })).toEqual({ fire: [0, 1, 2], missed: [] });
  });

  it('all: beyond max fires the newest max, oldest first, and misses the oldest', () => {
    expect(plan(5, { kind: 'all', max: 2 })).toEqual({ fire: [3, 4], missed: [0, 1, 2] });
    expect(plan(5, { kind: 'all', max: 4 })).toEqual({ fire: [1, 2, 3, 4], missed: [0] });
  });

  it('all with max 1 equals latest', () => {
    for (const n of [0, 1, 2, 7])
      expect(plan(n, { kind: 'all', max: 1 })).toEqual(plan(n, { kind: 'latest' }));
  });

  it('does not modify its input', () => {
    const due = dueList(4);
    const copy = structuredClone(due);
    planCatchUp(due, { kind: 'all', max: 2 });
    expect(due).toEqual(copy);
  });

  it('refuses due lists that are not strictly ascending, with INVALID_ARGUMENT', () => {
    const [a, b] = dueList(2) as [Occurrence, Occurrence];
    const reversed = caught(() => planCatchUp([b, a], { kind: 'latest' }));
    expect(isTwinError(reversed, 'INVALID_ARGUMENT')).toBe(true);
    expect((reversed as { path?: string }).path).toBe('due[1]');
    const repeated = caught(() => planCatchUp([a, a], { kind: 'all', max: 5 }));
    expect(isTwinError(repeated, 'INVALID_ARGUMENT')).toBe(true);
    const notArray = caught(() => planCatchUp('x' as unknown as Occurrence[], { kind: 'skip' }));
    expect(isTwinError(notArray, 'INVALID_ARGUMENT')).toBe(true);
    expect((notArray as { path?: string }).path).toBe('due');
    const noTime = caught(() => planCatchUp([{} as Occurrence], { kind: 'skip' }));
    expect((noTime as { path?: string }).path).toBe('due[0]');
  });

  it('refuses a bad policy with INVALID_CONFIG', () => {
    const e = caught(() => planCatchUp(dueList(2), { kind: 'all' } as unknown as CatchUpPolicy));
    expect(isTwinError(e, 'INVALID_CONFIG')).toBe(true);
    expect((e as { path?: string }).path).toBe('max');
  });
});

describe('validateCatchUpPolicy', () => {
  it('accepts the three kinds and copies only what they need', () => {
    expect(validateCatchUpPolicy({ kind: 'skip' })).toEqual({ kind: 'skip' });
    expect(validateCatchUpPolicy({ kind: 'latest', note: 'x' })).toEqual({ kind: 'latest' });
    expect(validateCatchUpPolicy({ kind: 'all', max: 3 })).toEqual({ kind: 'all', max: 3 });
  });

  const refusals: Array<[unknown, string | undefined, RegExp]> = [
    [undefined, undefined, /must be an object/],
    ['skip', undefined, /must be an object/],
    [{}, 'kind', /'skip', 'latest' or 'all'/],
    [{ kind: 'backfill' }, 'kind', /not "backfill"/],
    [{ kind: 'all' }, 'max', /needs max, a positive integer/],
    [{ kind: 'all', max: 0 }, 'max', /positive integer/],
    [{ kind: 'all', max: -2 }, 'max', /positive integer/],
    [{ kind: 'all', max: 2.5 }, 'max', /positive integer/],
    [{ kind: 'all', max: '3' }, 'max', /positive integer/],
    [{ kind: 'latest', max: 3 }, 'max', /only to kind 'all'/],
  ];
  for (const [input, path, message] of refusals) {
    it(`refuses ${JSON.stringify(input)} with INVALID_CONFIG at ${path ?? '(no path)'}`, () => {
      const e = caught(() => validateCatchUpPolicy(input));
      expect(isTwinError(e, 'INVALID_CONFIG')).toBe(true);
      expect((e as { path?: string }).path).toBe(path);
      expect((e as Error).message).toMatch(message);
    });
  }
});
