// The events layer's public calls refuse an argument they cannot use up front, naming it: a pack's
// name given to dispatcher.attach was taken and did nothing (its deliveries never went out), and
// attach(undefined), takeOver('stripe', id), withTraceContext('x', fn), runSending() and a
// transport option misspelt were TypeErrors from deep inside, or silence.
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/events/dispatcher.js';
import {
  getPack,
  packTwinName,
  registeredPacks,
  registerPack,
  type Pack,
} from '../../src/events/pack-registry.js';
import { runSending } from '../../src/events/send-scope.js';
import { withTraceContext } from '../../src/events/trace.js';
import { HttpTransport } from '../../src/events/transports/http-transport.js';
import { VirtualClock } from '../../src/world/clock.js';
import { stripe } from '../../packs/index.js';
import { memoryWorlds, refusal } from '../support/public-arguments.js';

const memoryWorld = memoryWorlds();

describe('public arguments of the events layer', () => {
  it('attach and takeOver take only a pack registered in the world', async () => {
    const world = memoryWorld('attach');
    const dispatcher = new Dispatcher(world, { autoDispatch: false });
    const d = dispatcher as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const [call, words] of [
      [() => d.attach!('stripe'), 'not its name'],
      [() => d.attach!(undefined), 'got undefined'],
      [() => d.attach!(stripe.pack), 'named "stripe"; register it first'],
      [() => d.takeOver!('stripe', 'dlv_1'), 'not its name'],
    ] as const)
      expect(await refusal(call)).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'pack',
        message: expect.stringContaining(words),
      });
    registerPack(world, stripe.pack);
    dispatcher.attach(stripe.pack);
    expect(await dispatcher.takeOver(stripe.pack, 'dlv_nope')).toBe(false);
    const plain: Pack = { name: 'plain' };
    registerPack(world, plain);
    dispatcher.attach(plain);
    expect(await dispatcher.takeOver(plain, 'dlv_nope')).toBe(false);
  });

  it('withTraceContext and runSending refuse what is no carrier or no function', () => {
    const trace = withTraceContext as (...args: unknown[]) => unknown;
    expect(() => trace('00-abc', () => 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'carrier' }),
    );
    expect(() => trace({ traceparent: 5 }, () => 1)).toThrow(
      expect.objectContaining({ path: 'carrier' }),
    );
    expect(() => trace({ traceparent: 'x' })).toThrow(expect.objectContaining({ path: 'fn' }));
    expect(() => (runSending as (...args: unknown[]) => unknown)()).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'fn' }),
    );
    // A text traceparent that is not a valid one is ignored when read, as W3C says: no refusal.
    expect(withTraceContext({ traceparent: 'garbage' }, () => 2)).toBe(2);
  });

  it('HttpTransport refuses an option it does not know and a maxSockets no agent can use', () => {
    const make = (options: unknown) => () =>
      new HttpTransport(options as ConstructorParameters<typeof HttpTransport>[0]);
    for (const [options, path] of [
      [{ timeoutMs: 100 }, 'options.timeoutMs'],
      [{ maxSocket: 4 }, 'options.maxSocket'],
      [{ maxSockets: 0 }, 'maxSockets'],
      [{ maxSockets: Number.NaN }, 'maxSockets'],
      [{ clock: 'real' }, 'clock'],
      ['fast', 'options'],
    ] as const)
      expect(make(options)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', path }));
    expect(make({ maxSocket: 4 })).toThrow(/did you mean "maxSockets"/);
    expect(new HttpTransport({ maxSockets: 4, clock: new VirtualClock(0) }).now()).toBe(0);
  });

  it('getPack, registeredPacks and packTwinName refuse what is no world, no name or no pack', async () => {
    const world = memoryWorld('packs');
    registerPack(world, stripe.pack);
    const call = (fn: unknown, ...args: unknown[]) =>
      refusal(() => (fn as (...a: unknown[]) => unknown)(...args));
    for (const [result, path, words] of [
      [call(getPack, world), 'name', "name must be the pack's name"],
      [call(getPack, world, stripe.pack), 'name', 'got an object (Object)'],
      [call(getPack, 'stripe'), 'world', 'world must be a world'],
      [call(registeredPacks), 'world', 'registeredPacks(world)'],
      [call(packTwinName), 'pack', 'got undefined'],
      [call(packTwinName, 'stripe'), 'pack', 'got "stripe"'],
    ] as const)
      expect(await result).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
        message: expect.stringContaining(words),
      });
    expect(getPack(world, 'stripe')).toBe(stripe.pack);
    expect(await call(getPack, world, 'slack')).toMatchObject({ code: 'UNKNOWN_PACK' });
    expect(packTwinName(stripe.pack)).toBe('stripe');
  });
});
