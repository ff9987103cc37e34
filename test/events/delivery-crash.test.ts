// Crash recovery with real processes: a child dispatches 500 deliveries to a loopback receiver
// and is SIGKILLed at a random point; recovery then settles everything without a blind resend.
// On a SQLite root and on a world in PostgreSQL.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { registerPack } from '../../src/events/pack-registry.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { replayLines } from '../../src/world/replay.js';
import { SeededIds } from '../../src/world/ids.js';
import { VirtualClock } from '../../src/world/clock.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { startReceiver } from '../support/receiver.js';
import { homes } from '../support/backends.js';
import { openWorldAt } from '../support/world-at.js';

// 250 writes: a kill point anywhere in them, and a run that stays well inside the test's time on a
// loaded machine (500 on PostgreSQL took 20 s alone, near the limit with two suites at once).
const TOTAL = 250;
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

// Kill points drawn from a seeded source, so a failure names a reproducible point.
const rng = new SeededIds(new VirtualClock(0), 'kill-points');
const killAfter = [5, ...Array.from({ length: 3 }, () => 20 + Math.floor(rng.random() * 200))];

describe.each(homes)('delivery crash recovery: $name', (home) => {
  for (const killAt of killAfter) {
    it(`SIGKILL after ${killAt} received requests: nothing lost, nothing sent twice`, async () => {
      const { spec: root, cleanup } = home.fresh();
      cleanups.push(cleanup);
      let child: ReturnType<typeof spawn> | undefined;
      let killed = false;
      const receiver = await startReceiver(() => {
        if (!killed && receiver.requests.length >= killAt) {
          killed = true;
          child!.kill('SIGKILL');
        }
        return 200;
      });
      let acknowledged = -1;
      child = spawn(
        process.execPath,
        ['dist/test/support/delivery-crash-worker.js', root, receiver.url, String(TOTAL)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        for (const line of chunk.split('\n'))
          if (line.startsWith('w ')) acknowledged = Math.max(acknowledged, Number(line.slice(2)));
      });
      const exit = await new Promise<NodeJS.Signals | number | null>((resolve) =>
        child!.on('exit', (code, signal) => resolve(signal ?? code)),
      );
      expect(exit).toBe('SIGKILL');

      // Counted once the dead child's connections have closed: bytes it wrote before the kill can
      // still be in the receiver's socket when the exit is seen.
      await receiver.quiet();
      const beforeRecovery = receiver.requests.length;
      const world = openWorldAt(root);
      expect(world.backend.kind).toBe(home.name);
      const twin = registerPack(world, acmePack());
      // Restart once the world clock is past every lease the dead sender held (read from the
      // store, not guessed), so recovery finds them lapsed rather than held by a live sender.
      const leases = (await twin.list('delivery'))
        .map((d) => d.fields.leaseUntil)
        .filter((at): at is string => typeof at === 'string')
        .map((at) => Date.parse(at));
      const lapsed = Math.max(0, ...leases) + 1;
      if (lapsed > world.clock.now())
        await new Promise<void>((resolve) => world.clock.schedule(lapsed, resolve));
      const dispatcher = new Dispatcher(world);
      const report = await dispatcher.recover();
      await dispatcher.idle();

      // no write the child saw committed is lost, and each has its delivery record (same commit)
      const customers = await twin.list('customer');
      expect(customers.length).toBeGreaterThanOrEqual(acknowledged + 1);
      const deliveries = await twin.list('delivery');
      expect(deliveries).toHaveLength(customers.length);
      const byCustomer = new Set(
        deliveries.map((d) => JSON.parse(String(d.fields.body)).data.object.i),
      );
      for (const c of customers) expect(byCustomer.has(c.fields.i)).toBe(true);

      // every delivery is terminal or unknown; those found sending became unknown, not resent
      for (const d of deliveries)
        expect(['succeeded', 'failed', 'unknown']).toContain(d.fields.state);
      const unknown = deliveries
        .filter((d) => d.fields.state === 'unknown')
        .map((d) => d.id)
        .sort();
      expect(unknown).toEqual([...report.markedUnknown].sort());
      // What recovery sent is accounted by message id, not by counting requests after a moment: a
      // connection the dead child opened can still be accepted after quiet() under load.
      const received = new Set(receiver.requests.map((req) => String(req.headers['webhook-id'])));
      const messageOf = new Map(deliveries.map((d) => [d.id, String(d.fields.messageId)]));
      for (const r of report.dispatched)
        expect(received.has(messageOf.get(r.deliveryId)!)).toBe(true);
      expect(report.dispatched.length).toBeLessThanOrEqual(
        receiver.requests.length - beforeRecovery,
      );

      // one claim, one request: no message id reached the receiver twice
      const perMessage = new Map<string, number>();
      for (const req of receiver.requests) {
        const id = String(req.headers['webhook-id']);
        perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
        new Webhook(ACME_SECRET).verify(req.body, req.headers as Record<string, string>);
      }
      expect([...perMessage.values()].every((n) => n === 1)).toBe(true);
      // every attempt the log holds was claimed once and finished once
      const attempts = await twin.list('delivery_attempt');
      expect(attempts.every((a) => a.fields.number === 1 && a.fields.state !== 'sending')).toBe(
        true,
      );
      expect(attempts.length).toBe(deliveries.length);

      expect((await replayLines(twin.exportLines())).hash).toBe(await twin.hash());
      await world.close();
      await receiver.close();
    });
  }
});
