// new Dispatcher(world, options) refuses what it could not use before it attaches to anything,
// naming the option: these failed as a TypeError on world.ids or on iterating routes, or were
// taken silently (autoDispatch: 'onFlush' dispatched at once, a misspelt key did nothing).
import { afterAll, describe, expect, it } from 'vitest';
import { Dispatcher, type DispatcherOptions } from '../../src/events/dispatcher.js';
import { HttpTransport } from '../../src/events/transports/http-transport.js';
import { openWorld, type World } from '../../src/world/world.js';

const world = openWorld({ root: ':memory:' });
afterAll(() => world.close());

function refusal(w: unknown, options?: unknown): unknown {
  try {
    new Dispatcher(w as World, options as DispatcherOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('new Dispatcher arguments', () => {
  it('refuses a missing world and options that are no object', () => {
    expect(refusal(undefined)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'world',
      message: expect.stringContaining('world must be a world from openWorld'),
    });
    expect(refusal({ autoDispatch: false })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'world',
    });
    expect(refusal(world, 'on-flush')).toMatchObject({ code: 'INVALID_ARGUMENT', path: 'options' });
  });

  it.each([
    [{ autoDispatch: 'onFlush' }, 'autoDispatch', "true, false or 'on-flush'"],
    [{ autoDispatch: 'false' }, 'autoDispatch', 'got "false"'],
    [{ owner: '' }, 'owner', 'non-empty string'],
    [{ concurency: 4 }, 'concurency', 'unknown option "concurency"; a dispatcher takes routes'],
    [{ routes: {} }, 'routes', 'an array of {prefix, transport}'],
    [{ routes: [{ transport: new HttpTransport() }] }, 'routes[0].prefix', 'got undefined'],
    [{ routes: [{ prefix: 'http://127.0.0.1:1/' }] }, 'routes[0].transport', 'Transport'],
    [{ defaultTransport: {} }, 'defaultTransport', 'Transport {name, now(), send(request)}'],
  ])('refuses %j at %s', (options, path, words) => {
    expect(refusal(world, options)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      path,
      message: expect.stringContaining(words),
    });
  });

  it('takes every documented option', async () => {
    const transport = new HttpTransport();
    const dispatcher = new Dispatcher(world, {
      routes: [{ prefix: 'http://127.0.0.1:1/', transport }],
      defaultTransport: transport,
      concurrency: 2,
      autoDispatch: 'on-flush',
      owner: 'wrk_test',
      leaseMs: 1000,
    });
    await dispatcher.close();
  });
});
