// The trigger engine's own promises around its life: what the constructor, registerRoute and
// registerSource refuse and what their messages tell the host to do; start, stop and the states
// an engine moves through; the default owner of its claims; reads and ingests under a tenant
// context; dispatch options on a route or one call; and runDispatched, the worker's way in.
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/log/json-value.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import type { DeferredAnswer } from '../../src/triggers/answer.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import type { RoutineRunner } from '../../src/triggers/runner.js';
import type { TriggerSource } from '../../src/triggers/source.js';
import { SYSTEM_CONTEXT, tenantContext } from '../../src/triggers/tenant-context.js';
import { recordId } from '../../src/triggers/trigger-records.js';
import { envelope, expectRefusal, harness, operations, T0 } from './support.js';
import { at, deferredHarness, event, type DeferredHarness } from './deferred/support.js';

const worlds: World[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.close();
});

function world(clock = new VirtualClock(T0)): World {
  const made = openWorld({ root: ':memory:', clock, seed: 'lifecycle' });
  worlds.push(made);
  return made;
}

const runner: RoutineRunner = { run: async () => null };

/** A routine that waits until released, and says when it started. */
function gated(): {
  runner: RoutineRunner;
  started: Promise<void>;
  release: (value: JsonValue) => void;
} {
  let release!: (value: JsonValue) => void;
  let began!: () => void;
  const gate = new Promise<JsonValue>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (began = resolve));
  return {
    runner: {
      run: async () => {
        began();
        return gate;
      },
    },
    started,
    release,
  };
}

async function deferred(routes: Parameters<typeof deferredHarness>[0]): Promise<DeferredHarness> {
  const h = await deferredHarness(routes);
  worlds.push(h.world);
  return h;
}

describe('new TriggerEngine: what it refuses and what the refusal says', () => {
  it('a null options object is INVALID_ARGUMENT at options, naming the options the constructor needs', async () => {
    const e = await expectRefusal(
      () => new TriggerEngine(null as never),
      'INVALID_ARGUMENT',
      'options',
    );
    expect(e.message).toBe('new TriggerEngine({world, runner, twin?}) needs an options object');
  });

  it('a null world, or an object that is not a world, is refused at world and pointed to openWorld()', async () => {
    for (const bad of [null, {}, { twin: 'triggers' }]) {
      const e = await expectRefusal(
        () => new TriggerEngine({ world: bad, runner } as never),
        'INVALID_ARGUMENT',
        'world',
      );
      expect(e.message).toBe('TriggerEngine needs {world}: the world from openWorld()');
    }
  });

  it('a null runner, or one without a run function, is refused at runner, naming run(...) and InProcessRunner', async () => {
    const w = world();
    for (const bad of [null, {}, { run: 'fulfil' }]) {
      const e = await expectRefusal(
        () => new TriggerEngine({ world: w, runner: bad } as never),
        'INVALID_ARGUMENT',
        'runner',
      );
      expect(e.message).toContain('run({routineId, runKey, input, envelope})');
      expect(e.message).toContain('new InProcessRunner(world)');
    }
  });

  it('refusalWindowMs must be a positive integer: 0, -5 and 1.5 are refused at refusalWindowMs, 1 is taken', async () => {
    const w = world();
    for (const refusalWindowMs of [0, -5, 1.5, Number.NaN]) {
      const e = await expectRefusal(
        () => new TriggerEngine({ world: w, runner, refusalWindowMs }),
        'INVALID_ARGUMENT',
        'refusalWindowMs',
      );
      expect(e.message).toBe('refusalWindowMs must be a positive integer number of milliseconds');
    }
    const engine = new TriggerEngine({ world: w, runner, refusalWindowMs: 1 });
    await engine.start();
    expect(engine.running).toBe(true);
  });

  it('a bad leaseMs is refused at leaseMs before anything is declared', async () => {
    const e = await expectRefusal(
      () => new TriggerEngine({ world: world(), runner, leaseMs: 0 }),
      'INVALID_ARGUMENT',
      'leaseMs',
    );
    expect(e.message).toContain('leaseMs must be a positive integer number of milliseconds');
  });

  it('without an owner, each engine claims its runs as its own wrk_ id, and that owner is written on the claimed record', async () => {
    const w = world();
    const g = gated();
    const engine = new TriggerEngine({ world: w, runner: g.runner });
    const other = new TriggerEngine({ world: w, runner, twin: 'others' });
    expect(engine.claimant.owner).toMatch(/^wrk_[0-9A-Za-z]+$/);
    expect(other.claimant.owner).toMatch(/^wrk_[0-9A-Za-z]+$/);
    expect(other.claimant.owner).not.toBe(engine.claimant.owner);
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    await engine.start();
    const running = engine.ingest(envelope());
    await g.started;
    expect(await engine.record('acme', 'order:ord_1')).toMatchObject({
      state: 'processing',
      owner: engine.claimant.owner,
    });
    g.release('done');
    expect((await running).status).toBe('triggered');
  });
});

describe('registerRoute: refusals and what is registered', () => {
  it('a route that is null or not an object is refused at route, showing the route object registerRoute needs', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    for (const bad of [null, 'order.placed', () => null]) {
      const e = await expectRefusal(
        () => engine.registerRoute(bad as never),
        'INVALID_ARGUMENT',
        'route',
      );
      expect(e.message).toBe(
        'registerRoute({triggerId, routineId, filter?, buildInput}) needs a route object',
      );
    }
  });

  it('a routineId that is not a non-empty string is refused at route.routineId, naming the trigger', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    for (const routineId of [42, null, '']) {
      const e = await expectRefusal(
        () =>
          engine.registerRoute({
            triggerId: 'order.placed',
            routineId,
            buildInput: () => null,
          } as never),
        'INVALID_ARGUMENT',
        'route.routineId',
      );
      expect(e.message).toBe(
        'route.routineId must name the routine to run for trigger "order.placed"',
      );
    }
    expect(engine.hasRoute('order.placed')).toBe(false);
  });

  it('a bad filter or buildInput is refused with what to pass instead', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    const filter = await expectRefusal(
      () =>
        engine.registerRoute({
          triggerId: 't',
          routineId: 'r',
          filter: true,
          buildInput: () => null,
        } as never),
      'INVALID_ARGUMENT',
      'route.filter',
    );
    expect(filter.message).toBe(
      'route.filter must be a function (envelope) => boolean, or omitted',
    );
    const build = await expectRefusal(
      () => engine.registerRoute({ triggerId: 't', routineId: 'r', buildInput: {} } as never),
      'INVALID_ARGUMENT',
      'route.buildInput',
    );
    expect(build.message).toBe(
      'route.buildInput must be a function (envelope) => input, e.g. (e) => e.payload',
    );
  });

  it('a second route for a trigger is refused, naming the routine the trigger already goes to', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'fulfil',
      buildInput: () => null,
    });
    const e = await expectRefusal(
      () =>
        engine.registerRoute({
          triggerId: 'order.placed',
          routineId: 'bill',
          buildInput: () => null,
        }),
      'INVALID_ARGUMENT',
      'route.triggerId',
    );
    expect(e.message).toBe('trigger "order.placed" already has a route (to routine "fulfil")');
    expect(engine.routeFor('order.placed')!.routineId).toBe('fulfil');
  });

  it('hasRoute and routeFor answer the registered route, and nothing for a trigger without one', () => {
    const engine = new TriggerEngine({ world: world(), runner });
    const route = { triggerId: 'order.placed', routineId: 'fulfil', buildInput: () => null };
    expect(engine.registerRoute(route)).toBe(engine);
    expect(engine.hasRoute('order.placed')).toBe(true);
    expect(engine.routeFor('order.placed')).toBe(route);
    expect(engine.hasRoute('order.refunded')).toBe(false);
    expect(engine.routeFor('order.refunded')).toBeUndefined();
  });

  it('route dispatch options are checked when the route is registered (INVALID_ARGUMENT at route.dispatch), and the route is not kept', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    const empty = await expectRefusal(
      () =>
        engine.registerRoute({
          triggerId: 'order.placed',
          routineId: 'fulfil',
          buildInput: () => null,
          dispatch: {},
        }),
      'INVALID_ARGUMENT',
      'route.dispatch',
    );
    expect(empty.message).toContain('route.dispatch is empty');
    await expectRefusal(
      () =>
        engine.registerRoute({
          triggerId: 'order.placed',
          routineId: 'fulfil',
          buildInput: () => null,
          dispatch: { delay: -1 },
        }),
      'INVALID_ARGUMENT',
      'route.dispatch.delay',
    );
    expect(engine.hasRoute('order.placed')).toBe(false);
  });

  it("a route's delay defers each envelope: ingest answers deferred, and the worker runs the routine at the due time", async () => {
    const h = await deferred([
      { triggerId: 'customer.updated', routineId: 'sync', dispatch: { delay: 5_000 } },
    ]);
    const answer = (await h.engine.ingest(event(1, { customer: 'cus_1' }))) as DeferredAnswer;
    expect(answer).toMatchObject({
      status: 'deferred',
      state: 'delayed',
      routineId: 'sync',
      dueAt: at(5_000),
      recordId: recordId('acme', 'evt_1'),
    });
    expect(h.calls).toEqual([]);
    expect(await h.advanceTo(at(4_999))).toEqual([]);
    const reports = await h.advanceTo(at(5_000));
    expect(reports.map((r) => [r.outcome, r.id])).toEqual([['dispatched', answer.dispatchId]]);
    expect(reports[0]!.detail).toContain('triggered');
    expect(h.calls).toEqual([
      {
        at: at(5_000),
        routineId: 'sync',
        input: { customer: 'cus_1' },
        runKey: 'evt_1',
        attempt: 1,
      },
    ]);
    expect(await h.engine.record('acme', 'evt_1')).toMatchObject({
      state: 'triggered',
      result: { synced: { customer: 'cus_1' } },
    });
  });
});

describe('registerSource: refusals', () => {
  it('refuses null, a source without a string name, and a source class passed instead of an instance, at source', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    class WebhookSource implements TriggerSource {
      readonly name = 'webhooks';
    }
    for (const bad of [null, {}, { name: 42 }, 'webhooks', WebhookSource]) {
      const e = await expectRefusal(
        () => engine.registerSource(bad as never),
        'INVALID_ARGUMENT',
        'source',
      );
      expect(e.message).toBe('registerSource(source) needs an object with a non-empty name');
    }
    expect(engine.registerSource(new WebhookSource())).toBe(engine);
  });

  it('a late or second source of a name is refused with the name and what to do', async () => {
    const engine = new TriggerEngine({ world: world(), runner });
    engine.registerSource({ name: 'calendar' });
    const twice = await expectRefusal(
      () => engine.registerSource({ name: 'calendar' }),
      'INVALID_ARGUMENT',
      'source.name',
    );
    expect(twice.message).toBe('a source named "calendar" is already registered');
    await engine.start();
    const late = await expectRefusal(
      () => engine.registerSource({ name: 'webhooks' }),
      'INVALID_ARGUMENT',
      'source',
    );
    expect(late.message).toBe('source "webhooks": register sources before engine.start()');
  });
});

describe('start and stop', () => {
  function withSources(w: World, events: string[], run: RoutineRunner = runner): TriggerEngine {
    const engine = new TriggerEngine({ world: w, runner: run });
    engine.registerRoute({ triggerId: 'order.placed', routineId: 'r', buildInput: () => null });
    for (const name of ['a', 'b'])
      engine.registerSource({
        name,
        connect: () => void events.push(`connect ${name}`),
        disconnect: () => void events.push(`disconnect ${name}`),
      });
    return engine;
  }

  it('starting a running engine again is a no-op: no source is connected twice', async () => {
    const events: string[] = [];
    const engine = withSources(world(), events);
    await engine.start();
    await engine.start(SYSTEM_CONTEXT);
    expect(engine.running).toBe(true);
    expect(events).toEqual(['connect a', 'connect b']);
    await engine.stop();
    expect(events).toEqual(['connect a', 'connect b', 'disconnect b', 'disconnect a']);
  });

  it('a stopped engine does not start again: ENGINE_STOPPED says to create a new TriggerEngine', async () => {
    const engine = withSources(world(), []);
    await engine.start();
    await engine.stop();
    const e = await expectRefusal(() => engine.start(), 'ENGINE_STOPPED');
    expect(e.message).toBe('this engine was stopped; create a new TriggerEngine to start again');
    expect(engine.running).toBe(false);
  });

  it('stopping an engine that was never started disconnects nothing (it connected nothing)', async () => {
    const events: string[] = [];
    const engine = withSources(world(), events);
    await engine.stop();
    expect(events).toEqual([]);
    expect(engine.running).toBe(false);
    await expectRefusal(() => engine.start(), 'ENGINE_STOPPED');
  });

  it('stop refuses a negative or fractional graceMs at graceMs, and an unknown option, and the engine keeps running', async () => {
    const events: string[] = [];
    const engine = withSources(world(), events);
    await engine.start();
    for (const graceMs of [-1, 1.5]) {
      const e = await expectRefusal(() => engine.stop({ graceMs }), 'INVALID_ARGUMENT', 'graceMs');
      expect(e.message).toBe('graceMs must be a non-negative integer number of milliseconds');
    }
    await expectRefusal(
      () => engine.stop(SYSTEM_CONTEXT, { graceMs: -1 }),
      'INVALID_ARGUMENT',
      'graceMs',
    );
    const unknown = await expectRefusal(
      () => engine.stop({ grace: 5 } as never),
      'INVALID_ARGUMENT',
      'options.grace',
    );
    expect(unknown.message).toContain('stop options has an unknown key "grace"');
    expect(engine.running).toBe(true);
    expect(events).toEqual(['connect a', 'connect b']);
  });

  it('stop({graceMs}) gives up on work still running after the grace: the record stays processing for recovery', async () => {
    const events: string[] = [];
    const g = gated();
    const engine = withSources(world(), events, g.runner);
    await engine.start();
    const running = engine.ingest(envelope());
    await g.started;
    await engine.stop({ graceMs: 20 });
    expect(engine.running).toBe(false);
    expect(events).toEqual(['connect a', 'connect b', 'disconnect b', 'disconnect a']);
    expect((await engine.record('acme', 'order:ord_1'))!.state).toBe('processing');
    g.release('late');
    expect((await running).status).toBe('triggered');
  });

  it('ENGINE_STOPPED says which call was refused and why: not started yet, or stopping/stopped', async () => {
    const g = gated();
    const engine = withSources(world(), [], g.runner);
    const early = await expectRefusal(() => engine.ingest(envelope()), 'ENGINE_STOPPED');
    expect(early.message).toBe(
      'ingest: the trigger engine has not been started; call engine.start() first',
    );
    await engine.start();
    const running = engine.ingest(envelope());
    await g.started;
    const stopped = engine.stop();
    const during = await expectRefusal(
      () => engine.ingest(envelope({ dedupeKey: 'order:ord_2' })),
      'ENGINE_STOPPED',
    );
    expect(during.message).toBe('ingest: the trigger engine is stopping or stopped');
    g.release('done');
    await running;
    await stopped;
    const after = await expectRefusal(() => engine.ingest(envelope()), 'ENGINE_STOPPED');
    expect(after.message).toBe('ingest: the trigger engine is stopping or stopped');
  });

  it('a stopped engine stops heartbeating the runs it gave up on, so another engine takes them over once the lease lapses', async () => {
    const clock = new VirtualClock(T0);
    const w = world(clock);
    const g = gated();
    const first = new TriggerEngine({ world: w, runner: g.runner, owner: 'wrk_first' });
    first.registerRoute({
      triggerId: 'order.placed',
      routineId: 'r',
      buildInput: (e) => e.payload,
    });
    await first.start();
    const abandoned = first.ingest(envelope());
    await g.started;
    await first.stop({ graceMs: 0 });

    const second = new TriggerEngine({
      world: w,
      runner: { run: async () => 'taken over' },
      owner: 'wrk_second',
    });
    second.registerRoute({
      triggerId: 'order.placed',
      routineId: 'r',
      buildInput: (e) => e.payload,
    });
    await second.start();
    const id = recordId('acme', 'order:ord_1');
    await clock.advance(30_000 + 1);
    expect(await second.takeOver(id)).toMatchObject({
      recordId: id,
      attempt: 2,
      status: 'triggered',
      routineResult: 'taken over',
    });
    expect(await operations(w)).not.toContain('trigger.heartbeat');
    // The abandoned run finishing late changes nothing: its claim is gone.
    g.release('too late');
    await expectRefusal(() => abandoned, 'STALE_OWNER');
    expect(await second.record('acme', 'order:ord_1')).toMatchObject({
      state: 'triggered',
      result: 'taken over',
      attempts: 2,
    });
  });
});

describe('reads and ingests under a tenant context', () => {
  it('record() needs read for the tenant: a context that may read gets the record, one that may only ingest is TENANT_FORBIDDEN', async () => {
    const { engine, world: w } = await harness();
    worlds.push(w);
    await engine.ingest(envelope());
    const reader = tenantContext({ tenantId: 'acme', may: ['read'] });
    expect(await engine.record('acme', 'order:ord_1', reader)).toMatchObject({
      state: 'triggered',
    });
    const ingestOnly = tenantContext({ tenantId: 'acme', may: ['ingest'] });
    const e = await expectRefusal(
      () => engine.record('acme', 'order:ord_1', ingestOnly),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    expect(e.message).toContain('needed to read the records');
    expect(e.details).toMatchObject({ permission: 'read' });
  });

  it("ingest with another tenant's context is TENANT_FORBIDDEN naming the ingest, and nothing is written", async () => {
    const { engine, world: w, calls } = await harness();
    worlds.push(w);
    const globex = tenantContext({ tenantId: 'globex', may: ['ingest'] });
    const e = await expectRefusal(
      () => engine.ingest(envelope(), globex),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    expect(e.message).toContain('cannot ingest events of tenant "acme"');
    expect(calls).toEqual([]);
    expect(await operations(w)).toEqual([]);
  });

  it('null ingest options are read as no options (as JavaScript callers pass them)', async () => {
    const { engine, world: w } = await harness();
    worlds.push(w);
    const answer = await engine.ingest(envelope(), undefined, null as never);
    expect(answer).toMatchObject({ status: 'triggered', routineResult: { fulfilled: 'ord_1' } });
  });

  it('UNKNOWN_TRIGGER names the trigger in its details and message, for hosts that map it', async () => {
    const { engine, world: w } = await harness();
    worlds.push(w);
    const e = await expectRefusal(
      () => engine.ingest(envelope({ triggerId: 'nobody.listens' })),
      'UNKNOWN_TRIGGER',
      'triggerId',
    );
    expect(e.details).toEqual({ triggerId: 'nobody.listens' });
    expect(e.message).toContain('registerRoute({triggerId: "nobody.listens"');
  });

  it("one call's dispatch options defer that envelope on an immediate route; bad ones are refused at options.dispatch before anything is written", async () => {
    const h = await deferred([{ triggerId: 'customer.updated', routineId: 'sync' }]);
    const bad = await expectRefusal(
      () => h.engine.ingest(event(1, {}), undefined, { dispatch: {} }),
      'INVALID_ARGUMENT',
      'options.dispatch',
    );
    expect(bad.message).toContain('options.dispatch is empty');
    expect(await operations(h.world)).toEqual([]);
    const later = (await h.engine.ingest(event(2, { n: 2 }), undefined, {
      dispatch: { delay: 1_000 },
    })) as DeferredAnswer;
    expect(later).toMatchObject({ status: 'deferred', state: 'delayed', dueAt: at(1_000) });
    // Without options the same route runs at once.
    expect(await h.engine.ingest(event(3, { n: 3 }))).toMatchObject({
      status: 'triggered',
      routineResult: { synced: { n: 3 } },
    });
    await h.advanceTo(at(1_000));
    expect(h.calls.map((c) => [c.at, c.input])).toEqual([
      [T0, { n: 3 }],
      [at(1_000), { n: 2 }],
    ]);
  });
});

describe('runDispatched: the worker running a claimed dispatch', () => {
  async function claimed(): Promise<{
    h: DeferredHarness;
    claim: { id: string; run: Parameters<TriggerEngine['runDispatched']>[0]; scheduledAt: string };
  }> {
    const h = await deferred([
      { triggerId: 'customer.updated', routineId: 'sync', dispatch: { delay: 1_000 } },
    ]);
    const answer = (await h.engine.ingest(event(1, { customer: 'cus_1' }))) as DeferredAnswer;
    await h.clock.set(at(1_000));
    const step = await h.work.step(answer.dispatchId);
    if (step.kind !== 'claimed') throw new Error(`expected a claim, got ${step.kind}`);
    return { h, claim: { id: answer.dispatchId, run: step.run, scheduledAt: step.scheduledAt } };
  }

  it("an engine without the run's route rejects it UNKNOWN_TRIGGER at triggerId, telling to register the route before starting a worker", async () => {
    const { h, claim } = await claimed();
    const elsewhere = new TriggerEngine({ world: h.world, runner, twin: 'elsewhere' });
    await elsewhere.start();
    const pending = elsewhere.runDispatched(claim.run, claim.scheduledAt);
    expect(pending).toBeInstanceOf(Promise);
    const e = await expectRefusal(() => pending, 'UNKNOWN_TRIGGER', 'triggerId');
    expect(e.message).toBe(
      'no route for trigger "customer.updated" in this process; register it before starting a worker',
    );
    // Nothing was touched: the engine that claimed it still runs it.
    expect(h.calls).toEqual([]);
    const report = await h.work.execute(claim);
    expect(report).toMatchObject({ outcome: 'dispatched', id: claim.id });
    expect(h.calls.map((c) => c.input)).toEqual([{ customer: 'cus_1' }]);
  });

  it('a stopped engine rejects a claimed dispatch ENGINE_STOPPED naming runDispatched, and runs nothing', async () => {
    const { h, claim } = await claimed();
    await h.engine.stop({ graceMs: 0 });
    const e = await expectRefusal(() => h.work.execute(claim), 'ENGINE_STOPPED');
    expect(e.message).toBe('runDispatched: the trigger engine is stopping or stopped');
    expect(h.calls).toEqual([]);
    expect((await h.engine.record('acme', 'evt_1'))!.state).toBe('processing');
  });
});
