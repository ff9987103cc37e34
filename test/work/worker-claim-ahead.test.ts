// Claiming ahead (WorkerOptions.claimAhead): a batch may claim a few deliveries beyond the free
// slots. They wait for a slot in this process, their leases kept by heartbeats, and the sends in
// flight never exceed the worker's concurrency; each is sent once.
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { deliveryWork } from '../../src/events/delivery-work.js';
import { TwinError } from '../../src/errors.js';
import type { WorkKind } from '../../src/work/work-kind.js';
import { Worker } from '../../src/work/worker.js';
import { dispatchHarness, until } from '../support/dispatch-harness.js';

/** A receiver that holds every request until the test lets it answer. */
function heldReceiver() {
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let most = 0;
  return {
    handler: async (): Promise<number> => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight--;
      return 200;
    },
    /** Lets the oldest held request answer. */
    answerOne: () => waiting.shift()?.(),
    answerAll: () => waiting.splice(0).forEach((answer) => answer()),
    get held() {
      return waiting.length;
    },
    get most() {
      return most;
    },
  };
}

async function sixQueued(leaseMs = 30_000, ratePerSecond?: number) {
  const receiver = heldReceiver();
  const h = await dispatchHarness(receiver.handler, {
    autoDispatch: false,
    ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
  });
  for (let i = 1; i <= 6; i++) await h.create(`cus_${i}`);
  // What this dispatcher itself sent, apart from any other sender on the same receiver.
  const sentHere: string[] = [];
  const dispatcher = new Dispatcher(h.world, {
    routes: [
      {
        prefix: 'inproc://',
        transport: {
          name: 'counted',
          now: () => h.transport.now(),
          send: (request) => {
            sentHere.push(request.headers['webhook-id']!);
            return h.transport.send(request);
          },
        },
      },
    ],
    autoDispatch: false,
    leaseMs,
  });
  const states = async () => {
    const count: Record<string, number> = {};
    for (const d of await h.twin.list('delivery'))
      count[String(d.fields.state)] = (count[String(d.fields.state)] ?? 0) + 1;
    return count;
  };
  const answerUntil = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 400 && !(await done()); i++) {
      receiver.answerAll();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { h, receiver, dispatcher, states, sentHere, answerUntil };
}

describe('claiming ahead of the free slots', () => {
  it('claims up to the slots and as many more, sends no more than the slots at once, and sends each once', async () => {
    const { h, receiver, dispatcher, states } = await sixQueued();
    const worker = new Worker(h.world, deliveryWork(dispatcher), {
      owner: dispatcher.owner,
      concurrency: 2,
      claimAhead: 2,
    });
    worker.start();
    await until(() => receiver.held === 2, 1000);
    // two sending, two claimed and waiting for a slot, two still queued
    expect(await states()).toEqual({ sending: 4, queued: 2 });
    expect(receiver.held).toBe(2);
    // an answer frees a slot: a delivery claimed ahead goes out at once
    receiver.answerOne();
    await until(() => receiver.held === 2, 1000);
    for (let i = 0; i < 200 && (await states()).succeeded !== 6; i++) {
      receiver.answerAll();
      await new Promise((r) => setImmediate(r));
    }
    await worker.stop();
    expect(await states()).toEqual({ succeeded: 6 });
    expect(receiver.most).toBe(2);
    // each sent once: one attempt per delivery, six requests with six webhook ids
    expect((await h.attempts()).map((a) => a.number)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(new Set(h.received.map((r) => r.headers['webhook-id'])).size).toBe(6);
    expect(h.received).toHaveLength(6);
    await h.world.close();
  });

  it('claims no more than the free slots without it', async () => {
    const { h, receiver, dispatcher, states } = await sixQueued();
    const worker = new Worker(h.world, deliveryWork(dispatcher), {
      owner: dispatcher.owner,
      concurrency: 2,
    });
    worker.start();
    await until(() => receiver.held === 2, 1000);
    expect(await states()).toEqual({ sending: 2, queued: 4 });
    receiver.answerAll();
    for (let i = 0; i < 200 && (await states()).succeeded !== 6; i++) {
      receiver.answerAll();
      await new Promise((r) => setImmediate(r));
    }
    await worker.stop();
    expect(await states()).toEqual({ succeeded: 6 });
    await h.world.close();
  });

  it('keeps the lease of a delivery waiting for a slot: no other worker takes it over', async () => {
    const { h, receiver, dispatcher, states } = await sixQueued(900);
    const worker = new Worker(h.world, deliveryWork(dispatcher), {
      owner: dispatcher.owner,
      concurrency: 1,
      claimAhead: 2,
      leaseMs: 900,
    });
    worker.start();
    await until(() => receiver.held === 1, 1000);
    expect(await states()).toEqual({ sending: 3, queued: 3 });
    // Twice the lease passes on the world clock (less than the pack's 2 s send timeout): the
    // waiting claims are kept by their heartbeats, so a second worker finds nothing lapsed.
    for (let i = 0; i < 6; i++) {
      await h.clock.advance(300);
      await new Promise((r) => setTimeout(r, 5));
    }
    const now = h.clock.now();
    const held = (await h.twin.list('delivery')).filter((d) => d.fields.state === 'sending');
    expect(held).toHaveLength(3);
    for (const d of held) expect(Date.parse(String(d.fields.leaseUntil))).toBeGreaterThan(now);
    const other = new Dispatcher(h.world, {
      routes: [{ prefix: 'inproc://', transport: h.transport }],
      autoDispatch: false,
      leaseMs: 900,
    });
    const taken = await other.claimDue('acme', 10);
    // it claims the three still queued, and takes over none of the three this worker holds
    expect(taken.map((t) => t.id).filter((id) => held.some((d) => d.id === id))).toEqual([]);
    expect(taken).toHaveLength(3);
    for (let i = 0; i < 400 && (await states()).succeeded !== 6; i++) {
      receiver.answerAll();
      await new Promise((r) => setImmediate(r));
    }
    await worker.stop();
    expect(await states()).toEqual({ succeeded: 6 });
    expect((await h.attempts()).map((a) => [a.number, a.state])).toEqual(
      Array.from({ length: 6 }, () => [1, 'succeeded']),
    );
    await h.world.close();
  });

  /**
   * One send held and two claimed ahead; then the dispatcher closes, which stops its heartbeats,
   * and the clock passes the 900 ms leases while the send is still held.
   */
  async function closedWhileWaiting() {
    const queued = await sixQueued(900);
    const { h, receiver, dispatcher, states } = queued;
    const worker = new Worker(h.world, deliveryWork(dispatcher), {
      owner: dispatcher.owner,
      concurrency: 1,
      claimAhead: 2,
      leaseMs: 900,
    });
    worker.start();
    await until(() => receiver.held === 1, 1000);
    expect(await states()).toEqual({ sending: 3, queued: 3 });
    const closing = dispatcher.close();
    for (let i = 0; i < 4; i++) {
      await h.clock.advance(300);
      await new Promise((r) => setTimeout(r, 5));
    }
    return { ...queued, worker, closing };
  }

  it('does not send a delivery whose claim was taken over while it waited for a slot', async () => {
    const { h, receiver, states, sentHere, answerUntil, worker, closing } =
      await closedWhileWaiting();
    const other = new Dispatcher(h.world, {
      routes: [{ prefix: 'inproc://', transport: h.transport }],
      autoDispatch: false,
      leaseMs: 900,
    });
    const taken = await other.claimDue('acme', 10);
    expect(taken).toHaveLength(6);
    // The held send ends; the two that waited find their claims gone and do not go out.
    await answerUntil(async () => receiver.held === 0 && (await states()).sending === 3);
    await closing;
    await worker.stop();
    await other.close();
    // the three this worker held were taken over; of them only the one in flight had left
    const outcomes = await Promise.all(taken.map((t) => t.done));
    expect(outcomes.filter((o) => o === 'taken_over')).toHaveLength(3);
    expect(sentHere).toHaveLength(1);
    await h.world.close();
  });

  it('confirms the claims of deliveries that waited past their beats, and sends them once', async () => {
    const { h, states, sentHere, answerUntil, worker, closing } = await closedWhileWaiting();
    // Lapsed but taken over by nobody: each is confirmed under the lock (a heartbeat) and sent.
    await answerUntil(async () => (await states()).succeeded === 3);
    await closing;
    await worker.stop();
    expect(await states()).toEqual({ succeeded: 3, queued: 3 });
    expect(new Set(sentHere).size).toBe(3);
    expect(sentHere).toHaveLength(3);
    await h.world.close();
  });

  it('lets a virtual clock move while a paced delivery waits for a send slot', async () => {
    const { h, receiver, dispatcher, states } = await sixQueued(30_000, 10);
    const worker = new Worker(h.world, deliveryWork(dispatcher), {
      owner: dispatcher.owner,
      concurrency: 1,
      claimAhead: 2,
    });
    worker.start();
    for (let i = 0; i < 1000 && (await states()).sending !== 1; i++)
      await new Promise((r) => setImmediate(r));
    // One is claimed for the endpoint's next rate slot, the rest held to theirs. As the clock
    // moves the worker claims them at their turns, and at their slots they wait for its one send
    // slot, held by the first request until the test answers it.
    for (let step = 0; step < 100; step++) {
      const moved = h.clock.advance(10).then(() => 'moved');
      const stuck = new Promise((r) => setTimeout(() => r('stuck'), 2000));
      expect(await Promise.race([moved, stuck])).toBe('moved');
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(receiver.held).toBe(1);
    // the scenario was reached: a second delivery claimed, waiting for the slot
    expect((await states()).sending).toBeGreaterThanOrEqual(2);
    // Late for their slots by then: held to new ones, and each still goes out once.
    for (let i = 0; i < 400 && (await states()).succeeded !== 6; i++) {
      receiver.answerAll();
      await h.clock.advance(200);
      await new Promise((r) => setTimeout(r, 5));
    }
    await worker.stop();
    expect(await states()).toEqual({ succeeded: 6 });
    expect(new Set(h.received.map((r) => r.headers['webhook-id'])).size).toBe(6);
    expect(h.received).toHaveLength(6);
    await h.world.close();
  });

  it('counts a run of another kind against the slots the sends share', async () => {
    const { h, receiver, dispatcher, states, answerUntil } = await sixQueued();
    // One item of a kind that does not batch its claims, running until the test lets it end.
    let endJob!: () => void;
    let jobRan = false;
    const job: WorkKind = {
      name: 'job',
      twins: () => [h.twin],
      due: async (nowMs) => (jobRan ? [] : [{ id: 'job_1', dueAt: new Date(nowMs).toISOString() }]),
      nextDue: async () => undefined,
      run: async (item) => {
        jobRan = true;
        await new Promise<void>((resolve) => (endJob = resolve));
        return { kind: 'job', id: item.id, outcome: 'done' };
      },
    };
    const worker = new Worker(h.world, [job, ...deliveryWork(dispatcher)], {
      owner: dispatcher.owner,
      concurrency: 2,
      claimAhead: 2,
    });
    worker.start();
    await until(() => jobRan && receiver.held === 1, 1000);
    // the job holds one of the two slots: one send, and the claimed ahead wait
    expect(await states()).toEqual({ sending: 3, queued: 3 });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(receiver.held).toBe(1);
    endJob();
    await until(() => receiver.held === 2, 1000);
    await answerUntil(async () => (await states()).succeeded === 6);
    await worker.stop();
    expect(receiver.most).toBe(2);
    expect(await states()).toEqual({ succeeded: 6 });
    await h.world.close();
  });

  it('refuses a claimAhead that is not a whole number of items', async () => {
    const { h, dispatcher } = await sixQueued();
    for (const claimAhead of [-1, 1.5, Number.NaN])
      expect(() => new Worker(h.world, deliveryWork(dispatcher), { claimAhead })).toThrow(
        TwinError,
      );
    await h.world.close();
  });
});
