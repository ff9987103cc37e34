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
