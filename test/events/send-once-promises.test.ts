// Promises of the send-once protocol that a broken kernel once kept passing the suite (issue 18):
// who may claim a first attempt, that acceptance is never rewritten, that a retry policy retries
// only the outcomes it names, and that recovery leaves a young attempt in flight alone.
import { describe, expect, it } from 'vitest';
import { decideClaim } from '../../src/events/delivery-records.js';
import { TransportFailure } from '../../src/events/transports/transport.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import { isoAt, VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { collect } from '../support/backends.js';
import { DISPATCH_T0, dispatchHarness, until } from '../support/dispatch-harness.js';

const requeue = (id: string) => ({
  operation: 'delivery.requeue',
  subjectType: 'delivery',
  subjectId: id,
  fields: { state: 'queued' },
  actor: 'operator',
});

describe('a first attempt is claimed only from a record never attempted', () => {
  it("a queued record that already has an attempt (an operator's raw write) is not claimed as a first attempt, by dispatch or by recover", async () => {
    const s = await dispatchHarness(() => 500);
    await s.create();
    await s.dispatcher.idle();
    const id = (await s.delivery()).id;
    expect((await s.delivery()).fields).toMatchObject({ state: 'failed', attempts: 1 });
    await s.twin.applyWrite(requeue(id));
    expect((await s.delivery()).fields).toMatchObject({
      state: 'queued',
      attempts: 1,
      currentAttempt: null,
    });

    expect(await s.dispatcher.dispatch('acme', id, 'first')).toBeUndefined();
    const report = await s.newDispatcher().recover();
    expect(report.dispatched).toEqual([]);
    expect(s.received).toHaveLength(1);
    expect(await s.attempts()).toHaveLength(1);
    expect((await s.delivery()).fields).toMatchObject({ state: 'queued', attempts: 1 });
    // an operator's explicit redeliver is the way to send it again, numbered after the first
    expect(await s.dispatcher.redeliver(id)).toMatchObject({ number: 2, kind: 'redeliver' });
    expect(s.received).toHaveLength(2);
  });

  it('from an imported log: recovery sends the record never attempted and leaves the attempted one queued', async () => {
    const a = await dispatchHarness(() => 500, { autoDispatch: false });
    await a.create('cus_tried');
    await a.create('cus_fresh');
    const tried = (await a.twin.list('delivery')).find(
      (d) => JSON.parse(String(d.fields.body)).data.object.email === 'cus_tried@example.com',
    )!.id;
    await a.dispatcher.dispatch('acme', tried, 'first');
    await a.twin.applyWrite(requeue(tried));
    const lines = await collect(a.twin.exportLines());

    // a fresh world holding only the imported history; the dispatcher starts from recover()
    const clock = new VirtualClock(DISPATCH_T0);
    const fresh = openWorld({ root: ':memory:', clock, seed: 'imported' });
    await fresh.twin('acme').importLines(lines);
    const d = await dispatchHarness(() => 200, { world: fresh, clock, autoDispatch: false });
    expect((await d.twin.get('delivery', tried))!.fields).toMatchObject({
      state: 'queued',
      attempts: 1,
    });

    const report = await d.dispatcher.recover();
    expect(report.dispatched.map((r) => r.deliveryId)).toHaveLength(1);
    expect(report.dispatched[0]!.deliveryId).not.toBe(tried);
    expect(d.received).toHaveLength(1);
    expect(JSON.parse(d.received[0]!.body).data.object.email).toBe('cus_fresh@example.com');
    expect((await d.twin.get('delivery', tried))!.fields).toMatchObject({
      state: 'queued',
      attempts: 1,
      currentAttempt: null,
    });
  });
});

describe('acceptedAt is the first success, never rewritten', () => {
  it('a later successful redeliver keeps the first acceptance time', async () => {
    const s = await dispatchHarness(() => 200);
    await s.create();
    await s.dispatcher.idle();
    expect((await s.delivery()).fields).toMatchObject({
      state: 'succeeded',
      acceptedAt: DISPATCH_T0,
    });
    await s.clock.advance(60_000);
    const again = await s.dispatcher.redeliver((await s.delivery()).id);
    expect(again).toMatchObject({
      number: 2,
      kind: 'redeliver',
      outcome: 'succeeded',
      state: 'succeeded',
    });
    expect((await s.delivery()).fields).toMatchObject({
      state: 'succeeded',
      attempts: 2,
      acceptedAt: DISPATCH_T0,
    });
    expect((await s.attempts()).map((a) => a.finishedAt)).toEqual([
      DISPATCH_T0,
      '2026-04-01T00:01:00.000Z',
    ]);
  });

  it('after failures, acceptedAt is the time of the retry that succeeded, and a later success leaves it', async () => {
    const statuses = [500, 200, 200];
    const s = await dispatchHarness(() => statuses.shift()!, {
      retry: { delaysMs: [60_000], retryOn: ['failed'] },
    });
    await s.create();
    await s.dispatcher.idle();
    expect((await s.delivery()).fields.acceptedAt).toBeNull();
    await s.clock.advance(60_000);
    expect((await s.delivery()).fields).toMatchObject({
      state: 'succeeded',
      attempts: 2,
      acceptedAt: '2026-04-01T00:01:00.000Z',
    });
    await s.clock.advance(60_000);
    await s.dispatcher.redeliver((await s.delivery()).id);
    expect((await s.delivery()).fields).toMatchObject({
      attempts: 3,
      acceptedAt: '2026-04-01T00:01:00.000Z',
    });
  });
});

describe('a retry policy retries only the outcomes it names', () => {
  const week = 7 * 24 * 3600_000;

  it('under retryOn ["failed"], a timed-out attempt stays unknown with exactly one request received', async () => {
    const s = await dispatchHarness(
      () => {
        throw new TransportFailure('timeout');
      },
      { retry: { delaysMs: [60_000, 60_000], retryOn: ['failed'] } },
    );
    await s.create();
    await s.dispatcher.idle();
    await s.clock.advance(week);
    expect(s.received).toHaveLength(1);
    expect((await s.delivery()).fields).toMatchObject({
      state: 'unknown',
      lastOutcome: 'unknown',
      nextAttemptAt: null,
      attempts: 1,
    });
  });

  it('under retryOn ["unknown"], a failed attempt stays failed with exactly one request received', async () => {
    const s = await dispatchHarness(() => 500, {
      retry: { delaysMs: [60_000, 60_000], retryOn: ['unknown'] },
    });
    await s.create();
    await s.dispatcher.idle();
    await s.clock.advance(week);
    expect(s.received).toHaveLength(1);
    expect((await s.delivery()).fields).toMatchObject({
      state: 'failed',
      lastStatus: 500,
      nextAttemptAt: null,
      attempts: 1,
    });
  });

  it('the outcome a policy names is retried (the control for the two above)', async () => {
    const policy: RetryPolicy = { delaysMs: [60_000], retryOn: ['unknown'] };
    let first = true;
    const s = await dispatchHarness(
      () => {
        if (!first) return 200;
        first = false;
        throw new TransportFailure('timeout');
      },
      { retry: policy },
    );
    await s.create();
    await s.dispatcher.idle();
    expect((await s.delivery()).fields).toMatchObject({
      state: 'retrying',
      nextAttemptAt: '2026-04-01T00:01:00.000Z',
    });
    await s.clock.advance(week);
    expect(s.received).toHaveLength(2);
    expect((await s.delivery()).fields).toMatchObject({ state: 'succeeded', attempts: 2 });
  });
});

// The durable-work issue replaces staleAfterMs with leases; the promise stays: recovery never marks
// an attempt that may still be in flight, and marks it once it is old enough to be presumed dead.
describe('recovery leaves a young attempt in flight alone', () => {
  it('claim, advance 5 s, recover with staleAfterMs 60 s: nothing is marked and the live attempt finishes', async () => {
    let release: (status: number) => void = () => {};
    const s = await dispatchHarness(() => new Promise<number>((resolve) => (release = resolve)));
    await s.create();
    await until(() => s.received.length === 1);
    expect((await s.delivery()).fields.state).toBe('sending');
    await s.clock.advance(5_000);
    const report = await s.newDispatcher().recover({ staleAfterMs: 60_000 });
    expect(report.markedUnknown).toEqual([]);
    expect((await s.delivery()).fields).toMatchObject({ state: 'sending', attempts: 1 });
    expect((await s.attempts())[0]).toMatchObject({ state: 'sending', finishedAt: null });
    release(200);
    await s.dispatcher.idle();
    expect((await s.delivery()).fields).toMatchObject({
      state: 'succeeded',
      attempts: 1,
      acceptedAt: '2026-04-01T00:00:05.000Z',
    });
    expect((await s.attempts())[0]).toMatchObject({ state: 'succeeded', status: 200 });
  });

  it('an abandoned claim is marked unknown exactly when its lease lapses, not a millisecond before', async () => {
    const s = await dispatchHarness(() => 200, { autoDispatch: false });
    await s.create();
    const id = (await s.delivery()).id;
    // the sender claimed and died before sending
    await s.twin.applyAtomic((view) =>
      decideClaim(view, 'delivery', id, 'first', isoAt(s.clock.now()), s.clock.now(), {
        owner: 'wrk_dead',
        leaseMs: 60_000,
      }),
    );
    const recovering = s.newDispatcher();
    await s.clock.advance(59_999);
    expect((await recovering.recover()).markedUnknown).toEqual([]);
    expect((await s.delivery(id)).fields.state).toBe('sending');
    await s.clock.advance(1);
    expect((await recovering.recover()).markedUnknown).toEqual([id]);
    expect((await s.delivery(id)).fields).toMatchObject({
      state: 'unknown',
      currentAttempt: null,
      lastOutcome: 'unknown',
    });
    expect((await s.attempts())[0]).toMatchObject({
      state: 'unknown',
      reason: 'lease_expired',
      owner: 'wrk_dead',
      finishedAt: '2026-04-01T00:01:00.000Z',
    });
    expect(s.received).toHaveLength(0);
  });
});
