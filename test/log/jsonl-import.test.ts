// Logs as files: export, import, resume, and a malformed line that stops the import at its number.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTwinError } from '../../src/errors.js';
import { readLines, writeLines } from '../../src/log/jsonl.js';
import { VirtualClock } from '../../src/world/clock.js';
import { replayLines } from '../../src/world/replay.js';
import { openWorld } from '../../src/world/world.js';
import { collect, tempDir } from '../support/backends.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function source() {
  const world = openWorld({ root: ':memory:', clock: new VirtualClock(0), seed: 'jsonl' });
  const twin = world.twin('src');
  for (let i = 0; i < 2500; i++)
    await twin.applyWrite({
      operation: 'item.put',
      subjectType: 'item',
      subjectId: `i${i % 700}`,
      fields: { i },
    });
  return { world, twin, lines: await collect(twin.exportLines()) };
}

describe('JSONL export and import', () => {
  it('export → file → import into another twin on disk gives the same hash', async () => {
    const { twin, lines } = await source();
    const file = join(dir, 'log.jsonl');
    expect(await writeLines(file, twin.exportLines())).toBe(2500);
    const world = openWorld({ root: join(dir, 'w1') });
    const progress: number[] = [];
    const result = await world
      .twin('copy')
      .importLines(readLines(file), (p) => progress.push(p.appended));
    expect(result).toEqual({ line: 2500, appended: 2500, skipped: 0 });
    expect(progress).toEqual([1000, 2000, 2500]);
    expect(await world.twin('copy').hash()).toBe(await twin.hash());
    // the copy is renamed, everything else is the same
    expect((await collect(world.twin('copy').exportLines()))[0]).toBe(
      lines[0]!.replace('"twin":"src"', '"twin":"copy"'),
    );
    await world.close();
  });

  it('a malformed line stops the import at its number; earlier lines stay; a re-run resumes', async () => {
    const { twin, lines } = await source();
    const broken = [...lines];
    broken[1499] = '{"seq": 1500, not json';
    const world = openWorld({ root: join(dir, 'w2') });
    const target = world.twin('t');
    try {
      await target.importLines(broken);
      expect.unreachable();
    } catch (error) {
      expect(isTwinError(error, 'IMPORT_MALFORMED_LINE')).toBe(true);
      expect((error as Error).message).toMatch(/line 1500/);
      expect((error as { details: { line: number } }).details.line).toBe(1500);
    }
    expect(await target.head()).toBe(1499);
    // fix the file and run it again: the first 1499 are recognised and skipped
    const again = await target.importLines(lines);
    expect(again).toMatchObject({ appended: 1001, skipped: 1499 });
    expect(await target.hash()).toBe(await twin.hash());
    await world.close();
  });

  it('refuses an entry that breaks the schema, a seq gap, and a conflicting history', async () => {
    const { lines } = await source();
    const world = openWorld({ root: ':memory:' });
    const bad = JSON.parse(lines[2]!);
    bad.fields = { n: 1, x: undefined };
    delete bad.subjectId;
    await expect(
      world.twin('a').importLines([lines[0]!, lines[1]!, JSON.stringify(bad)]),
    ).rejects.toMatchObject({ code: 'IMPORT_MALFORMED_LINE', path: 'line 3.subjectId' });
    expect(await world.twin('a').head()).toBe(2);
    await expect(world.twin('b').importLines([lines[0]!, lines[2]!])).rejects.toThrow(
      /gap after 1/,
    );
    await world.twin('c').applyWrite({ operation: 'x.y', subjectType: 'x', subjectId: '1' });
    await expect(world.twin('c').importLines([lines[0]!])).rejects.toMatchObject({
      code: 'IMPORT_CONFLICT',
    });
  });

  it('replay reports the malformed line of a multi-twin file by its number in the file', async () => {
    const { lines } = await source();
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, [...lines.slice(0, 10), '', 'garbage', ...lines.slice(10, 20)].join('\n'));
    await expect(replayLines(readLines(file))).rejects.toThrow(/line 12/);
    await expect(replayLines(readLines(join(dir, 'missing.jsonl')))).rejects.toMatchObject({
      code: 'LOG_FILE_UNREADABLE',
      path: 'file',
    });
  });
  it("refuses a line of another twin (several twins' logs), keeping the lines before it", async () => {
    const first = openWorld({ root: ':memory:', clock: new VirtualClock(0), seed: 'a' });
    const second = openWorld({ root: ':memory:', clock: new VirtualClock(0), seed: 'b' });
    const put = { operation: 'item.put', subjectType: 'item', subjectId: 'i', fields: {} };
    for (let i = 0; i < 3; i++) await first.twin('a').applyWrite(put);
    await second.twin('b').applyWrite(put);
    const lines = [
      ...(await collect(first.twin('a').exportLines())),
      ...(await collect(second.twin('b').exportLines())),
    ];
    const world = openWorld({ root: join(dir, 'w-mixed') });
    // Was: line 4 (b's seq 1) blamed line 3 as "changed after it was written".
    await expect(world.twin('t').importLines(lines)).rejects.toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 4.twin',
      details: { line: 4, appended: 3, twin: 'b', before: 'a' },
      message: expect.stringContaining('holds the logs of several twins'),
    });
    expect(await world.twin('t').head()).toBe(3);
    expect(await world.twin('t').hash()).toBe(await first.twin('a').hash());
    await Promise.all([first.close(), second.close(), world.close()]);
  });
});
