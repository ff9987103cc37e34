// The world layer's public calls refuse an argument they cannot use up front, as INVALID_ARGUMENT
// naming it, where they answered a TypeError from deep inside, failed a later commit, or took it
// and wrote something else: vendorId(prefix, 1.5) gave "cus_3undefined", a misspelt index option
// or entries option was dropped, use(undefined) broke every later commit of the twin.
import { describe, expect, it } from 'vitest';
import { isoAt, VirtualClock } from '../../src/world/clock.js';
import { commit } from '../../src/world/decision.js';
import { SeededIds } from '../../src/world/ids.js';
import { replayLines } from '../../src/world/replay.js';
import type { World } from '../../src/world/world.js';
import { memoryWorlds, refusal } from '../support/public-arguments.js';

const memoryWorld = memoryWorlds();

const world = (): World => memoryWorld('args');

type Loose = Record<string, (...args: unknown[]) => unknown>;
const loose = (o: object): Loose => o as unknown as Loose;

describe('public arguments of the world layer', () => {
  it('vendorId refuses a prefix that is no text and a length that is no whole number, 1 or more', async () => {
    const ids = loose(world().ids);
    for (const [args, path] of [
      [[], 'prefix'],
      [[7], 'prefix'],
      [['cus', 1.5], 'length'],
      [['cus', 0], 'length'],
      [['cus', -1], 'length'],
      [['cus', '16'], 'length'],
    ] as const)
      expect(await refusal(() => ids.vendorId!(...args))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
      });
    expect(ids.vendorId!('cus', 8)).toMatch(/^cus_[0-9A-Za-z]{8}$/);
    expect(ids.vendorId!('')).toMatch(/^[0-9A-Za-z]{24}$/);
  });

  it('declareIndex refuses an option it does not know, suggesting the one meant', async () => {
    const twin = world().twin('shop');
    for (const [key, meant] of [
      ['emptyKye', 'emptyKey'],
      ['orderby', 'orderBy'],
      ['feild', 'field'],
    ])
      expect(
        await refusal(() =>
          twin.declareIndex({ type: 'customer', name: 'byPlan', field: 'plan', [key!]: 'x' }),
        ),
      ).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: `index.${key}`,
        message: expect.stringContaining(`(did you mean "${meant}"?)`),
      });
    twin.declareIndex({ type: 'customer', name: 'byPlan', field: 'plan', emptyKey: '*' });
    expect(await twin.lookup('customer', 'byPlan', '*')).toEqual([]);
  });

  it("a twin's read, entries, entriesFor and use refuse what they cannot use", async () => {
    const twin = world().twin('shop');
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: {},
    });
    const t = loose(twin);
    for (const [call, path] of [
      [() => t.read!(), 'fn'],
      [() => t.entries!({ lmit: 1 }), 'options.lmit'],
      [() => t.entries!('1'), 'options'],
      [() => t.entriesFor!('customer'), 'id'],
      [() => t.use!(undefined), 'hooks.name'],
      [() => t.use!({ name: 'audit', afterCommit: 'log' }), 'hooks.afterCommit'],
    ] as const)
      expect(await refusal(call)).toMatchObject({ code: 'INVALID_ARGUMENT', path });
    // The refused hooks were not kept: the next commit goes through.
    await twin.applyWrite({
      operation: 'customer.update',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { n: 1 },
    });
    expect((await twin.entries({ limit: 1 })).map((e) => e.seq)).toEqual([1]);
    expect(await refusal(() => t.entries!({ lmit: 1 }))).toMatchObject({
      message: expect.stringContaining('(did you mean "limit"?)'),
    });
  });

  it('world.run, replayLines and isoAt refuse what is no function, no lines or no time', async () => {
    const w = loose(world());
    expect(await refusal(() => w.run!())).toMatchObject({ code: 'INVALID_ARGUMENT', path: 'fn' });
    const text = '{"twin":"a"}\n';
    expect(await refusal(() => replayLines(text as never))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'lines',
      message: expect.stringContaining("split a file's text into lines first"),
    });
    expect(await refusal(() => replayLines(undefined as never))).toMatchObject({ path: 'lines' });
    expect(await refusal(() => replayLines([], 'log' as never))).toMatchObject({
      path: 'onProgress',
    });
    expect(await refusal(() => replayLines([5] as never))).toMatchObject({
      code: 'IMPORT_MALFORMED_LINE',
      path: 'line 1',
      message: expect.stringContaining('it is 5, not text'),
    });
    expect(await replayLines([])).toMatchObject({ entries: 0 });
    expect(await refusal(() => isoAt(Number.NaN))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'ms',
    });
    expect(isoAt(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('new SeededIds refuses a missing seed and a clock that is no clock', async () => {
    const Ids = SeededIds as unknown as new (...args: unknown[]) => SeededIds;
    const clock = new VirtualClock(0);
    for (const [args, path] of [
      [[clock], 'seed'],
      [[clock, null], 'seed'],
      [[clock, Number.NaN], 'seed'],
      [[clock, { seed: 1 }], 'seed'],
      [[undefined, 'a'], 'clock'],
      [[0, 'a'], 'clock'],
    ] as const)
      expect(await refusal(() => new Ids(...args))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
      });
    expect(new SeededIds(clock, 1).vendorId('cus')).toBe(new SeededIds(clock, '1').vendorId('cus'));
  });

  it('commit refuses no writes, pointing at skip; an empty array still commits nothing', async () => {
    const loose = commit as unknown as (...args: unknown[]) => unknown;
    for (const writes of [undefined, null, 'customer.create'])
      expect(await refusal(() => loose(writes))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'writes',
        message: expect.stringContaining('return skip(result)'),
      });
    const twin = world().twin('shop');
    expect(await refusal(() => twin.applyAtomic(() => loose() as never))).toMatchObject({
      path: 'writes',
    });
    expect((await twin.applyAtomic(() => commit([], 'done'))).result).toBe('done');
  });

  it("a view's range refuses a page it cannot read: a NaN limit, a key or cursor that is no text, a misspelt key", async () => {
    const twin = world().twin('cards');
    twin.declareIndex({ type: 'card', name: 'byOwner', field: 'owner', orderBy: 'created' });
    await twin.applyWrite({
      operation: 'card.create',
      subjectType: 'card',
      subjectId: 'c1',
      fields: { owner: 'ada', created: 1 },
    });
    const range = (...args: unknown[]) =>
      twin.read((view) => (view.range as unknown as (...a: unknown[]) => unknown)(...args));
    for (const [args, path] of [
      [['card', 'byOwner', { key: 'ada', limit: Number.NaN }], 'page.limit'],
      [['card', 'byOwner', { key: 'ada', limit: '10' }], 'page.limit'],
      [['card', 'byOwner', { key: 'ada' }], 'page.limit'],
      [['card', 'byOwner', { limit: 10 }], 'page.key'],
      [['card', 'byOwner', { key: 'ada', after: 1, limit: 10 }], 'page.after'],
      [['card', 'byOwner', { key: 'ada', limit: 10, descending: 'yes' }], 'page.descending'],
      [['card', 'byOwner', { key: 'ada', afer: 'c1', limit: 10 }], 'page.afer'],
      [['card', 'byOwner', { key: 'ada', limit: 10, decending: true }], 'page.decending'],
      [['card', 'byOwner', [] as unknown], 'page'],
      [['card', 'byOwner'], 'page'],
      [['card'], 'index'],
      [[], 'type'],
    ] as const)
      expect(await refusal(() => range(...args))).toMatchObject({ code: 'INVALID_ARGUMENT', path });
    expect(
      await refusal(() => range('card', 'byOwner', { key: 'ada', limit: 10, decending: true })),
    ).toMatchObject({ message: expect.stringContaining('did you mean "descending"') });
    expect(await range('card', 'byOwner', { key: 'ada', limit: 10 })).toHaveLength(1);
  });
});
