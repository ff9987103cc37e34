// Folded state is kept beside the log: after a mixed workload, and again after closing and
// reopening, the live state hash equals the hash of a full replay of the log.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { SeededIds } from '../../src/world/ids.js';
import { skip } from '../../src/world/decision.js';
import { VirtualClock } from '../../src/world/clock.js';
import { replayLines } from '../../src/world/replay.js';
import { openWorld } from '../../src/world/world.js';
import type { Write } from '../../src/log/write.js';
import { tempDir } from '../support/backends.js';

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

function mixedWorkload(count: number): Write[] {
  const rng = new SeededIds(new VirtualClock(0), 'workload');
  const writes: Write[] = [];
  const live: string[] = [];
  for (let i = 0; i < count; i++) {
    const pick = rng.random();
    if (live.length === 0 || pick < 0.35) {
      const id = `cus_${i}`;
      live.push(id);
      writes.push({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: id,
        fields: { n: i, tags: ['new'], address: { city: 'Oslo' } },
      });
    } else if (pick < 0.7) {
      const id = live[Math.floor(rng.random() * live.length)]!;
      writes.push({
        operation: 'customer.update',
        subjectType: 'customer',
        subjectId: id,
        fields: { n: i, note: null },
      });
    } else if (pick < 0.85) {
      const [id] = live.splice(Math.floor(rng.random() * live.length), 1);
      writes.push({
        operation: 'customer.delete',
        subjectType: 'customer',
        subjectId: id!,
        delete: true,
      });
    } else {
      const id = live[Math.floor(rng.random() * live.length)]!;
      writes.push({
        operation: 'invoice.create',
        subjectType: 'invoice',
        subjectId: `in_${i}`,
        fields: { customer: id },
        projection: {
          creates: [{ type: 'line', id: `li_${i}`, fields: { invoice: `in_${i}` } }],
          updates: [{ type: 'customer', id, fields: { invoiced: i } }],
          deletes: i % 3 === 0 ? [{ type: 'line', id: `li_${i - 1}` }] : [],
        },
      });
    }
  }
  return writes;
}

it('live hash equals a full replay after a mixed workload, and again after reopening', async () => {
  const world = openWorld({ root, clock: new VirtualClock('2026-05-01T00:00:00Z'), seed: 7 });
  const twin = world.twin('shop');
  const writes = mixedWorkload(1500);
  for (let i = 0; i < writes.length; i += 3) await twin.applyAtomic(() => writes.slice(i, i + 3));
  const live = await twin.hash();
  const replayed = await replayLines(twin.exportLines());
  expect(replayed.entries).toBe(writes.length);
  expect(replayed.hash).toBe(live);
  expect((await twin.list('customer')).length).toBeGreaterThan(10);
  await world.close();

  const again = openWorld({ root, clock: new VirtualClock('2026-05-02T00:00:00Z'), seed: 8 });
  const reopened = again.twin('shop');
  expect(await reopened.head()).toBe(writes.length);
  expect(await reopened.hash()).toBe(live);
  // and it keeps going from where it was
  await reopened.applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_late',
    fields: { n: -1 },
  });
  expect((await replayLines(reopened.exportLines())).hash).toBe(await reopened.hash());
  await again.close();
});

it("a second world on the same root sees the first one's writes before deciding", async () => {
  const a = openWorld({ root, seed: 'a' });
  const b = openWorld({ root, seed: 'b' });
  const ta = a.twin('shared');
  const tb = b.twin('shared');
  await ta.applyWrite({ operation: 'c.set', subjectType: 'c', subjectId: '1', fields: { v: 1 } });
  expect((await tb.get('c', '1'))?.fields.v).toBe(1); // cached as v=1 in b
  await ta.applyWrite({ operation: 'c.set', subjectType: 'c', subjectId: '1', fields: { v: 2 } });
  const seen = await tb.applyAtomic((view) => skip(view.get('c', '1')?.fields.v));
  expect(seen.result).toBe(2);
  expect((await tb.get('c', '1'))?.fields.v).toBe(2);
  // a read outside any action catches up the same way
  await ta.applyWrite({ operation: 'c.set', subjectType: 'c', subjectId: '1', fields: { v: 3 } });
  expect(await tb.read((view) => view.get('c', '1')?.fields.v)).toBe(3);
  await a.close();
  await b.close();
});
