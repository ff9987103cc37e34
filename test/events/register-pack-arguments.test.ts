// registerPack refuses the arguments a new user plausibly passes — the pack's name, its module
// instead of its .pack, something that is not a world — naming which argument and what to pass,
// where they failed as "a pack needs a non-empty name" or a WeakMap TypeError; and a misspelt pack
// key, which left the pack silently without what it declared.
import { afterAll, describe, expect, it } from 'vitest';
import { registerPack, type Pack } from '../../src/events/pack-registry.js';
import { openWorld, type World } from '../../src/world/world.js';
import { stripe } from '../../packs/index.js';

function refusal(world: unknown, pack: unknown): unknown {
  try {
    registerPack(world as World, pack as Pack);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('registerPack arguments', () => {
  const world = openWorld({ root: ':memory:' });
  afterAll(() => world.close());

  it("refuses a pack's name, saying to import the pack", () => {
    expect(refusal(world, 'stripe')).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'pack',
      message: expect.stringContaining('not its name "stripe"'),
    });
  });

  it("refuses a pack's module, saying to pass its .pack", () => {
    expect(refusal(world, stripe)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'pack',
      message: expect.stringContaining('module of the pack "stripe", not the pack; pass its .pack'),
    });
  });

  it('refuses a world that is not one, naming the argument', () => {
    expect(refusal('world', stripe.pack)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'world',
      message: expect.stringContaining('world must be a world from openWorld'),
    });
    expect(refusal(undefined, stripe.pack)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'world',
    });
  });

  it('refuses indexes that are not an array at the pack', () => {
    expect(refusal(world, { name: 'shop', indexes: 'byPlan' })).toMatchObject({
      code: 'INVALID_CONFIG',
      path: 'packs.shop.indexes',
    });
  });

  it('refuses a key a slip away from a pack key, naming the one it likely meant', () => {
    // Taken before: the pack registered with no events, and no delivery was ever recorded.
    for (const [key, meant] of [
      ['evnets', 'events'],
      ['Events', 'events'],
      ['index', 'indexes'],
      ['twinn', 'twin'],
      ['descripton', 'description'],
    ] as const)
      expect(refusal(world, { name: `typo-${key.toLowerCase()}`, [key]: {} })).toMatchObject({
        code: 'INVALID_CONFIG',
        path: `packs.typo-${key.toLowerCase()}.${key}`,
        message: expect.stringContaining(`unknown key "${key}" (did you mean "${meant}"?)`),
      });
  });

  it("takes keys of the pack's own that are no slip of a pack key: every built-in pack's, and short ones", () => {
    for (const key of [
      'scenarios',
      'scenarioKeys',
      'idShapes',
      'retireEndpoint',
      'vendor',
      'api',
      'id',
    ])
      expect(
        registerPack(world, { name: `own-${key.toLowerCase()}`, [key]: {} } as Pack).name,
      ).toBe(`own-${key.toLowerCase()}`);
  });

  it('still takes the pack itself, and a pack with no name is still INVALID_CONFIG', () => {
    expect(registerPack(world, stripe.pack).name).toBe('stripe');
    expect(refusal(world, {})).toMatchObject({ code: 'INVALID_CONFIG', path: 'pack.name' });
  });
});
