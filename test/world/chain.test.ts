// The hash chain on every backend: each entry's prev is the SHA-256 of the line before it (64 zeros
// for entry 1), the same bytes on memory, SQLite and PostgreSQL; the head recorded with each commit
// is what a second world links to; verify says ok on a clean twin; export → import keeps the chain;
// a tampered export is refused at the changed line, which is not imported.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { GENESIS } from '../../src/log/chain.js';
import { VirtualClock } from '../../src/world/clock.js';
import { chainCheckedLines } from '../../src/world/chain-guard.js';
import { verifyTwin } from '../../src/world/verify.js';
import { World } from '../../src/world/world.js';
import type { StorageBackend } from '../../src/storage/port.js';
import { backends, collect } from '../support/backends.js';

const sha = (line: string): string => createHash('sha256').update(line).digest('hex');

function worldOn(backend: StorageBackend, seed: string): World {
  return new World({
    root: ':memory:',
    backend,
    seed,
    clock: new VirtualClock('2026-04-01T08:00:00.000Z'),
  });
}

/** Seven entries: two single writes, a three-write commit, an update and a delete. */
async function workload(world: World, name: string): Promise<string[]> {
  const twin = world.twin(name);
  for (const id of ['a', 'b'])
    await twin.applyWrite({
      operation: 'item.create',
      subjectType: 'item',
      subjectId: id,
      fields: { id, n: 1 },
    });
  await twin.applyAtomic(() =>
    ['c', 'd', 'e'].map((id) => ({
      operation: 'item.create',
      subjectType: 'item',
      subjectId: id,
      fields: { id, tags: ['x', id] },
    })),
  );
  await twin.applyWrite({
    operation: 'item.update',
    subjectType: 'item',
    subjectId: 'a',
    fields: { n: 2 },
  });
  await twin.applyWrite({
    operation: 'item.delete',
    subjectType: 'item',
    subjectId: 'b',
    delete: true,
  });
  return collect(twin.exportLines());
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

const reference = await workload(worldOn(backends[0]!.create().backend, 'chain'), 'shop');

describe.each(backends)('the hash chain on $name', (backendCase) => {
  const cleanups: (() => void)[] = [];
  afterAll(() => cleanups.forEach((c) => c()));
  function fresh(): { backend: StorageBackend; reopen: () => StorageBackend } {
    const made = backendCase.create();
    cleanups.push(made.cleanup);
    return made;
  }

  it('links each entry to the line before it, in the same bytes as on every other backend', async () => {
    const { backend } = fresh();
    const world = worldOn(backend, 'chain');
    const lines = await workload(world, 'shop');
    expect(lines).toEqual(reference);
    const entries = lines.map((l) => JSON.parse(l) as { seq: number; prev: string });
    expect(entries[0]!.prev).toBe(GENESIS);
    expect(GENESIS).toBe('0'.repeat(64));
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.prev).toBe(sha(lines[i - 1]!));
    // the line is canonical with prev in its sorted place
    expect(lines[1]).toMatch(/"operation":"item\.create","prev":"[0-9a-f]{64}","recordedAt"/);
    const head = { seq: 7, hash: sha(lines[6]!) };
    expect(await world.twin('shop').chainHead()).toEqual(head);
    // Recorded with each commit where a section may not see the newest entry (tenant rows).
    expect(await world.twin('shop').recordedChainHead()).toEqual(
      backendCase.name === 'postgres' ? head : undefined,
    );
    await world.close();
  });

  it('a second world on the same storage links its first entry to the newest of the first', async () => {
    const { backend, reopen } = fresh();
    const first = worldOn(backend, 'one');
    const lines = await workload(first, 'shop');
    await first.close();
    const second = worldOn(reopen(), 'two');
    const entry = await second.twin('shop').applyWrite({
      operation: 'item.touch',
      subjectType: 'item',
      subjectId: 'c',
      fields: { touched: true },
    });
    expect(entry.seq).toBe(8);
    expect(entry.prev).toBe(sha(lines[6]!));
    const report = await verifyTwin(second.twin('shop'));
    expect(report.problem).toBeUndefined();
    expect(report.ok).toBe(true);
    await second.close();
  });

  it('a log stored before the chain is linked onto: verify says ok and counts the unchained entries', async () => {
    const { backend, reopen } = fresh();
    // Entries as an earlier version stored them: no prev, no recorded chain head.
    const legacy = reference.map((l) => l.replace(/,"prev":"[0-9a-f]{64}"/, ''));
    const store = await backend.openTwin('old');
    await store.transact((tx) => {
      for (const line of legacy) tx.append(JSON.parse(line), line);
    });
    await backend.close();
    const world = worldOn(reopen(), 'later');
    const twin = world.twin('old');
    // the resources are not there (the store was written behind the kernel's back): only the log
    const entry = await twin.applyWrite({
      operation: 'item.create',
      subjectType: 'item',
      subjectId: 'f',
      fields: { id: 'f' },
    });
    expect(entry.seq).toBe(8);
    expect(entry.prev).toBe(sha(legacy[6]!));
    // export's chain check lets the unchained entries through, then holds the rest to the chain.
    expect(await collect(chainCheckedLines(twin))).toEqual(await collect(twin.exportLines()));
    const report = await verifyTwin(twin);
    expect(report.unchained).toBe(7);
    expect(report.chainHead?.seq).toBe(8);
    // The chain holds; the state check finds the resources the raw appends never folded.
    expect(report.problem?.check).toBe('state');
    expect(report.problem?.message).toMatch(/^resource item a is missing from the stored state/);
    await world.close();
  });

  it('verify on a clean twin says ok, with the chain head and matching state hashes', async () => {
    const { backend } = fresh();
    const world = worldOn(backend, 'chain');
    const lines = await workload(world, 'shop');
    const report = await verifyTwin(world.twin('shop'));
    expect(report).toEqual({
      twin: 'shop',
      ok: true,
      entries: 7,
      chainHead: { seq: 7, hash: sha(lines[6]!) },
      unchained: 0,
      stateHash: await world.twin('shop').hash(),
      foldedHash: await world.twin('shop').hash(),
      problem: undefined,
    });
    await world.close();
  });

  it('export → import keeps the chain: byte for byte under the same name, re-linked under another', async () => {
    const { backend } = fresh();
    const world = worldOn(backend, 'chain');
    const lines = await workload(world, 'shop');
    const same = world.twin('shop-copy');
    const renamedLines = lines.map((l) => l.replace('"twin":"shop"', '"twin":"shop-copy"'));
    // Same name: what the import stores is the file, bytes and chain included.
    const target = new World({ root: ':memory:', backend: fresh().backend, seed: 'x' });
    expect((await target.twin('shop').importLines(lines)).appended).toBe(7);
    expect(await collect(target.twin('shop').exportLines())).toEqual(lines);
    expect((await verifyTwin(target.twin('shop'))).ok).toBe(true);
    // Another name: `twin` changes every line, so every prev is computed again, and still verifies.
    expect((await same.importLines(lines)).appended).toBe(7);
    const copied = await collect(same.exportLines());
    expect(copied).not.toEqual(renamedLines);
    const entries = copied.map((l) => JSON.parse(l) as { prev: string; twin: string });
    expect(entries[0]!.prev).toBe(GENESIS);
    for (let i = 1; i < copied.length; i++) expect(entries[i]!.prev).toBe(sha(copied[i - 1]!));
    expect(entries.every((e) => e.twin === 'shop-copy')).toBe(true);
    const report = await verifyTwin(same);
    expect(report.ok).toBe(true);
    expect(report.stateHash).toBe(await world.twin('shop').hash());
    // Re-running the import skips every line: the chain of what is there is unchanged.
    expect(await same.importLines(lines)).toMatchObject({ appended: 0, skipped: 7 });
    expect(await collect(same.exportLines())).toEqual(copied);
    await target.close();
    await world.close();
  });

  it('an import of a tampered export is refused at the changed line, which is not imported', async () => {
    const { backend } = fresh();
    const world = worldOn(backend, 'chain');
    const lines = await workload(world, 'shop');
    const tampered = [...lines];
    // Line 3 keeps valid JSON and every limit: only the chain can tell.
    tampered[2] = tampered[2]!.replace('"tags":["x","c"]', '"tags":["x","C"]');
    expect(tampered[2]).not.toBe(lines[2]);
    const twin = world.twin('restore');
    const e = await refusal(() => twin.importLines(tampered));
    expect(e.code).toBe('IMPORT_CHAIN_BROKEN');
    expect(e.path).toBe('line 3');
    expect(e.message).toMatch(
      /^import into twin "restore" stopped at line 3: seq 3 was changed after it was written/,
    );
    expect(e.message).toContain('lines before it were kept (2 appended)');
    expect(e.details).toMatchObject({ line: 3, seq: 3, appended: 2 });
    expect(await twin.head()).toBe(2);
    const writeIds = lines.map((l) => (JSON.parse(l) as { writeId: string }).writeId);
    expect((await twin.entries()).map((e) => e.writeId)).toEqual(writeIds.slice(0, 2));
    // The untouched file then resumes where the refusal stopped.
    expect(await twin.importLines(lines)).toMatchObject({ appended: 5, skipped: 2 });
    expect((await verifyTwin(twin)).ok).toBe(true);
    expect(await twin.hash()).toBe(await world.twin('shop').hash());
    await world.close();
  });
});
