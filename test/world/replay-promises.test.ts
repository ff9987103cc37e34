// What replay promises beyond the gap check: blank and whitespace-only lines are skipped but still
// counted in line numbers, a bad line is named by its line (and by the field validation names),
// progress is reported every 10,000 entries and once at the end, deleted resources are not in the
// hash, twins are listed by name, and `hash` is the one twin's hash, the empty state's hash for an
// empty log, and '' when the log holds several twins.
import { describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { VirtualClock } from '../../src/world/clock.js';
import { replayLines } from '../../src/world/replay.js';
import type { ImportProgress } from '../../src/world/twin.js';
import { openWorld } from '../../src/world/world.js';
import { collect } from '../support/backends.js';

function world(seed: string) {
  return openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-02-01T00:00:00Z'),
    seed,
  });
}

/** A log of `count` writes to twin `name`, deleting i0 at the end when `withDelete`. */
async function log(name: string, count: number, withDelete = false) {
  const w = world(`replay-${name}`);
  const t = w.twin(name);
  for (let i = 1; i <= count; i++)
    await t.applyWrite({
      operation: 'item.put',
      subjectType: 'item',
      subjectId: `i${i % 3}`,
      fields: { i },
    });
  if (withDelete)
    await t.applyWrite({
      operation: 'item.drop',
      subjectType: 'item',
      subjectId: 'i0',
      delete: true,
    });
  return { lines: await collect(t.exportLines()), hash: await t.hash(), world: w };
}

async function refusal(run: () => Promise<unknown>): Promise<TwinError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(TwinError);
    return error as TwinError;
  }
  return expect.unreachable('expected a refusal') as never;
}

describe('replay lines', () => {
  it('skips empty and whitespace-only lines, still counting them in line numbers', async () => {
    const { lines, hash } = await log('shop', 3);
    const padded = ['', lines[0]!, '   ', '\t', lines[1]!, ' \r', lines[2]!, ''];
    const progress: ImportProgress[] = [];
    expect(await replayLines(padded, (p) => progress.push(p))).toMatchObject({ entries: 3, hash });
    expect(progress).toEqual([{ line: 8, appended: 3, skipped: 0 }]);
    const e = await refusal(() => replayLines(['  ', lines[0]!, '{"seq":', lines[1]!]));
    expect(e.code).toBe('IMPORT_MALFORMED_LINE');
    expect(e.path).toBe('line 3');
    expect(e.message).toMatch(/^replay stopped at line 3: it is not valid JSON \(.+\)$/);
    expect(e.details).toEqual({ line: 3, appended: 1 });
  });

  it('names the field of a line that is JSON but not an entry', async () => {
    const { lines } = await log('shop', 2);
    const broken = JSON.stringify({ ...JSON.parse(lines[1]!), twin: '' });
    const e = await refusal(() => replayLines(['', lines[0]!, broken]));
    expect(e.code).toBe('IMPORT_MALFORMED_LINE');
    expect(e.path).toBe('line 3.twin');
    expect(e.message).toBe('replay stopped at line 3: line 3.twin must be a non-empty string');
  });

  it('reports progress every 10,000 entries and once at the end', async () => {
    const { lines, hash } = await log('big', 10_001);
    const progress: ImportProgress[] = [];
    expect(await replayLines(lines, (p) => progress.push(p))).toMatchObject({
      entries: 10_001,
      hash,
    });
    expect(progress).toEqual([
      { line: 10_000, appended: 10_000, skipped: 0 },
      { line: 10_001, appended: 10_001, skipped: 0 },
    ]);
    // Without a callback the same replay runs quietly.
    expect((await replayLines(lines)).hash).toBe(hash);
  });
});

describe('replay hashes', () => {
  it('leave deleted resources out, as the live twin does', async () => {
    const { lines, hash } = await log('shop', 4, true);
    expect((await replayLines(lines)).hash).toBe(hash);
  });

  it('an empty log hashes as an empty twin; several twins are listed by name and have no single hash', async () => {
    const empty = world('replay-empty');
    expect(await replayLines([])).toEqual({
      hashes: {},
      entries: 0,
      hash: await empty.twin('none').hash(),
      unchained: {},
    });
    const b = await log('bravo', 2);
    const a = await log('alpha', 2);
    const both = await replayLines([b.lines[0]!, a.lines[0]!, b.lines[1]!, a.lines[1]!]);
    expect(Object.keys(both.hashes)).toEqual(['alpha', 'bravo']);
    expect(both).toEqual({
      unchained: {},
      hashes: { alpha: a.hash, bravo: b.hash },
      entries: 4,
      hash: '',
    });
  });
});
