// A record kind gives typed reads and writes of one kind of record over any read view, and
// declares its indexes on a twin (durably: a second world over the same store finds them).
import { describe, expect, it } from 'vitest';
import { recordKind } from '../../src/state/record-kind.js';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { openWorld } from '../../src/world/world.js';

interface Customer {
  email: string;
  plan: 'free' | 'pro';
  tags?: string[];
}

const customers = recordKind<Customer>({
  type: 'customer',
  indexes: { byPlan: 'plan', byTag: { field: 'tags', emptyKey: '-' } },
});
const seats = recordKind<{ n: number }, [string, number]>({
  type: 'seat',
  id: (customer, n) => `${customer}/${n}`,
});

describe('recordKind', () => {
  it('declares its indexes, writes and reads typed fields, and builds ids', async () => {
    const backend = new MemoryBackend();
    const world = openWorld({ root: ':memory:', backend });
    const twin = world.twin('shop');
    customers.declareOn(twin);
    customers.declareOn(twin); // idempotent
    expect(customers.indexes).toEqual([
      { type: 'customer', name: 'byPlan', field: 'plan' },
      { type: 'customer', name: 'byTag', field: 'tags', emptyKey: '-' },
    ]);

    await twin.applyWrite(
      customers.write('customer.create', 'cus_1', { email: 'a@b.c', plan: 'free' }),
    );
    await twin.applyWrite(
      customers.write(
        'customer.create',
        'cus_2',
        { email: 'd@e.f', plan: 'pro', tags: ['vip'] },
        { actor: 'api' },
      ),
    );
    await twin.applyWrite({
      operation: 'customer.delete',
      subjectType: 'customer',
      subjectId: 'cus_2',
      delete: true,
    });

    const seen = await twin.read((view) => ({
      one: customers.read(view, 'cus_1'),
      gone: customers.read(view, 'cus_2'),
      tombstone: customers.fieldsAt(view, 'cus_2'),
      never: customers.fieldsAt(view, 'cus_9'),
      all: customers.list(view),
      free: customers.lookup(view, 'byPlan', 'free'),
      untagged: customers.lookup(view, 'byTag', '-'),
    }));
    expect(seen.one).toEqual({ email: 'a@b.c', plan: 'free' });
    expect(seen.gone).toBeUndefined();
    expect(seen.tombstone).toEqual({ email: 'd@e.f', plan: 'pro', tags: ['vip'] }); // as last written
    expect(seen.never).toBeUndefined();
    expect(seen.all).toEqual([{ email: 'a@b.c', plan: 'free' }]);
    expect(seen.free.map((c) => c.email)).toEqual(['a@b.c']);
    expect(seen.untagged.map((c) => c.email)).toEqual(['a@b.c']);
    const entry = (await twin.entries())[1]!;
    expect(entry).toMatchObject({ subjectType: 'customer', subjectId: 'cus_2', actor: 'api' });
    expect(customers.of((await twin.get('customer', 'cus_1'))!)).toEqual(seen.one);
    expect(customers.json({ plan: 'pro' })).toEqual({ plan: 'pro' });
    expect(customers.from({ email: 'x', plan: 'pro' }).plan).toBe('pro');
    expect(seats.id('cus_1', 3)).toBe('cus_1/3');
    expect(customers.id('cus_7')).toBe('cus_7');
    await world.close();

    // Another world on the same store declared nothing and finds the index all the same.
    const other = openWorld({ root: ':memory:', backend });
    const pro = await other.twin('shop').read((view) => customers.lookup(view, 'byPlan', 'free'));
    expect(pro.map((c) => c.email)).toEqual(['a@b.c']);
    await other.close();
  });
});
