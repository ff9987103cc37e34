// A log with a line missing is refused where the gap is, by replay and by import, naming the seq
// that does not follow; everything before the gap is kept by import, nothing after it (issue 18).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { readLines } from '../../src/log/jsonl.js';
import { VirtualClock } from '../../src/world/clock.js';
import { replayLines } from '../../src/world/replay.js';
import { openWorld } from '../../src/world/world.js';
import { collect, tempDir } from '../support/backends.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function log(twin: string, count: number): Promise<string[]> {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-02-01T00:00:00Z'),
    seed: `gap-${twin}`,
  });
  const t = world.twin(twin);
  for (let i = 1; i <= count; i++)
    await t.applyWrite({
      operation: 'item.put',
      subjectType: 'item',
      subjectId: `i${i % 7}`,
      fields: { i },
    });
  return collect(t.exportLines());
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

describe('replay refuses a gap in seq', () => {
  it('replaying lines 1 and 3 fails at line 2, naming seq 3 and the seq it should follow', async () => {
    const [l1, , l3] = await log('shop', 3);
    const e = await refusal(() => replayLines([l1!, l3!]));
    expect(e.code).toBe('IMPORT_MALFORMED_LINE');
    expect(e.path).toBe('line 2.seq');
    expect(e.message).toMatch(/line 2: seq 3 of twin "shop" does not follow 1/);
    expect(e.details).toEqual({ line: 2, appended: 1 });
  });

  it('a gap in one twin of a multi-twin file is found by its line number in the file', async () => {
    const a = await log('a', 4);
    const b = await log('b', 4);
    // interleaved a1 b1 a2 b2 a3 b3 a4 b4, with b3 deleted: a4 is line 6, b4 line 7
    const lines = [a[0]!, b[0]!, a[1]!, b[1]!, a[2]!, a[3]!, b[3]!];
    expect(
      (await replayLines([a[0]!, b[0]!, a[1]!, b[1]!, a[2]!, b[2]!, a[3]!, b[3]!])).entries,
    ).toBe(8);
    const e = await refusal(() => replayLines(lines));
    expect(e).toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 7.seq',
      details: { line: 7, appended: 6 },
    });
    expect(e.message).toMatch(/seq 4 of twin "b" does not follow 2/);
  });

  it('a log that starts after seq 1, a repeated line and lines out of order are refused too', async () => {
    const [l1, l2, l3] = await log('shop', 3);
    await expect(replayLines([l2!, l3!])).rejects.toMatchObject({
      path: 'line 1.seq',
      message: expect.stringMatching(/seq 2 of twin "shop" does not follow 0/),
    });
    await expect(replayLines([l1!, l2!, l2!, l3!])).rejects.toMatchObject({
      path: 'line 3.seq',
      message: expect.stringMatching(/seq 2 .* does not follow 2/),
    });
    await expect(replayLines([l1!, l3!, l2!])).rejects.toMatchObject({ path: 'line 2.seq' });
  });

  it('a file with a deleted line, read from disk, is refused at that line', async () => {
    const lines = await log('shop', 5);
    const file = join(dir, 'deleted-line.jsonl');
    writeFileSync(file, `${[...lines.slice(0, 3), ...lines.slice(4)].join('\n')}\n`);
    await expect(replayLines(readLines(file))).rejects.toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 4.seq',
      details: { line: 4, appended: 3 },
    });
  });
});

describe('import refuses a gap in seq', () => {
  for (const backend of ['memory', 'sqlite'] as const) {
    it(`${backend}: a gap stops the import at its line; lines before it are kept; the fixed file resumes`, async () => {
      const lines = await log('src', 2_500);
      const world = openWorld({
        root: backend === 'memory' ? ':memory:' : join(dir, `import-${backend}`),
      });
      const twin = world.twin('copy');
      // line 1500 deleted: the first 1000 were flushed as a batch, the next 499 must be kept too
      const gapped = [...lines.slice(0, 1499), ...lines.slice(1500)];
      const e = await refusal(() => twin.importLines(gapped));
      expect(e).toMatchObject({
        code: 'IMPORT_MALFORMED_LINE',
        path: 'line 1500.seq',
        details: { line: 1500, appended: 1499 },
      });
      expect(e.message).toMatch(/line 1500: seq 1501 leaves a gap after 1499/);
      expect(await twin.head()).toBe(1499);
      expect((await twin.entries({ after: 1498 })).map((x) => x.seq)).toEqual([1499]);
      const resumed = await twin.importLines(lines);
      expect(resumed).toEqual({ line: 2_500, appended: 1_001, skipped: 1_499 });
      expect(await twin.hash()).toBe((await replayLines(lines)).hash);
      await world.close();
    });
  }

  it("a log that does not continue the twin's head is refused at its first line, and nothing is appended", async () => {
    const lines = await log('src', 6);
    const world = openWorld({ root: ':memory:' });
    const twin = world.twin('t');
    await twin.importLines(lines.slice(0, 3));
    await expect(twin.importLines(lines.slice(4))).rejects.toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 1.seq',
      details: { line: 1, appended: 0 },
    });
    expect(await twin.head()).toBe(3);
    await expect(world.twin('empty').importLines(lines.slice(1))).rejects.toMatchObject({
      path: 'line 1.seq',
      message: expect.stringMatching(/seq 2 leaves a gap after 0/),
    });
    expect(await world.twin('empty').head()).toBe(0);
  });
});
