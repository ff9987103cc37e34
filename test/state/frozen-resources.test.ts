// Resources are deeply frozen however they are read: from the fold, from list(), lookup() and
// liveResources(), and from get() after a reopen, when the value comes back from the store (issue 18).
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../src/state/resource.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { collect, tempDir } from '../support/backends.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** Every object and array inside the resource is frozen, and writing to one throws (ESM is strict). */
function expectDeeplyFrozen(r: Resource | undefined): void {
  expect(r).toBeDefined();
  const fields = r!.fields as { address: { city: string; geo: { lat: number } }; tags: string[] };
  for (const value of [r, fields, fields.address, fields.address.geo, fields.tags])
    expect(Object.isFrozen(value)).toBe(true);
  expect(() => {
    fields.address.city = 'Bergen';
  }).toThrow(TypeError);
  expect(() => {
    fields.address.geo.lat = 0;
  }).toThrow(TypeError);
  expect(() => fields.tags.push('mutated')).toThrow(TypeError);
}

async function seed(root: string) {
  const world = openWorld({
    root,
    clock: new VirtualClock('2026-05-01T00:00:00Z'),
    seed: 'frozen',
  });
  const twin = world.twin('shop');
  twin.declareIndex({ type: 'customer', name: 'byPlan', field: 'plan' });
  await twin.applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_1',
    fields: { plan: 'pro', address: { city: 'Oslo', geo: { lat: 59.9 } }, tags: ['a', 'b'] },
  });
  return { world, twin };
}

describe('resources read back from the store are deeply frozen', () => {
  for (const backend of ['memory', 'sqlite'] as const) {
    it(`${backend}: list(), lookup(), liveResources() and get() give deeply frozen values`, async () => {
      const root = backend === 'memory' ? ':memory:' : tempDir();
      if (backend === 'sqlite') roots.push(root);
      const { world, twin } = await seed(root);
      expectDeeplyFrozen(await twin.get('customer', 'cus_1'));
      expectDeeplyFrozen((await twin.list('customer'))[0]);
      expectDeeplyFrozen((await twin.lookup('customer', 'byPlan', 'pro'))[0]);
      expectDeeplyFrozen((await collect(twin.liveResources()))[0]);
      // nothing a reader tried to change reached the state
      expect((await twin.get('customer', 'cus_1'))!.fields).toEqual({
        plan: 'pro',
        address: { city: 'Oslo', geo: { lat: 59.9 } },
        tags: ['a', 'b'],
      });
      await world.close();
    });
  }

  it('sqlite: get() after a reopen (the value is parsed from the file, not the fold) is deeply frozen', async () => {
    const root = tempDir();
    roots.push(root);
    const first = await seed(root);
    const hash = await first.twin.hash();
    await first.world.close();

    const world = openWorld({
      root,
      clock: new VirtualClock('2026-05-02T00:00:00Z'),
      seed: 'frozen',
    });
    const twin = world.twin('shop');
    twin.declareIndex({ type: 'customer', name: 'byPlan', field: 'plan' });
    expectDeeplyFrozen(await twin.get('customer', 'cus_1'));
    expectDeeplyFrozen(await twin.read((view) => view.get('customer', 'cus_1')));
    expectDeeplyFrozen((await twin.list('customer'))[0]);
    // the view a decide sees is frozen too
    await twin.applyAtomic((view) => {
      expectDeeplyFrozen(view.get('customer', 'cus_1'));
      return [];
    });
    expect(await twin.hash()).toBe(hash);
    await world.close();
  });
});
