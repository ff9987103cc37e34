// The world layer's public calls refuse an argument they cannot use up front, as INVALID_ARGUMENT
// naming it, where they took it and wrote something else: vendorId(prefix, 1.5) gave
// "cus_3undefined", and a misspelt index option was dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});

function world(): World {
  const w = openWorld({ root: ':memory:', clock: new VirtualClock(0), seed: 'args' });
  worlds.push(w);
  return w;
}

type Loose = Record<string, (...args: unknown[]) => unknown>;
const loose = (o: object): Loose => o as unknown as Loose;

/** The refusal of a call, thrown or rejected. */
async function refusal(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

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
});
