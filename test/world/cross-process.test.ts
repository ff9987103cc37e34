// The action lock holds across processes: real children race read-increment-write actions on
// one counter — on one SQLite root, and on one PostgreSQL database — and no update is lost, nor
// a link of the hash chain.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { verifyTwin } from '../../src/world/verify.js';
import { openWorld, type World } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { postgresUrl } from '../storage/postgres-url.js';

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

function runWorker(where: string, count: number, label: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['dist/test/support/counter-worker.js', where, String(count), label],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

const cases: { name: string; where: () => string; open: (where: string) => World }[] = [
  { name: 'sqlite', where: () => root, open: (where) => openWorld({ root: where }) },
  {
    name: 'postgres',
    where: () => `${postgresUrl()}#counter_${process.pid}`,
    open: (where) =>
      openWorld({
        root: ':memory:',
        backend: new PostgresBackend(where.split('#')[0]!, where.split('#')[1]!),
      }),
  },
];

describe.each(cases)('cross-process atomic actions: $name', ({ where, open }) => {
  it('4 processes × 500 atomic increments give 2000, with dense entries and no lost update', async () => {
    // The store exists before the race so the children do not also race to create the schema.
    const setup = open(where());
    expect(await setup.twin('counter').head()).toBe(0);
    await setup.close();

    const codes = await Promise.all(
      ['a', 'b', 'c', 'd'].map((label) => runWorker(where(), 500, label)),
    );
    expect(codes).toEqual([0, 0, 0, 0]);

    const world = open(where());
    const twin = world.twin('counter');
    expect((await twin.get('counter', 'c1'))?.fields.value).toBe(2000);
    const entries = await twin.entries();
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    // Each entry saw exactly the value the one before it left: no two actions read the same state.
    expect(entries.map((e) => e.fields?.value)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i + 1),
    );
    const byWorker = new Map<string, number>();
    for (const e of entries)
      byWorker.set(String(e.fields?.by), (byWorker.get(String(e.fields?.by)) ?? 0) + 1);
    expect([...byWorker.values()]).toEqual([500, 500, 500, 500]);
    expect((await twin.get('counter', 'c1'))?.version).toBe(2000);
    // Every process linked its entries onto whichever process wrote the one before.
    const report = await verifyTwin(twin);
    expect(report.problem).toBeUndefined();
    expect(report.chainHead?.seq).toBe(2000);
    await world.close();
  }, 180_000);
});
