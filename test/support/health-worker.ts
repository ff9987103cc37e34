// Child process for the endpoint-health process test: `twinworld work --until-idle` on a world at
// a store spec, every built-in pack registered, but on a clock `offsetMs` ahead of wall time, so
// the parent can move a PostgreSQL world through a vendor's five-day window in phases (each phase
// a fresh set of workers, further ahead) instead of waiting days. Prints one JSON line when idle.
import { builtInPacks } from '../../packs/built-in.js';
import { deliveryWorkKinds } from '../../src/cli/work-kinds.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { Worker } from '../../src/work/worker.js';
import { OffsetClock } from './offset-clock.js';
import { openWorldAt } from './world-at.js';

const [spec, offsetText] = process.argv.slice(2);
if (spec !== undefined) {
  const world = openWorldAt(spec, { clock: new OffsetClock(Number(offsetText ?? 0)) });
  for (const pack of builtInPacks) registerPack(world, pack);
  const dispatcher = new Dispatcher(world, { autoDispatch: false, leaseMs: 5_000 });
  let done = 0;
  const worker = new Worker(world, deliveryWorkKinds(dispatcher), {
    owner: dispatcher.owner,
    leaseMs: 5_000,
    onReport: () => void done++,
  });
  await worker.runUntilIdle({ waitForScheduled: false });
  await worker.stop();
  await dispatcher.close();
  await world.close();
  process.stdout.write(`${JSON.stringify({ owner: worker.owner, done })}\n`);
}
