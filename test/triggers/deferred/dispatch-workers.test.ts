// Deferred dispatches with the real worker loop: two workers on two handles of one durable store
// (two "hosts" in one process) run each dispatch once and never more than the concurrency limit
// at a time; a dispatch made before a restart runs after it; one whose claimant died mid-run is
// taken over once the run's lease lapses, and its gate slot is freed by the settle that follows.
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/backends.js';
import type { StorageBackend } from '../../../src/storage/port.js';
import { RealClock, VirtualClock, type Clock } from '../../../src/world/clock.js';
import { openWorld, type World } from '../../../src/world/world.js';
import { TriggerEngine } from '../../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { runTakeoverWork } from '../../../src/triggers/engine/run-work.js';
import { deferredDispatchWork } from '../../../src/triggers/deferred/dispatch-work.js';
import { runDueDispatches } from '../../../src/triggers/deferred/run-due.js';
import { readDispatch } from '../../../src/triggers/deferred/dispatch-record.js';
import type { DeferredAnswer } from '../../../src/triggers/answer.js';
import { Worker } from '../../../src/work/worker.js';
import { event, T0 } from './support.js';

interface Host {
  world: World;
  engine: TriggerEngine;
  worker: Worker;
}

function host(
  backend: StorageBackend,
  clock: Clock,
  name: string,
  routine: (n: number, host: string) => Promise<unknown>,
  leaseMs = 30_000,
): Promise<Host> {
  const world = openWorld({ root: ':memory:', clock, backend });
  const runner = new InProcessRunner(world).register('build', async (input) => {
    await routine((input as { n: number }).n, name);
    return { by: name };
  });
  const engine = new TriggerEngine({ world, runner, owner: `wrk_${name}`, leaseMs });
  engine.registerRoute({
    triggerId: 'build',
    routineId: 'build',
    buildInput: (e) => e.payload,
    dispatch: { concurrency: { limit: 2, key: 'payload.repo' } },
  });
  const worker = new Worker(world, [deferredDispatchWork(engine), runTakeoverWork(engine)], {
    owner: `wrk_${name}`,
    concurrency: 8,
    leaseMs,
    pollMs: 10,
  });
  return engine.start().then(() => ({ world, engine, worker }));
}

const durable = backends.filter((b) => b.durable);

for (const backendCase of durable) {
  describe(`dispatch workers on ${backendCase.name}`, () => {
    let cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const c of cleanups.reverse()) await c();
      cleanups = [];
    });

    it('two hosts run 10 queued dispatches once each, never more than 2 at a time', async () => {
      const made = backendCase.create();
      cleanups.push(made.cleanup);
      const clock = new RealClock();
      let running = 0;
      let most = 0;
      const ran: [number, string][] = [];
      // A run finishes only once a second one runs beside it (or none is left to start): that
      // two run at once is waited for as an event, not hoped for from a guessed 40 ms.
      let waiters: (() => void)[] = [];
      const release = (): void => {
        if (running < 2 && ran.length < 10) return;
        for (const w of waiters) w();
        waiters = [];
      };
      // The last run's end is an event too: no polling against a guessed 20 s.
      let allRan!: () => void;
      const finished = new Promise<void>((r) => (allRan = r));
      const routine = async (n: number, by: string): Promise<void> => {
        running++;
        most = Math.max(most, running);
        ran.push([n, by]);
        await new Promise<void>((r) => {
          waiters.push(r);
          release();
        });
        running--;
        release();
        if (ran.length === 10 && running === 0) allRan();
      };
      const a = await host(made.backend, clock, 'a', routine);
      const b = await host(made.reopen(), clock, 'b', routine);
      cleanups.push(
        () => a.world.close(),
        () => b.world.close(),
      );
      for (let i = 0; i < 10; i++)
        await (i % 2 === 0 ? a : b).engine.ingest(
          event(i, { repo: 'r1', n: i }, { triggerId: 'build' }),
        );
      a.worker.start();
      b.worker.start();
      await finished;
      await a.worker.stop();
      await b.worker.stop();
      expect(ran.map(([n]) => n).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(most).toBeLessThanOrEqual(2);
      expect(most).toBe(2);
      // Every dispatch settled, its slot freed.
      const dispatches = await a.engine.twin.list('trigger_dispatch');
      expect(dispatches.map((d) => [d.fields.state, d.fields.runStatus, d.fields.running])).toEqual(
        Array.from({ length: 10 }, () => ['dispatched', 'triggered', false]),
      );
      const [gate] = await a.engine.twin.list('trigger_dispatch_gate');
      expect(gate!.fields).toMatchObject({ running: [], head: 10, tail: 10 });
    });

    it('a dispatch made before a restart runs after it, once', async () => {
      const made = backendCase.create();
      cleanups.push(made.cleanup);
      const clock = new VirtualClock(T0);
      const ran: string[] = [];
      const first = await host(made.backend, clock, 'a', async (_n, by) => void ran.push(by));
      first.engine.registerRoute({
        triggerId: 'reminder',
        routineId: 'build',
        buildInput: (e) => e.payload,
        dispatch: { delay: 60_000 },
      });
      const answer = (await first.engine.ingest(
        event(1, { n: 1 }, { triggerId: 'reminder' }),
      )) as DeferredAnswer;
      await first.world.close();

      await clock.advance(60_000);
      const second = await host(made.reopen(), clock, 'b', async (_n, by) => void ran.push(by));
      cleanups.push(() => second.world.close());
      second.engine.registerRoute({
        triggerId: 'reminder',
        routineId: 'build',
        buildInput: (e) => e.payload,
        dispatch: { delay: 60_000 },
      });
      await second.worker.runUntilIdle();
      expect(ran).toEqual(['b']);
      const d = await second.engine.twin.read((v) => readDispatch(v, answer.dispatchId));
      expect(d).toMatchObject({ state: 'dispatched', runStatus: 'triggered', dueAt: null });
    });

    it('the dispatch kind alone takes over a run whose host died, once its lease lapsed', async () => {
      const made = backendCase.create();
      cleanups.push(made.cleanup);
      const clock = new VirtualClock(T0);
      const ran: string[] = [];
      const dead = await host(made.backend, clock, 'dead', async () => {}, 5_000);
      const answer = (await dead.engine.ingest(
        event(1, { repo: 'r1', n: 1 }, { triggerId: 'build' }),
      )) as DeferredAnswer;
      await deferredDispatchWork(dead.engine).step(answer.dispatchId);
      await dead.world.close();
      const alive = await host(
        made.reopen(),
        clock,
        'alive',
        async (n, by) => void ran.push(`${n}:${by}`),
        5_000,
      );
      cleanups.push(() => alive.world.close());
      const dispatches = deferredDispatchWork(alive.engine);
      expect(await runDueDispatches(dispatches, clock.now())).toEqual([]);
      await clock.advance(5_000);
      const reports = await runDueDispatches(dispatches, clock.now());
      expect(reports.map((r) => [r.outcome, r.detail])).toEqual([['settled', 'triggered']]);
      expect(ran).toEqual(['1:alive']);
      expect(await alive.engine.record('acme', 'evt_1')).toMatchObject({
        state: 'triggered',
        attempts: 2,
        owner: null,
      });
      expect(await alive.engine.twin.read((v) => readDispatch(v, answer.dispatchId))).toMatchObject(
        {
          runStatus: 'triggered',
          running: false,
          dueAt: null,
        },
      );
    });

    it('a claim whose host died mid-run is run again after its lease, and frees its slot', async () => {
      const made = backendCase.create();
      cleanups.push(made.cleanup);
      const clock = new VirtualClock(T0);
      const ran: string[] = [];
      const dead = await host(made.backend, clock, 'dead', async () => {}, 5_000);
      const answers: DeferredAnswer[] = [];
      for (let i = 0; i < 3; i++)
        answers.push(
          (await dead.engine.ingest(
            event(i, { repo: 'r1', n: i }, { triggerId: 'build' }),
          )) as DeferredAnswer,
        );
      // The dead host claimed two (the limit) and started their runs, then vanished.
      const work = deferredDispatchWork(dead.engine);
      for (const a of answers) await work.step(a.dispatchId);
      await dead.world.close();

      const alive = await host(
        made.reopen(),
        clock,
        'alive',
        async (n, by) => void ran.push(`${n}:${by}`),
        5_000,
      );
      cleanups.push(() => alive.world.close());
      // Before the lease lapses nothing may be taken over: nothing is due.
      const takeover = runTakeoverWork(alive.engine);
      const dispatches = deferredDispatchWork(alive.engine);
      expect(await takeover.due(clock.now(), 10)).toEqual([]);
      expect(await dispatches.due(clock.now(), 10)).toEqual([]);
      const held = await alive.engine.twin.read((v) => readDispatch(v, answers[2]!.dispatchId));
      expect(held).toMatchObject({ state: 'queued', dueAt: null });

      // Then the runs are taken over (attempt 2), the dispatches settle, the queue moves on.
      await clock.advance(5_000);
      const context = { owner: 'wrk_alive', leaseMs: 5_000 };
      for (const item of await takeover.due(clock.now(), 10)) await takeover.run(item, context);
      await runDueDispatches(dispatches, clock.now());
      expect(ran.sort()).toEqual(['0:alive', '1:alive', '2:alive']);
      for (const a of answers) {
        const d = await alive.engine.twin.read((v) => readDispatch(v, a.dispatchId));
        expect(d).toMatchObject({ state: 'dispatched', runStatus: 'triggered', running: false });
      }
      const first = await alive.engine.record('acme', 'evt_0');
      expect(first).toMatchObject({ state: 'triggered', attempts: 2 });
    });
  });
}
