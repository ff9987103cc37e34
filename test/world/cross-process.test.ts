// The action lock holds across processes: real children race read-increment-write actions on
// one counter, and none of their updates is lost.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

function runWorker(count: number, label: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/test/support/counter-worker.js', root, String(count), label], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

it('4 processes × 500 atomic increments give 2000, with dense entries and no lost update', async () => {
  // The file exists before the race so the children do not also race to create the schema.
  const setup = openWorld({ root });
  // (the store opens lazily: an operation makes sure it exists)
  expect(await setup.twin('counter').head()).toBe(0);
  await setup.close();

  const codes = await Promise.all(['a', 'b', 'c', 'd'].map((label) => runWorker(500, label)));
  expect(codes).toEqual([0, 0, 0, 0]);

  const world = openWorld({ root });
  const twin = world.twin('counter');
  expect((await twin.get('counter', 'c1'))?.fields.value).toBe(2000);
  const entries = await twin.entries();
  expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
  // Each entry saw exactly the value the one before it left: no two actions read the same state.
  expect(entries.map((e) => e.fields?.value)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
  const byWorker = new Map<string, number>();
  for (const e of entries) byWorker.set(String(e.fields?.by), (byWorker.get(String(e.fields?.by)) ?? 0) + 1);
  expect([...byWorker.values()]).toEqual([500, 500, 500, 500]);
  expect((await twin.get('counter', 'c1'))?.version).toBe(2000);
  await world.close();
});
