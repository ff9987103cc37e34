// Import and the hash chain, line by line: logs from before the chain (the golden fixtures as they
// were committed, without prev) import and come out chained exactly as the twin that wrote them
// would have; a broken link is refused at the line to blame — the changed line when the lines after
// it vouch for its successor, else the line whose prev does not match — and nothing after it is kept.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { VirtualClock } from '../../src/world/clock.js';
import { verifyTwin } from '../../src/world/verify.js';
import { openWorld, type World } from '../../src/world/world.js';
import { collect } from '../support/backends.js';

const fixture = (name: string): string[] =>
  readFileSync(`fixtures/${name}.jsonl`, 'utf8').trim().split('\n');
const sha = (line: string): string => createHash('sha256').update(line).digest('hex');
/** The line as an earlier version wrote it: no prev. */
const unchain = (line: string): string => line.replace(/,"prev":"[0-9a-f]{64}"/, '');

function world(): World {
  return openWorld({ root: ':memory:', seed: 'import', clock: new VirtualClock('2026-05-01') });
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

describe('logs from before the chain', () => {
  for (const [name, twinName] of [
    ['crm', 'crm'],
    ['billing', 'billing'],
    ['walk-stripe', 'stripe'],
  ] as const) {
    it(`fixtures/${name}.jsonl without prev imports and exports as the chained fixture, byte for byte`, async () => {
      const chained = fixture(name);
      const legacy = chained.map(unchain);
      expect(legacy.some((l) => l.includes('"prev"'))).toBe(false);
      const expected = JSON.parse(readFileSync(`fixtures/${name}.json`, 'utf8')) as {
        hashes: Record<string, string>;
      };
      const w = world();
      const twin = w.twin(twinName);
      expect(await twin.importLines(legacy)).toMatchObject({
        appended: chained.length,
        skipped: 0,
      });
      expect(await collect(twin.exportLines())).toEqual(chained);
      expect(await twin.hash()).toBe(expected.hashes[twinName]);
      const report = await verifyTwin(twin);
      expect(report.ok).toBe(true);
      expect(report.unchained).toBe(0);
      // The chained file is then seen as the same log: every line skipped.
      expect(await twin.importLines(chained)).toMatchObject({
        appended: 0,
        skipped: chained.length,
      });
      await w.close();
    });
  }

  it('a file whose old lines run into chained ones (a twin written by both versions) imports', async () => {
    const chained = fixture('crm');
    // Lines 1–3 as the old version wrote them; line 4 on link to the line before as it was stored.
    const mixed = chained.map(unchain);
    for (let i = 3; i < mixed.length; i++) {
      const entry = JSON.parse(mixed[i]!) as Record<string, unknown>;
      mixed[i] = canonicalJson({ ...entry, prev: sha(mixed[i - 1]!) });
    }
    expect(mixed[3]).not.toBe(chained[3]);
    const w = world();
    const twin = w.twin('crm');
    expect((await twin.importLines(mixed)).appended).toBe(chained.length);
    // Stored linked onto the twin's own chain: the same bytes the twin that wrote it would have.
    expect(await collect(twin.exportLines())).toEqual(chained);
    await w.close();
  });
});

describe('a broken link is refused at the line to blame', () => {
  it('a first line that does not link to 64 zeros', async () => {
    const lines = fixture('crm');
    lines[0] = lines[0]!.replace(/"prev":"0{64}"/, `"prev":"${'1'.repeat(64)}"`);
    const w = world();
    const e = await refusal(() => w.twin('crm').importLines(lines));
    expect(e.code).toBe('IMPORT_CHAIN_BROKEN');
    expect(e.path).toBe('line 1.prev');
    expect(e.message).toMatch(/line 1: seq 1 has prev 111111111111…, but the first entry/);
    expect(await w.twin('crm').head()).toBe(0);
    await w.close();
  });

  it('a changed prev is blamed on its own line, and the line before it is not kept either', async () => {
    const lines = fixture('crm');
    const prev = (JSON.parse(lines[3]!) as { prev: string }).prev;
    lines[3] = lines[3]!.replace(prev, `${prev[0] === 'a' ? 'b' : 'a'}${prev.slice(1)}`);
    const w = world();
    const e = await refusal(() => w.twin('crm').importLines(lines));
    expect(e.code).toBe('IMPORT_CHAIN_BROKEN');
    expect(e.path).toBe('line 4.prev');
    expect(e.message).toMatch(
      /line 4: seq 4's prev [0-9a-f]{12}… is not the hash [0-9a-f]{12}… of line 3 \(seq 3\) before it: this line was changed/,
    );
    expect(e.details).toMatchObject({ line: 4, seq: 4, appended: 2 });
    expect(await w.twin('crm').head()).toBe(2);
    await w.close();
  });

  it('a prev removed from a line after chained lines', async () => {
    const lines = fixture('crm');
    lines[2] = unchain(lines[2]!);
    const w = world();
    const e = await refusal(() => w.twin('crm').importLines(lines));
    expect(e.code).toBe('IMPORT_CHAIN_BROKEN');
    expect(e.path).toBe('line 3.prev');
    expect(e.message).toMatch(/seq 3 has no prev, though the lines before it are chained/);
    await w.close();
  });

  it('lines reordered: the first out-of-place line is named', async () => {
    const lines = fixture('crm');
    const swapped = [lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)];
    const w = world();
    const e = await refusal(() => w.twin('crm').importLines(swapped));
    // seq 3 right after seq 1 is a gap first; the chain would also have caught it.
    expect(e.code).toBe('IMPORT_MALFORMED_LINE');
    expect(e.path).toBe('line 2.seq');
    expect(await w.twin('crm').head()).toBe(1);
    await w.close();
  });

  it('a file that continues another log than the twin holds', async () => {
    const w = world();
    const twin = w.twin('crm');
    // The twin's own entries 1–2, then lines 3… of a different crm log.
    for (const id of ['x', 'y'])
      await twin.applyWrite({ operation: 'note', subjectType: 'note', subjectId: id });
    const e = await refusal(() => twin.importLines(fixture('crm').slice(2)));
    expect(e.code).toBe('IMPORT_CHAIN_BROKEN');
    expect(e.path).toBe('line 1.prev');
    expect(e.message).toMatch(
      /seq 3 links to an entry 2 that hashes to [0-9a-f]{12}…, but this twin's entry 2 hashes to [0-9a-f]{12}…: the file does not continue this twin's log/,
    );
    expect(await twin.head()).toBe(2);
    await w.close();
  });

  it('the same file continues the twin it came from', async () => {
    const lines = fixture('crm');
    const w = world();
    const twin = w.twin('crm');
    expect((await twin.importLines(lines.slice(0, 2))).appended).toBe(2);
    expect((await twin.importLines(lines.slice(2))).appended).toBe(lines.length - 2);
    expect(await collect(twin.exportLines())).toEqual(lines);
    await w.close();
  });
});
