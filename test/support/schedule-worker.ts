// Child process for the schedule process tests: a worker (src/work/) running the schedule work
// kind with the built-in `record` and `wait` routines, on wall time, until SIGTERM (it then stops
// claiming, finishes what it holds and exits 0) or SIGKILL.
//   schedule-worker <sqlite ROOT | postgres URL WORLD> <owner> <leaseMs>
// Prints "ready <owner>" once it works, "run <occurrence> <fence>" as each run starts, and a line
// per item claimed and per report.
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { Schedules, scheduleWork } from '../../src/triggers/schedules/index.js';
import { recordRoutine } from '../../src/triggers/routines/record-routine.js';
import { waitRoutine } from '../../src/triggers/routines/wait-routine.js';
import { Worker } from '../../src/work/worker.js';
import { RealClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';

const args = process.argv.slice(2);
const [kind] = args;
const world =
  kind === 'postgres'
    ? openWorld({
        root: ':memory:',
        clock: new RealClock(),
        backend: new PostgresBackend(args[1]!, args[2]!),
      })
    : openWorld({ root: args[1]!, clock: new RealClock(), sqlite: { busyTimeoutMs: 60_000 } });
const [owner, leaseText] = kind === 'postgres' ? args.slice(3) : args.slice(2);
const leaseMs = Number(leaseText);

const runner = new InProcessRunner(world)
  .register('record', recordRoutine('triggers'))
  .register('wait', async (input, ctx) => {
    process.stdout.write(`run ${ctx.envelope.eventId} ${ctx.attempt}\n`);
    return waitRoutine()(input, ctx);
  });
const schedules = new Schedules({
  world,
  runner,
  owner: owner!,
  leaseMs,
  hostBeatMs: 500,
  hostLabel: `pid:${process.pid}`,
});
const worker = new Worker(world, [scheduleWork(schedules)], {
  owner: owner!,
  leaseMs,
  pollMs: 20,
  // What it took and what that came to: a test whose wait runs out shows these lines.
  onClaim: (_kind, item) =>
    process.stdout.write(`claim ${item.id} due ${item.dueAt} at ${new Date().toISOString()}\n`),
  onReport: (report) =>
    process.stdout.write(`report ${report.id} ${report.outcome} at ${new Date().toISOString()}\n`),
});
worker.start();
process.stdout.write(`ready ${owner}\n`);

process.on('SIGTERM', () => {
  void (async () => {
    await worker.stop();
    await world.close();
    process.exit(0);
  })();
});
