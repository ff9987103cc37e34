// Child process for the trigger tests, in two modes:
//   crash <root> <count>        ingests <count> keys; key i's routine finishes (i % 3 == 0),
//                               throws (i % 3 == 1) or hangs forever (i % 3 == 2), printing
//                               "run <key>" when it starts; the parent SIGKILLs it mid-routine.
//   race <root> <label> <count> ingests the same <count> keys as its siblings, each run leaving a
//                               `ran` write in twin "side", then prints its answers' statuses.
import { openWorld } from '../../src/world/world.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { createTriggerEnvelope } from '../../src/triggers/envelope.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';

const [mode, root, ...rest] = process.argv.slice(2);
const world = openWorld({ root: root!, sqlite: { busyTimeoutMs: 60_000 } });

function envelopeFor(i: number) {
  return createTriggerEnvelope({
    tenantId: 'acme',
    scopeId: 'store-1',
    source: { kind: 'custom', provider: 'shop' },
    triggerId: 'order.placed',
    eventId: `ord_${i}`,
    dedupeKey: `order:${i}`,
    occurredAt: '2026-03-01T12:00:00.000Z',
    scheduledAt: '2026-03-01T12:00:00.000Z',
    payload: { i },
  });
}

if (mode === 'crash') {
  const count = Number(rest[0]);
  const runner = new InProcessRunner(world).register('work', async (input) => {
    const i = (input as { i: number }).i;
    process.stdout.write(`run order:${i}\n`);
    if (i % 3 === 0) return { done: i };
    if (i % 3 === 1) throw new Error('boom');
    return new Promise(() => {});
  });
  // A short lease, so the parent sees the killed runs' claims lapse within the test.
  const engine = new TriggerEngine({ world, runner, leaseMs: 1_500 });
  engine.registerRoute({
    triggerId: 'order.placed',
    routineId: 'work',
    buildInput: (e) => e.payload,
  });
  await engine.start();
  // A hung routine holds no handle; this one keeps the process alive until the parent kills it.
  setInterval(() => {}, 1_000);
  void Promise.allSettled(Array.from({ length: count }, (_, i) => engine.ingest(envelopeFor(i))));
} else if (mode === 'race') {
  const [label, countText] = rest;
  const side = world.twin('side');
  const runner = new InProcessRunner(world).register('work', async (input, ctx) => {
    await side.applyWrite({
      operation: 'ran',
      subjectType: 'ran',
      subjectId: `${ctx.runKey}/${label}/${ctx.attempt}`,
      fields: { key: ctx.runKey, by: label!, input },
    });
    await new Promise((r) => setTimeout(r, 2));
    return { by: label! };
  });
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({
    triggerId: 'order.placed',
    routineId: 'work',
    buildInput: (e) => e.payload,
  });
  await engine.start();
  const answers = await Promise.all(
    Array.from({ length: Number(countText) }, (_, i) => engine.ingest(envelopeFor(i))),
  );
  process.stdout.write(`${JSON.stringify(answers.map((a) => a.status))}\n`);
  await engine.stop();
  await world.close();
} else {
  process.stderr.write(`unknown mode ${String(mode)}\n`);
  process.exitCode = 2;
}
