// Ordered indexes through a twin, on every backend: a resource is kept under its key in (order
// value, the seq that put it there) order, keeps its place through updates, moves when its field
// moves, leaves when deleted, and a range reads one key's page past a cursor either way.
import { afterAll, describe, expect, it } from 'vitest';
import type { Twin } from '../../src/world/twin.js';
import { VirtualClock } from '../../src/world/clock.js';
import type { World } from '../../src/world/world.js';
import { homes } from '../support/backends.js';
import { openWorldAt } from '../support/world-at.js';

const byOwner = { type: 'card', name: 'byOwner', field: 'owner', orderBy: 'created' } as const;

describe.each(homes)('ordered indexes through a twin ($name)', (home) => {
  const cleanups: (() => void)[] = [];
  const worlds: World[] = [];
  afterAll(async () => {
    for (const w of worlds) await w.close();
    for (const c of cleanups) c();
  });

  const page = (twin: Twin, key: string, after?: string, descending = true, limit = 10) =>
    twin
      .read((view) =>
        view.range!('card', 'byOwner', {
          key,
          limit,
          descending,
          ...(after === undefined ? {} : { after }),
        }),
      )
      .then((rows) => rows.map((r) => r.id));

  it('keeps creation order within a second, follows moves and deletes, pages past a cursor', async () => {
    const fresh = home.fresh();
    cleanups.push(fresh.cleanup);
    const world = openWorldAt(fresh.spec, { clock: new VirtualClock(0), seed: 'ordered' });
    worlds.push(world);
    const twin = world.twin('t');
    twin.declareIndex(byOwner);
    // ids against creation order; k1..k3 in second 5, k4 in second 3 (older), k5 in second 9
    const made: [string, number][] = [
      ['k9', 5],
      ['k8', 5],
      ['k7', 5],
      ['k6', 3],
      ['k5', 9],
    ];
    for (const [id, created] of made)
      await twin.applyWrite({
        operation: 'card.create',
        subjectType: 'card',
        subjectId: id,
        fields: { owner: 'a', created },
      });
    expect(await page(twin, 'a')).toEqual(['k5', 'k7', 'k8', 'k9', 'k6']);
    expect(await page(twin, 'a', undefined, false)).toEqual(['k6', 'k9', 'k8', 'k7', 'k5']);
    expect(await page(twin, 'a', 'k8')).toEqual(['k9', 'k6']);
    expect(await page(twin, 'a', 'k8', false, 1)).toEqual(['k7']);
    // an update that leaves the field keeps the place
    await twin.applyWrite({
      operation: 'card.update',
      subjectType: 'card',
      subjectId: 'k9',
      fields: { note: 'x' },
    });
    expect(await page(twin, 'a')).toEqual(['k5', 'k7', 'k8', 'k9', 'k6']);
    // a move to another key leaves this one and joins that one, stamped by the moving write
    await twin.applyWrite({
      operation: 'card.move',
      subjectType: 'card',
      subjectId: 'k8',
      fields: { owner: 'b' },
    });
    expect(await page(twin, 'a')).toEqual(['k5', 'k7', 'k9', 'k6']);
    expect(await page(twin, 'b')).toEqual(['k8']);
    // a delete leaves; a missing or deleted cursor gives nothing
    await twin.applyWrite({
      operation: 'card.delete',
      subjectType: 'card',
      subjectId: 'k7',
      delete: true,
    });
    expect(await page(twin, 'a')).toEqual(['k5', 'k9', 'k6']);
    expect(await page(twin, 'a', 'k7')).toEqual([]);
    expect(await page(twin, 'a', 'nope')).toEqual([]);
    // a plain index cannot be ranged
    twin.declareIndex({ type: 'card', name: 'plain', field: 'owner' });
    await expect(
      twin.read((view) => view.range!('card', 'plain', { key: 'a', limit: 1 })),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
