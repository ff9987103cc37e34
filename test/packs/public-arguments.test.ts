// sendEvent refuses options it cannot use before it touches the world, naming the option: no
// options and a pack's module were TypeErrors from deep inside, an event type that is no text was
// 'cannot send "undefined"', and a misspelt dispatcher was dropped, so the send went through the
// world's own dispatcher.
import { afterEach, describe, expect, it } from 'vitest';
import { registeredPacks } from '../../src/events/pack-registry.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { listSendable, sendEvent, stripe } from '../../packs/index.js';

const worlds: World[] = [];
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close();
});

describe('public arguments of sendEvent', () => {
  it('refuses no world, no options, a misspelt option, a pack module and an event type that is no text', async () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(0), seed: 'send' });
    worlds.push(world);
    const send = sendEvent as unknown as (...args: unknown[]) => Promise<unknown>;
    const base = {
      pack: 'stripe',
      eventType: 'customer.created',
      to: 'http://127.0.0.1:1',
      secret: 's',
    };
    for (const [args, path, words] of [
      [[undefined, base], 'world', 'world must be a world'],
      [[world], 'options', 'options must be an object'],
      [[world, null], 'options', 'options must be an object'],
      [[world, { ...base, dispacher: {} }], 'dispacher', 'unknown option "dispacher"'],
      [[world, { ...base, dispatcher: {} }], 'dispatcher', 'must be a Dispatcher'],
      [[world, { ...base, pack: stripe }], 'pack', 'pass its name or its .pack'],
      [[world, { ...base, pack: { name: 'x' } }], 'pack', 'one with scenarios'],
      [[world, { ...base, pack: undefined }], 'pack', `built-in pack's name`],
      [[world, { ...base, eventType: undefined }], 'eventType', 'must be a string'],
    ] as const)
      await expect(send(...args)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
        message: expect.stringContaining(words),
      });
    expect(registeredPacks(world).size).toBe(0);
  });

  it('listSendable refuses what is no array of packs', () => {
    const list = listSendable as unknown as (packs?: unknown) => unknown;
    for (const packs of [stripe.pack, null, [stripe]])
      expect(() => list(packs)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'packs' }),
      );
    expect(listSendable([stripe.pack]).every((s) => s.pack === 'stripe')).toBe(true);
  });
});
