// When the rows a commit read answer the next pick (due-hint.ts): only exactly, at the head they
// were read at, and only while picks keep coming. The round trips this saves on PostgreSQL are in
// test/storage/postgres-due-hint.test.ts.
import { describe, expect, it } from 'vitest';
import type { Resource } from '../../src/state/resource.js';
import type { StoreTx } from '../../src/storage/port.js';
import { VirtualClock } from '../../src/world/clock.js';
import { DueHints } from '../../src/world/due-hint.js';

/** A write section through the hints, on a quiet twin, at `at` on the world clock. */
function section(hints: DueHints, tx: StoreTx, at = '2026-01-01T00:00:01Z'): void {
  // the section's own outcome comes back as it was
  expect(hints.during(tx, true, new VirtualClock(at), () => 'outcome')).toBe('outcome');
}

const row = (id: string): Resource => ({ type: 'job', id, version: 1, deleted: false, fields: {} });

/** The part of a store's section the hints use: what it was asked to read, answered at once. */
function commitReading(rows: Resource[]) {
  const asked: unknown[][] = [];
  const tx = {
    lookupAtCommit(type: string, index: string, maxKey: string, limit: number, got) {
      asked.push([type, index, maxKey, limit]);
      got(rows.slice(0, limit));
    },
  } as Pick<StoreTx, 'lookupAtCommit'> as StoreTx;
  return { tx, asked };
}

describe('due hints', () => {
  it('read nothing before a pick was made, or on a store that cannot read at commit', () => {
    const hints = new DueHints();
    const { tx, asked } = commitReading([row('a')]);
    section(hints, tx);
    expect(asked).toEqual([]);
    hints.noted('job', 'due', 4);
    section(hints, {} as StoreTx);
    hints.committed(1);
    expect(hints.answer(1, 'job', 'due', '2026-01-01T00:00:02Z', 1)).toBeUndefined();
    // a section that does not go optimistically reads nothing either
    expect(hints.during(tx, false, new VirtualClock(0), () => 'outcome')).toBe('outcome');
    expect(asked).toEqual([]);
  });

  it('answer a pick at the head they were read at, for no more rows than they hold, at a bound no earlier', () => {
    const hints = new DueHints();
    hints.noted('job', 'due', 2);
    hints.noted('job', 'due', 3);
    const { tx, asked } = commitReading([row('a'), row('b'), row('c'), row('d')]);
    section(hints, tx);
    // the largest pick made sets how many rows are read, up to the commit's time
    expect(asked).toEqual([['job', 'due', '2026-01-01T00:00:01.000Z', 3]]);
    hints.committed(7);
    const ids = (rows: readonly Resource[] | undefined) => rows?.map((r) => r.id);
    expect(ids(hints.answer(7, 'job', 'due', '2026-01-01T00:00:02Z', 2))).toEqual(['a', 'b']);
    expect(ids(hints.answer(7, 'job', 'due', '2026-01-01T00:00:01Z', 3))).toEqual(['a', 'b', 'c']);
    expect(hints.answer(7, 'job', 'due', '2026-01-01T00:00:02Z', 4)).toBeUndefined();
    expect(hints.answer(8, 'job', 'due', '2026-01-01T00:00:02Z', 1)).toBeUndefined();
    expect(hints.answer(7, 'job', 'due', '2026-01-01T00:00:00Z', 1)).toBeUndefined();
    expect(hints.answer(7, 'job', 'other', '2026-01-01T00:00:02Z', 1)).toBeUndefined();
    expect(hints.answer(7, 'task', 'due', '2026-01-01T00:00:02Z', 1)).toBeUndefined();
    // a commit that read nothing leaves no hint
    expect(hints.during(tx, false, new VirtualClock(0), () => 'outcome')).toBe('outcome');
    hints.committed(8);
    expect(hints.answer(8, 'job', 'due', '2026-01-01T00:00:02Z', 1)).toBeUndefined();
  });

  it('stop reading once many commits in a row were followed by no pick', () => {
    const hints = new DueHints();
    hints.noted('job', 'due', 1);
    const { tx, asked } = commitReading([row('a')]);
    for (let i = 0; i < 18; i++) section(hints, tx);
    expect(asked).toHaveLength(16);
    hints.noted('job', 'due', 1);
    section(hints, tx);
    expect(asked).toHaveLength(17);
  });
});
