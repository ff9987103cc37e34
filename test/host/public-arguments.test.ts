// The host entry's public calls refuse what they cannot use up front, naming it: a misspelt
// createHost or createTriggerRuntime option was dropped (a host serving nothing, a runtime with no
// routines), advanceWorld(host, NaN) ran every task ever scheduled and moved the clock past them
// all, and listen() or advanceWorld() without a host were TypeErrors from deep inside.
import { describe, expect, it } from 'vitest';
import { advanceWorld } from '../../src/host/control/clock.js';
import { createHost, requestId } from '../../src/host/host.js';
import { DispatchCapabilities } from '../../src/host/ingress/dispatch-capability.js';
import { scheduleHostWork } from '../../src/host/runtime/schedule-host.js';
import { startServe } from '../../src/host/serve/serve.js';
import { defineSurface } from '../../src/host/surface/declaration.js';
import { listen } from '../../src/host/node-server.js';
import { createTriggerRuntime } from '../../src/host/runtime/runtime.js';
import { VirtualClock } from '../../src/world/clock.js';
import { memoryWorlds, refusal } from '../support/public-arguments.js';

const memoryWorld = memoryWorlds();

type Loose = (...args: unknown[]) => unknown;
const loose = (fn: unknown): Loose => fn as Loose;

describe('public arguments of the host entry', () => {
  it('createHost, listen, advanceWorld and createTriggerRuntime refuse what they cannot use', async () => {
    const clock = new VirtualClock(0);
    const world = memoryWorld('host-args', clock);
    const host = createHost({ world });
    let ran = 0;
    clock.schedule(60_000, () => void ran++);
    for (const [call, path, words] of [
      [
        () => loose(createHost)({ world, surface: [] }),
        'options.surface',
        '(did you mean "surfaces"?)',
      ],
      [() => loose(createHost)({ world: {} }), 'world', 'got an object (Object)'],
      [() => loose(createHost)({ world, surfaces: {} }), 'options.surfaces', 'must be an array'],
      [() => loose(listen)(undefined), 'host', 'createHost'],
      [() => loose(listen)(host, { prot: 0 }), 'options.prot', '(did you mean "port"?)'],
      [() => loose(advanceWorld)(undefined, 0), 'host', 'createHost'],
      [() => loose(advanceWorld)(host, Number.NaN), 'to', 'got NaN'],
      [() => loose(advanceWorld)(host, '2026-01-01T00:00:00Z'), 'to', 'epoch milliseconds'],
      [
        () => loose(createTriggerRuntime)({ world, rotines: {} }),
        'options.rotines',
        '(did you mean "routines"?)',
      ],
      [() => loose(createTriggerRuntime)(), 'world', 'got undefined'],
    ] as const)
      expect(await refusal(call)).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path,
        message: expect.stringContaining(words),
      });
    expect(ran).toBe(0);
    expect(clock.now()).toBe(0);
    await host.close();
  });

  it('startServe, scheduleHostWork, DispatchCapabilities, defineSurface and requestId refuse what they cannot use', async () => {
    const world = memoryWorld('host-args-2');
    for (const [call, path] of [
      [() => loose(startServe)(), 'world'],
      [() => loose(startServe)({ world, config: {}, prot: 8080 }), 'options.prot'],
      [() => loose(scheduleHostWork)(world), 'options'],
      [() => loose(scheduleHostWork)(world, { owner: 'a', hostlabel: 'h' }), 'options.hostlabel'],
      [() => loose(scheduleHostWork)(undefined, { owner: 'a' }), 'world'],
      [() => new (DispatchCapabilities as unknown as new (w?: unknown) => unknown)(), 'world'],
      [() => loose(defineSurface)(), 'surface'],
      [() => loose(defineSurface)({ name: 'x' }), 'surface.routes'],
      [() => loose(defineSurface)({ routes: [] }), 'surface.name'],
      [() => loose(requestId)(null), 'prefix'],
    ] as const)
      expect(await refusal(call)).toMatchObject({ code: 'INVALID_ARGUMENT', path });
    expect(requestId()).toMatch(/^req_/);
    expect(scheduleHostWork(world, { owner: 'a' }).name).toBe('schedule');
  });
});
