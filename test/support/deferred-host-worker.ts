// Child process for the deferred-dispatch process tests: one host of several sharing a PostgreSQL
// database, taking signed Stripe webhooks over HTTP on 127.0.0.1 and running a worker (the
// dispatch kind and the run-takeover kind). `twinworld serve` runs only the built-in record
// routine, which finishes at once; this host builds the same trigger runtime `serve` builds
// (createTriggerRuntime) with a routine that takes time, so a run can be caught mid-way:
//   slow <url> <world> <label> <leaseMs>
//       trigger "builds" (provider "builds", concurrency 2 per repository) and "jobs" (provider
//       "jobs", delay 300 ms). Each run writes run.start and run.end to twin "side" (so the store
//       orders every host's runs) and prints "run <n> <attempt> <label>"; input {hold: ms} holds
//       that long, {hold: "first"} holds forever on attempt 1 (the parent kills it), returning at
//       once after.
// Prints {"event":"listening","url"} first; SIGTERM stops gracefully.
import { RealClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import type { IngressHost } from '../../src/host/ingress/ingress-host.js';
import { createTriggerRuntime } from '../../src/host/runtime/runtime.js';
import { runTakeoverWork } from '../../src/triggers/engine/run-work.js';
import { deferredDispatchWork } from '../../src/triggers/deferred/dispatch-work.js';
import { Worker } from '../../src/work/worker.js';
import type { JsonObject } from '../../src/log/json-value.js';

const [mode, url, worldName, ...rest] = process.argv.slice(2);
const world = openWorld({
  root: ':memory:',
  clock: new RealClock(),
  backend: new PostgresBackend(url!, worldName!),
});

async function main(): Promise<{ close: () => Promise<void> }> {
  if (mode === 'slow') {
    const [label, leaseText] = rest;
    const leaseMs = Number(leaseText);
    const side = world.twin('side');
    const secrets = () => [process.env.STRIPE_SECRET ?? ''];
    const runtime = await createTriggerRuntime({
      world,
      owner: `wrk_${label!}`,
      leaseMs,
      routines: {
        slow: async (input, ctx) => {
          const object = ((input as JsonObject).body as JsonObject).data as JsonObject;
          const { n, hold } = object.object as { n: number; hold: number | 'first' };
          const mark = (operation: string) =>
            side.applyWrite({
              operation,
              subjectType: 'run',
              subjectId: `${n}.${ctx.attempt}`,
              fields: { n, attempt: ctx.attempt, by: label! },
            });
          await mark('run.start');
          process.stdout.write(`run ${n} ${ctx.attempt} ${label!}\n`);
          if (hold === 'first' && ctx.attempt === 1) await new Promise(() => {});
          if (typeof hold === 'number') await new Promise((r) => setTimeout(r, hold));
          await mark('run.end');
          return { n, by: label! };
        },
      },
      routes: [
        {
          triggerId: 'builds',
          routineId: 'slow',
          buildInput: (e) => e.payload,
          dispatch: { concurrency: { limit: 2, key: 'payload.body.data.object.repo' } },
        },
        {
          triggerId: 'jobs',
          routineId: 'slow',
          buildInput: (e) => e.payload,
          dispatch: { delay: 300 },
        },
      ],
      webhooks: [
        { provider: 'builds', triggerId: 'builds', scheme: 'stripe', resolveSecrets: secrets },
        { provider: 'jobs', triggerId: 'jobs', scheme: 'stripe', resolveSecrets: secrets },
      ],
    });
    const { engine } = runtime;
    const host: IngressHost = await runtime.listen();
    const worker = new Worker(world, [deferredDispatchWork(engine), runTakeoverWork(engine)], {
      owner: `wrk_${label!}`,
      leaseMs,
      pollMs: 20,
    });
    worker.start();
    // A held routine keeps no handle open; this keeps the process alive until it is stopped.
    const alive = setInterval(() => {}, 1_000);
    process.stdout.write(`${JSON.stringify({ event: 'listening', url: host.url })}\n`);
    return {
      close: async () => {
        clearInterval(alive);
        await worker.stop();
        await host.close();
      },
    };
  }
  throw new Error(`unknown mode ${String(mode)}`);
}

const running = await main();
process.once('SIGTERM', () => {
  void running.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
});
