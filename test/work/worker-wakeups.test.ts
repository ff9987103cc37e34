// Idle workers woken by the store (issue 29, LISTEN/NOTIFY on PostgreSQL): a worker that polls once an
// hour still sends at once what another host appended, and a lost listening connection loses no
// work (the poll finds it; the listener comes back).
import { describe, expect, it } from 'vitest';
import { deliveryWork } from '../../src/events/delivery-work.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import type { WorkKind } from '../../src/work/work-kind.js';
import { Worker } from '../../src/work/worker.js';
import { DISPATCH_T0, dispatchHarness } from '../support/dispatch-harness.js';
import { asSuperuser, createDatabase, uniqueName } from '../storage/postgres-support.js';

const HOUR = 3_600_000;

/** The kinds as given, telling each time the worker has asked for the next due time (it is about to sleep). */
function observed(kinds: WorkKind[], onAsked: () => void): WorkKind[] {
  return kinds.map((kind) => ({
    ...kind,
    nextDue: async () => {
      const at = await kind.nextDue();
      onAsked();
      return at;
    },
  }));
}

async function hosts(prefix: string) {
  const db = await createDatabase(prefix);
  const name = uniqueName('w');
  const host = (seed: string) =>
    dispatchHarness(() => 200, {
      world: openWorld({
        root: `postgres://test/${name}`,
        backend: new PostgresBackend(db.url, name),
        clock: new VirtualClock(DISPATCH_T0),
        seed,
      }),
      autoDispatch: false,
    });
  return { db, writer: await host('writer'), worker: await host('worker') };
}

/** Resolves at the next time the worker goes to sleep. */
function sleeps(): { kinds: (k: WorkKind[]) => WorkKind[]; next: () => Promise<void> } {
  let waiting: (() => void)[] = [];
  return {
    kinds: (k) =>
      observed(k, () => {
        const now = waiting;
        waiting = [];
        for (const w of now) w();
      }),
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

describe('the worker on PostgreSQL, woken by LISTEN/NOTIFY', () => {
  it('sends what another host appended without waiting for its hour-long poll', async () => {
    const { writer, worker: host } = await hosts('wake');
    const sleep = sleeps();
    let reported!: () => void;
    const sent = new Promise<void>((resolve) => (reported = resolve));
    const worker = new Worker(host.world, sleep.kinds(deliveryWork(host.dispatcher)), {
      pollMs: HOUR,
      onReport: () => reported(),
    });
    try {
      const idle = sleep.next();
      worker.start();
      await idle; // nothing due: asleep, its poll an hour away
      await writer.create('cus_1');
      await sent;
      expect(host.received).toHaveLength(1);
      expect(writer.received).toHaveLength(0);
      expect((await writer.delivery()).fields.state).toBe('succeeded');
    } finally {
      await worker.stop();
      await writer.world.close();
      await host.world.close();
    }
  }, 20_000);

  it('a lost listening connection loses no work: the poll finds it, and wakeups resume', async () => {
    const { db, writer, worker: host } = await hosts('wake');
    const sleep = sleeps();
    const worker = new Worker(host.world, sleep.kinds(deliveryWork(host.dispatcher)), {
      pollMs: 100,
    });
    const delivered = (n: number) =>
      new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (host.received.length >= n) {
            clearInterval(check);
            resolve();
          }
        }, 5);
      });
    try {
      const idle = sleep.next();
      worker.start();
      await idle;
      // the server drops the listening connection (what a restart or a network cut does)
      const killed = await asSuperuser(db.name, (c) =>
        c.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND datname = $1",
          [db.name],
        ),
      );
      expect(killed.rowCount).toBe(1);
      await writer.create('cus_1');
      await delivered(1);
      // the listener comes back (a second later)
      for (;;) {
        const listening = await asSuperuser(db.name, (c) =>
          c.query(
            "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND state = 'idle' AND datname = $1",
            [db.name],
          ),
        );
        if (listening.rowCount === 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await writer.create('cus_2');
      await delivered(2);
      expect(host.received).toHaveLength(2);
    } finally {
      await worker.stop();
      await writer.world.close();
      await host.world.close();
    }
  }, 20_000);
});
