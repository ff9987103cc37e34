// A twin's reads refuse arguments no store could answer before any store sees them, alike on every
// backend: a lookup key that is not text, a log position or page size that is not a whole number.
import { afterEach, describe, expect, it } from 'vitest';
import { openWorld } from '../../src/world/world.js';
import { backends, collect } from '../support/backends.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.each(backends)('read arguments on $name', (b) => {
  async function twin() {
    const home = b.create();
    const world = openWorld({ root: ':memory:', backend: home.backend });
    cleanups.push(home.cleanup, () => world.close());
    const t = world.twin('reads');
    t.declareIndex({ type: 'endpoint', name: 'by-event', field: 'events' });
    await t.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep_1',
      fields: { events: ['4'] },
    });
    return t;
  }

  it('a lookup key must be text, and the refusal says how to spell a number', async () => {
    const t = await twin();
    expect(() => t.lookup('endpoint', 'by-event', 4 as unknown as string)).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        path: 'key',
        message: expect.stringContaining('String(value)'),
      }),
    );
    expect((await t.lookup('endpoint', 'by-event', '4')).map((r) => r.id)).toEqual(['ep_1']);
  });

  it('a log position and a page size must be whole numbers', async () => {
    const t = await twin();
    for (const [options, path] of [
      [{ after: Number.NaN }, 'after'],
      [{ after: -1 }, 'after'],
      [{ after: 1.5 }, 'after'],
      [{ limit: 0 }, 'limit'],
      [{ limit: Number.POSITIVE_INFINITY }, 'limit'],
    ] as const)
      await expect(t.entries(options)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', path });
    await expect(collect(t.exportLines(Number.NaN))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'after',
    });
    expect((await t.entries({ after: 0, limit: 1 })).map((e) => e.seq)).toEqual([1]);
    expect(await collect(t.exportLines(1))).toEqual([]);
  });
});

describe('get and list arguments', () => {
  // A missing or non-text type or id read as "nothing there" (undefined, []), not as a wrong call.
  it('refuse a type or id that is not non-empty text, naming which', async () => {
    const world = openWorld({ root: ':memory:' });
    cleanups.push(() => world.close());
    const t = world.twin('reads');
    await t.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: {},
    });
    const loose = t as unknown as {
      get(...args: unknown[]): Promise<unknown>;
      list(...args: unknown[]): Promise<unknown>;
    };
    for (const [call, path] of [
      [() => loose.get(), 'type'],
      [() => loose.get('customer'), 'id'],
      [() => loose.get(1, 2), 'type'],
      [() => loose.list(), 'type'],
      [() => loose.list(''), 'type'],
    ] as const)
      expect(call).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          path,
          message: expect.stringMatching(/^(get\(type, id\)|list\(type\)), e\.g\. /),
        }),
      );
    expect(await t.get('customer', '')).toBeUndefined();
    expect((await t.get('customer', 'cus_1'))?.id).toBe('cus_1');
    expect((await t.list('customer')).map((r) => r.id)).toEqual(['cus_1']);
  });
});

describe.each(backends)('the view a decide reads, on $name', (b) => {
  // Inside a decide (and read()), a wrong argument read as "nothing there": get(42, id) answered
  // undefined, list() [], lookup(type, index, 5) [] — and the decide decided on it. It is refused
  // as the twin's own get, list and lookup refuse it, and nothing is appended.
  it('refuses what twin.get, list and lookup refuse, naming the argument', async () => {
    const home = b.create();
    const world = openWorld({ root: ':memory:', backend: home.backend });
    cleanups.push(home.cleanup, () => world.close());
    const t = world.twin('view');
    t.declareIndex({ type: 'customer', name: 'byPlan', field: 'plan' });
    await t.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { plan: 'pro' },
    });
    type Loose = Record<string, (...args: unknown[]) => unknown>;
    const cases: [(v: Loose) => unknown, string][] = [
      [(v) => v.get!(42, 'cus_1'), 'type'],
      [(v) => v.get!('customer'), 'id'],
      [(v) => v.get!(undefined, undefined), 'type'],
      [(v) => v.list!(), 'type'],
      [(v) => v.getMany!('customer', 'cus_1'), 'ids'],
      [(v) => v.getMany!('customer', ['cus_1', 7]), 'ids[1]'],
      [(v) => v.lookup!('customer', 'byPlan', 5), 'key'],
      [(v) => v.lookup!('customer'), 'index'],
      [(v) => v.lookup!(undefined, 'byPlan', 'pro'), 'type'],
      [(v) => v.lookupMany!([{ type: 'customer', index: 'byPlan' }]), 'key'],
      [(v) => v.lookupUpTo!('customer', 'byPlan', 'zzz', Number.NaN), 'limit'],
      [(v) => v.lookupUpTo!('customer', 'byPlan', 9, 10), 'maxKey'],
    ];
    for (const [read, path] of cases) {
      await expect(
        t.applyAtomic((view) => {
          read(view as unknown as Loose);
          return [{ operation: 'x.touch', subjectType: 'x', subjectId: 'x', fields: {} }];
        }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', path });
      await expect(t.read((view) => read(view as unknown as Loose))).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
      });
    }
    expect(await t.head()).toBe(1);
    const answers = await t.read((view) => [
      view.get('customer', 'cus_1')?.id,
      view.get('customer', ''),
      view.get('never-written', 'x'),
      view.list('customer').length,
      view.lookup('customer', 'byPlan', 'pro').length,
      view.lookupUpTo('customer', 'byPlan', 'zzz', 0).length,
    ]);
    expect(answers).toEqual(['cus_1', undefined, undefined, 1, 1, 0]);
    // The twin's lookup names a missing index as the index, not as a key that is not text.
    expect(() => (t as unknown as Loose).lookup!('customer')).toThrow(
      expect.objectContaining({ path: 'index' }),
    );
  });
});
