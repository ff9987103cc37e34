// A Stripe list page costs the page: counted as the rows the store answers the twin, on SQLite,
// a first page and a page past a cursor read `limit + 1` rows whether the account holds 30
// customers or 300, and no list reads a whole type; nor does a `created` window of recent ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createCustomer } from '../../packs/stripe/customers.js';
import { stripePack } from '../../packs/stripe/pack.js';
import { SURFACE_INDEXES } from '../../packs/stripe/surface/indexes.js';
import { listOf, orderedList } from '../../packs/stripe/surface/listing.js';
import { registerPack } from '../../src/events/pack-registry.js';
import type { JsonObject } from '../../src/log/json-value.js';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';
import { VirtualClock } from '../../src/world/clock.js';
import type { Twin } from '../../src/world/twin.js';
import { openWorld, type World } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { countingBackend, noReads } from '../support/counting-backend.js';

describe('a Stripe list page reads the page, not the account (SQLite)', () => {
  const dir = tempDir();
  const counts = noReads();
  const clock = new VirtualClock('2026-04-01T00:00:00Z');
  let world: World;
  let twin: Twin;
  const made: string[] = [];
  const created = new Map<string, number>();

  beforeAll(async () => {
    world = openWorld({
      root: join(dir, 'root'),
      clock,
      seed: 'list-cost',
      backend: countingBackend(new SqliteBackend(join(dir, 'db')), counts),
    });
    twin = registerPack(world, stripePack);
    for (const index of SURFACE_INDEXES) twin.declareIndex(index);
  });
  afterAll(async () => {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const grow = async (to: number): Promise<void> => {
    while (made.length < to) {
      const c = await createCustomer(twin, { email: `c${made.length % 3}@example.com` });
      made.push(c.id);
      created.set(c.id, c.created);
      // several per second, so ties on `created` are the common case
      if (made.length % 7 === 0) await clock.advance(1000);
    }
  };

  /** The page's ids and the rows the store answered for it. */
  const page = async (input: JsonObject): Promise<{ ids: string[]; rows: number }> => {
    Object.assign(counts, noReads());
    const list = await listOf(twin, orderedList('customer', input, []), input, '/v1/customers');
    const rows = counts.list + counts.all + counts.lookup + counts.range;
    expect(counts.list + counts.all).toBe(0);
    return { ids: (list.data as JsonObject[]).map((c) => String(c.id)), rows };
  };

  it('answers limit + 1 rows at 30 customers and at 300, in creation order newest first', async () => {
    const costs: number[] = [];
    for (const n of [30, 300]) {
      await grow(n);
      const newest = [...made].reverse();
      const first = await page({ limit: 10 });
      expect(first.ids).toEqual(newest.slice(0, 10));
      const middle = await page({ limit: 10, starting_after: newest[14]! });
      expect(middle.ids).toEqual(newest.slice(15, 25));
      const before = await page({ limit: 5, ending_before: newest[20]! });
      expect(before.ids).toEqual(newest.slice(15, 20));
      costs.push(first.rows, middle.rows, before.rows);
    }
    // the cursor's own lookup is a get, not a row of the range
    expect(costs).toEqual([11, 11, 6, 11, 11, 6]);
  });

  it('a created window of recent customers reads the page, not the older ones', async () => {
    const costs: number[] = [];
    for (const n of [30, 300]) {
      await grow(n);
      const newest = [...made].reverse();
      const since = created.get(newest[0]!)!;
      // the customers of the newest second: fewer than a page
      const window = newest.filter((id) => created.get(id)! >= since);
      expect(window.length).toBeGreaterThan(0);
      expect(window.length).toBeLessThan(10);
      const first = await page({ limit: 10, created: { gte: since } });
      expect(first.ids).toEqual(window);
      costs.push(first.rows);
    }
    // one batch of limit + 1 rows: reading stops at the first customer older than the window
    expect(costs).toEqual([11, 11]);
  });
});
