// The worker on real SQLite files: it finds work another process queued, retries that fell due
// after a restart (from the store, not a timer), takes over only claims whose lease lapsed, and
// a sender that lost its claim keeps what it saw without moving the record; a long-lived worker
// outlives a round the store failed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { deliveryWork } from '../../src/events/delivery-work.js';
import { TwinError } from '../../src/errors.js';
import { loadDriver } from '../../src/storage/sqlite/sqlite-backend.js';
import { isoAt, RealClock, VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import type { WorkKind } from '../../src/work/work-kind.js';
import { Worker } from '../../src/work/worker.js';
import { tempDir } from '../support/backends.js';
import { dispatchHarness, DISPATCH_T0 } from '../support/dispatch-harness.js';
import { logCommits } from '../support/commit-log.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
function freshRoot(): string {
  const root = tempDir('twinworld-worker-');
  roots.push(root);
  return root;
}

/** Moves a virtual clock a step at a time until `done` settles, letting I/O run in between. */
async function driveUntil<T>(clock: VirtualClock, done: Promise<T>, stepMs = 1_000): Promise<T> {
  let settled = false;
  void done.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 600 && !settled; i++) {
    await new Promise((r) => setTimeout(r, 5));
    if (!settled) await clock.advance(stepMs);
  }
  return done;
}

describe('the worker', () => {
  it('sends what another process queued, and a retry due after a restart, found in the store', async () => {
    const root = freshRoot();
    const clock = new VirtualClock(DISPATCH_T0);
    let requests = 0;
    const handler = () => (++requests === 1 ? 500 : 200);
    const retry = { delaysMs: [60_000], retryOn: ['failed' as const] };
    // The writer queues and sends nothing itself (like `twinworld trigger` without --wait).
    const writer = await dispatchHarness(handler, {
      world: openWorld({ root, clock, seed: 'writer' }),
      clock,
      retry,
      autoDispatch: false,
    });
    for (const id of ['cus_1', 'cus_2', 'cus_3']) await writer.create(id);
    await writer.world.close();

    const host = await dispatchHarness(handler, {
      world: openWorld({ root, clock, seed: 'host' }),
      clock,
      retry,
      autoDispatch: false,
    });
    const reports: string[] = [];
    const worker = new Worker(host.world, deliveryWork(host.dispatcher), {
      onReport: (r) => reports.push(`${r.id} ${r.outcome}`),
    });
    await driveUntil(clock, worker.runUntilIdle());
    const states = (await host.twin.list('delivery')).map((d) => d.fields.state);
    expect(states).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(host.received).toHaveLength(4);
    expect(reports.filter((r) => r.endsWith('retrying'))).toHaveLength(1);
    // the retry went out at its due time on the world clock, from the store's due index
    const retried = (await host.twin.list('delivery_attempt')).find((a) => a.fields.number === 2)!;
    expect(Date.parse(String(retried.fields.startedAt))).toBeGreaterThanOrEqual(
      Date.parse(DISPATCH_T0) + 60_000,
    );
    for (const d of await host.twin.list('delivery'))
      expect(d.fields).toMatchObject({ owner: null, dueAt: null });
    await host.world.close();
  });

  it('takes over a lapsed claim, never a live one; the frozen sender keeps its 200 as a late observation', async () => {
    const root = freshRoot();
    const clock = new VirtualClock(DISPATCH_T0);
    const gates: Record<string, (status: number) => void> = {};
    const handler = (req: { body: string }) =>
      new Promise<number>((resolve) => {
        gates[JSON.parse(req.body).data.object.email] = resolve;
      });
    // A frozen sender: its clock never moves again, so it never heartbeats.
    const frozen = await dispatchHarness(handler, {
      world: openWorld({ root, clock: new VirtualClock(DISPATCH_T0), seed: 'frozen' }),
      autoDispatch: false,
    });
    await frozen.create('cus_frozen');
    const frozenRecord = await frozen.delivery();
    const frozenSend = frozen.dispatcher.dispatch('acme', frozenRecord.id);
    await vi.waitFor(() => expect(gates['cus_frozen@example.com']).toBeDefined());

    // A live sender on the shared clock: it heartbeats while its receiver takes its time.
    const host = await dispatchHarness(handler, {
      world: openWorld({ root, clock, seed: 'host' }),
      clock,
      autoDispatch: false,
    });
    await host.create('cus_live');
    const liveRecord = (await host.twin.list('delivery')).find((d) => d.id !== frozenRecord.id)!;
    const liveSend = host.dispatcher.dispatch('acme', liveRecord.id);
    await vi.waitFor(() => expect(gates['cus_live@example.com']).toBeDefined());

    const worker = new Worker(host.world, deliveryWork(host.dispatcher), { pollMs: 10 });
    worker.start();
    for (let i = 0; i < 10; i++) {
      await clock.advance(10_000); // ten leases' worth of world time, in beats
      await new Promise((r) => setTimeout(r, 20));
    }
    await vi.waitFor(async () =>
      expect((await host.twin.get('delivery', frozenRecord.id))!.fields.state).toBe('unknown'),
    );
    expect((await host.twin.get('delivery', liveRecord.id))!.fields.state).toBe('sending');

    // The receivers answer. The live send finishes normally; the frozen one is refused, kept.
    gates['cus_live@example.com']!(200);
    gates['cus_frozen@example.com']!(200);
    expect(await liveSend).toMatchObject({ outcome: 'succeeded', state: 'succeeded' });
    expect(await frozenSend).toMatchObject({ outcome: 'succeeded', state: undefined, stale: true });
    await worker.stop();
    expect((await host.twin.get('delivery', frozenRecord.id))!.fields).toMatchObject({
      state: 'unknown',
      owner: null,
      dueAt: null,
    });
    expect((await host.twin.get('delivery_attempt', `${frozenRecord.id}.1`))!.fields).toMatchObject(
      {
        state: 'unknown',
        reason: 'lease_expired',
        lateObservation: { outcome: 'succeeded', status: 200 },
      },
    );
    expect(host.received.length + frozen.received.length).toBe(2);
    await frozen.world.close();
    await host.world.close();
  });

  it("claims for a slot once its send is over, in the same section as that send's finish", async () => {
    const clock = new VirtualClock(DISPATCH_T0);
    const host = await dispatchHarness(() => 200, { clock, autoDispatch: false });
    for (const id of ['cus_1', 'cus_2', 'cus_3']) await host.create(id);
    const commits = logCommits(host.twin);
    const worker = new Worker(host.world, deliveryWork(host.dispatcher), { concurrency: 1 });
    await driveUntil(clock, worker.runUntilIdle());
    expect(host.received).toHaveLength(3);
    // One slot: claim 1 | finish 1 + claim 2 | finish 2 + claim 3 | finish 3, never two sends at once.
    expect(commits.filter((ops) => ops.includes('delivery.claim'))).toHaveLength(3);
    expect(
      commits.filter((ops) => ops.includes('delivery.claim') && ops.includes('delivery.finish')),
    ).toHaveLength(2);
    await host.world.close();
  });

  it('a long-lived worker outlives a round the store failed: it reports STORE_BUSY, backs off, and sends once the lock is gone', async () => {
    const root = freshRoot();
    const clock = new VirtualClock(DISPATCH_T0);
    const errors: unknown[] = [];
    const host = await dispatchHarness(() => 200, {
      world: openWorld({
        root,
        clock,
        seed: 'busy',
        sqlite: { busyTimeoutMs: 50 },
        onError: (error) => errors.push(error),
      }),
      clock,
      autoDispatch: false,
    });
    await host.create('cus_1');
    // Another process's connection takes the twin's write lock and keeps it past the busy timeout.
    const Database = loadDriver();
    const other = new Database(join(root, 'twins', `${host.twin.name}.db`));
    other.exec('BEGIN EXCLUSIVE');
    const worker = new Worker(host.world, deliveryWork(host.dispatcher), { pollMs: 10 });
    worker.start();
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(host.received).toHaveLength(0);
    expect(errors[0]).toBeInstanceOf(TwinError);
    expect(errors[0]).toMatchObject({ code: 'STORE_BUSY' });
    other.exec('COMMIT');
    other.close();
    await vi.waitFor(() => expect(host.received).toHaveLength(1), { timeout: 10_000 });
    await worker.stop();
    expect((await host.twin.list('delivery')).map((d) => d.fields.state)).toEqual(['succeeded']);
    await host.world.close();
  });

  it('an item still listed as due after it claimed nothing does not put the worker to sleep for good', async () => {
    // A due read may show an item another host (or this one, a moment before) already took: its
    // run claims nothing, and it is the earliest due time the worker knows. No head moves and no
    // later due time is armed, so only the idle round finds the item that falls due after it.
    const world = openWorld({ root: ':memory:', clock: new RealClock() });
    const quiet = world.twin('quiet');
    const taken = { id: 'taken', dueAt: isoAt(Date.now() - 1_000) };
    const laterAt = Date.now() + 200;
    const ran: string[] = [];
    const kind: WorkKind = {
      name: 'probe',
      twins: () => [quiet],
      due: async (nowMs) => [
        taken,
        ...(nowMs >= laterAt && ran.length === 0 ? [{ id: 'later', dueAt: isoAt(laterAt) }] : []),
      ],
      nextDue: async () => Date.parse(taken.dueAt),
      run: async (item) => {
        if (item.id === 'taken') return undefined;
        ran.push(item.id);
        return { kind: 'probe', id: item.id, outcome: 'done' };
      },
    };
    const worker = new Worker(world, [kind], { pollMs: 10 });
    worker.start();
    await vi.waitFor(() => expect(ran).toEqual(['later']), { timeout: 5_000 });
    await worker.stop();
    await world.close();
  });

  it('refuses bad options with the option named', () => {
    const world = openWorld({ root: ':memory:' });
    expect(() => new Worker(world, [], { concurrency: 0 })).toThrow(/concurrency/);
    expect(() => new Worker(world, [], { leaseMs: -5 })).toThrow(/leaseMs/);
    expect(() => new Worker(world, [], { pollMs: 1.5 })).toThrow(/pollMs/);
    void world.close();
  });
});
