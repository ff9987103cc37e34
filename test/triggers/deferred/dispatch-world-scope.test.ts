// The world's scope (docs/world.md): a dispatch runs later, from a worker or a clock that may be
// driven from inside another world's scope; its routine still finds its own world current.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/world/clock.js';
import { maybeCurrentWorld, openWorld, type World } from '../../../src/world/world.js';
import { TriggerEngine } from '../../../src/triggers/engine/engine.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { deferredDispatchWork } from '../../../src/triggers/deferred/dispatch-work.js';
import { runDueDispatches } from '../../../src/triggers/deferred/run-due.js';
import { Worker } from '../../../src/work/worker.js';
import { event, T0 } from './support.js';

interface Side {
  name: string;
  world: World;
  clock: VirtualClock;
  engine: TriggerEngine;
  seen: string[];
}

async function side(name: string, names: Map<World | undefined, string>): Promise<Side> {
  const clock = new VirtualClock(T0);
  const world = openWorld({ root: ':memory:', clock, seed: name });
  names.set(world, name);
  const seen: string[] = [];
  const runner = new InProcessRunner(world).register('note', async (input) => {
    // Awaits first: the world must survive the hop through the event loop too.
    await new Promise((r) => setImmediate(r));
    seen.push(`${(input as { n: number }).n}@${names.get(maybeCurrentWorld()) ?? 'none'}`);
    return null;
  });
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({
    triggerId: 'later',
    routineId: 'note',
    buildInput: (e) => e.payload,
    dispatch: { delay: 1_000 },
  });
  await engine.start();
  return { name, world, clock, engine, seen };
}

describe('deferred work keeps its world', () => {
  it('two worlds interleaved: each routine runs in its own world, whoever drives its clock', async () => {
    const names = new Map<World | undefined, string>();
    const a = await side('a', names);
    const b = await side('b', names);
    try {
      await a.world.run(() => a.engine.ingest(event(1, { n: 1 }, { triggerId: 'later' })));
      await b.world.run(() => b.engine.ingest(event(2, { n: 2 }, { triggerId: 'later' })));
      await a.world.run(() => a.engine.ingest(event(3, { n: 3 }, { triggerId: 'later' })));
      // B is active while A's clock passes A's due time and A's dispatches run, and the reverse.
      await b.world.run(async () => {
        await a.clock.advance(1_000);
        await runDueDispatches(deferredDispatchWork(a.engine), a.clock.now());
      });
      await a.world.run(async () => {
        await b.clock.advance(1_000);
        await runDueDispatches(deferredDispatchWork(b.engine), b.clock.now());
      });
      // Outside every scope as well: a worker loop started with no world active.
      await a.engine.ingest(event(4, { n: 4 }, { triggerId: 'later' }));
      await b.world.run(async () => {
        await a.clock.advance(1_000);
        await new Worker(a.world, [deferredDispatchWork(a.engine)], { pollMs: 5 }).runUntilIdle();
      });
      expect(a.seen).toEqual(['1@a', '3@a', '4@a']);
      expect(b.seen).toEqual(['2@b']);
    } finally {
      await a.world.close();
      await b.world.close();
    }
  });
});
