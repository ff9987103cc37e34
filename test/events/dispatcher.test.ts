// The send-once dispatcher on the in-process transport and the virtual clock: claim, send,
// finish; retries by policy only; unknown outcomes; recovery; redeliver; no secret in history.
import { describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld } from '../../src/world/world.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../src/events/transports/in-process-transport.js';
import { TransportFailure, type TransportResponse } from '../../src/events/transports/transport.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { collect } from '../support/backends.js';

type Handler = (
  req: InProcessRequest,
) => TransportResponse | number | Promise<TransportResponse | number>;

async function setup(handler: Handler, retry?: RetryPolicy) {
  const clock = new VirtualClock('2026-04-01T00:00:00Z');
  const world = openWorld({ root: ':memory:', clock, seed: 'dispatch' });
  const twin = registerPack(world, acmePack(retry));
  const received: InProcessRequest[] = [];
  const transport = new InProcessTransport(clock, (req) => {
    received.push(req);
    return handler(req);
  });
  const dispatcher = new Dispatcher(world, { routes: [{ prefix: 'inproc://', transport }] });
  await world.secrets.set('ep', ACME_SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
  const create = (id = 'cus_1') =>
    twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: id,
      fields: { email: `${id}@example.com` },
    });
  const delivery = async () => (await twin.list('delivery'))[0]!;
  const attempts = async () => (await twin.list('delivery_attempt')).map((a) => a.fields);
  return { clock, world, twin, dispatcher, received, create, delivery, attempts };
}

const retry: RetryPolicy = {
  delaysMs: [60_000, 300_000],
  retryOn: ['failed', 'unknown'],
  jitter: 0.1,
  stopOnStatus: [410],
};

describe('send-once dispatcher', () => {
  it('dispatches after the writer has its answer, signs on the transport clock, records the attempt', async () => {
    const s = await setup(() => 204);
    await s.create();
    // The write returned before anything was sent.
    expect(s.received).toHaveLength(0);
    expect((await s.delivery()).fields.state).toBe('queued');
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(1);
    const req = s.received[0]!;
    expect(req.headers['webhook-timestamp']).toBe(
      String(Date.parse('2026-04-01T00:00:00Z') / 1000),
    );
    expect(req.headers['user-agent']).toBe('acme-webhooks/1.0');
    // the receiver verifies on the world clock with the vendor's own library (which reads Date)
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(s.clock.now());
    const verified = new Webhook(ACME_SECRET).verify(
      req.body,
      req.headers as Record<string, string>,
    ) as { type: string };
    vi.useRealTimers();
    expect(verified.type).toBe('customer.created');
    expect((await s.delivery()).fields).toMatchObject({
      state: 'succeeded',
      attempts: 1,
      currentAttempt: null,
      lastStatus: 204,
      acceptedAt: '2026-04-01T00:00:00.000Z',
    });
    const [attempt] = await s.attempts();
    expect(attempt).toMatchObject({
      number: 1,
      kind: 'first',
      state: 'succeeded',
      status: 204,
      reason: 'http_status',
    });
    expect(attempt!.headers).toEqual(req.headers);
  });

  it('one claim, one request: a second dispatch of the same record claims nothing', async () => {
    const s = await setup(() => 200);
    await s.create();
    await s.dispatcher.idle();
    const id = (await s.delivery()).id;
    const again = await Promise.all([
      s.dispatcher.dispatch('acme', id),
      s.dispatcher.dispatch('acme', id),
    ]);
    expect(again).toEqual([undefined, undefined]);
    expect(s.received).toHaveLength(1);
  });

  it('no retry policy means no retry', async () => {
    const s = await setup(() => 500);
    await s.create();
    await s.dispatcher.idle();
    await s.clock.advance(24 * 3600_000);
    expect(s.received).toHaveLength(1);
    expect((await s.delivery()).fields).toMatchObject({
      state: 'failed',
      lastStatus: 500,
      acceptedAt: null,
      nextAttemptAt: null,
    });
  });

  it('retries by policy on the world clock: numbered, re-signed attempts, accepted_at kept', async () => {
    const statuses = [500, 503, 200];
    const s = await setup(() => statuses.shift() ?? 200, retry);
    await s.create();
    await s.dispatcher.idle();
    expect((await s.delivery()).fields.state).toBe('retrying');
    const firstRetryAt = Date.parse(String((await s.delivery()).fields.nextAttemptAt));
    expect(firstRetryAt - s.clock.now()).toBeGreaterThanOrEqual(54_000);
    expect(firstRetryAt - s.clock.now()).toBeLessThanOrEqual(66_000);
    await s.clock.advance(59_000 - 6_001); // not yet due
    expect(s.received).toHaveLength(1);
    await s.clock.advance(3600_000);
    expect(s.received).toHaveLength(3);
    expect((await s.attempts()).map((a) => [a.number, a.kind, a.state, a.status])).toEqual([
      [1, 'first', 'failed', 500],
      [2, 'retry', 'failed', 503],
      [3, 'retry', 'succeeded', 200],
    ]);
    const stamps = s.received.map((r) => r.headers['webhook-timestamp']);
    expect(new Set(stamps).size).toBe(3);
    expect(new Set(s.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const accepted = (await s.delivery()).fields.acceptedAt;
    expect((await s.delivery()).fields).toMatchObject({ state: 'succeeded', attempts: 3 });
    // an operator's redeliver that fails does not erase accepted_at
    statuses.push(500);
    const r = await s.dispatcher.redeliver((await s.delivery()).id);
    expect(r).toMatchObject({ number: 4, kind: 'redeliver', outcome: 'failed' });
    expect((await s.delivery()).fields.acceptedAt).toBe(accepted);
  });

  it('retries until the policy is spent, and stops at once on a status the policy names', async () => {
    const s = await setup(() => 500, retry);
    await s.create('cus_a');
    await s.dispatcher.idle();
    await s.clock.advance(7 * 24 * 3600_000);
    expect(s.received).toHaveLength(3);
    expect((await s.delivery()).fields).toMatchObject({
      state: 'failed',
      attempts: 3,
      nextAttemptAt: null,
    });

    const gone = await setup(() => 410, retry);
    await gone.create();
    await gone.dispatcher.idle();
    expect((await gone.delivery()).fields.state).toBe('failed');
  });

  it('a pending retry is cancelled, in the same commit, when its endpoint is disabled or deleted meanwhile', async () => {
    for (const [change, reason] of [
      [{ fields: { status: 'disabled' } }, 'endpoint_disabled'],
      [{ delete: true as const }, 'endpoint_removed'],
    ] as const) {
      const s = await setup(() => 500, retry);
      await s.create();
      await s.dispatcher.idle();
      expect((await s.delivery()).fields.state).toBe('retrying');
      await s.twin.applyWrite({
        operation: 'endpoint.change',
        subjectType: 'endpoint',
        subjectId: 'ep',
        ...change,
      });
      const cancelled = {
        state: 'cancelled',
        reason,
        nextAttemptAt: null,
        dueAt: null,
        attempts: 1,
      };
      expect((await s.delivery()).fields).toMatchObject(cancelled);
      await s.clock.advance(24 * 3600_000);
      expect(s.received).toHaveLength(1);
      expect((await s.delivery()).fields).toMatchObject(cancelled);
    }
  });

  it('a timeout or reset is unknown — it may have reached the receiver — with no exception text kept', async () => {
    const s = await setup(() => {
      throw new TransportFailure('timeout');
    });
    await s.create();
    await s.dispatcher.idle();
    expect((await s.delivery()).fields).toMatchObject({
      state: 'unknown',
      lastStatus: null,
      lastOutcome: 'unknown',
    });
    expect((await s.attempts())[0]).toMatchObject({
      state: 'unknown',
      reason: 'timeout',
      status: null,
    });
    const crash = await setup(() => {
      throw new Error('ECONNREFUSED secret stack trace');
    });
    await crash.create();
    await crash.dispatcher.idle();
    expect((await crash.attempts())[0]).toMatchObject({
      state: 'unknown',
      reason: 'connection_error',
    });
    expect((await collect(crash.twin.exportLines())).join('\n')).not.toContain('stack trace');
  });

  it('honours Retry-After on a 429 when it asks for longer than the schedule', async () => {
    const answers: TransportResponse[] = [{ status: 429, retryAfterSec: 600 }, { status: 200 }];
    const s = await setup(() => answers.shift()!, { ...retry, jitter: 0, honorRetryAfter: true });
    await s.create();
    await s.dispatcher.idle();
    expect(Date.parse(String((await s.delivery()).fields.nextAttemptAt)) - s.clock.now()).toBe(
      600_000,
    );
  });

  it('recovery marks records found sending as unknown and dispatches those never attempted', async () => {
    const s = await setup(() => 200);
    s.dispatcher['closed'] = true; // simulate a dispatcher that died: records stay queued
    await s.create('cus_1');
    await s.create('cus_2');
    const [d1, d2] = await s.twin.list('delivery');
    // a claim that never finished: the process died between claim and finish
    const { decideClaim } = await import('../../src/events/delivery-records.js');
    await s.twin.applyAtomic((view) =>
      decideClaim(view, 'delivery', d1!.id, 'first', '2026-04-01T00:00:00.000Z', s.clock.now()),
    );
    const fresh = new Dispatcher(s.world, {
      routes: [
        {
          prefix: 'inproc://',
          transport: new InProcessTransport(s.clock, (req) => (s.received.push(req), 200)),
        },
      ],
    });
    // While its sender's lease holds, the attempt may still be in flight in a live process: left alone.
    const early = await fresh.recover();
    expect(early.markedUnknown).toEqual([]);
    expect(early.inFlight).toMatchObject([{ deliveryId: d1!.id, owner: 'local' }]);
    expect(early.dispatched.map((r) => r.deliveryId)).toEqual([d2!.id]);
    expect(s.received).toHaveLength(1);
    await s.clock.advance(30_000);
    const report = await fresh.recover();
    expect(report.markedUnknown).toEqual([d1!.id]);
    expect(s.received).toHaveLength(1);
    expect((await s.twin.get('delivery', d1!.id))?.fields).toMatchObject({
      state: 'unknown',
      currentAttempt: null,
      owner: null,
      dueAt: null,
    });
    expect((await s.twin.get('delivery_attempt', `${d1!.id}.1`))?.fields).toMatchObject({
      state: 'unknown',
      reason: 'lease_expired',
    });
    // recovering again changes nothing
    expect(await fresh.recover()).toEqual({
      markedUnknown: [],
      dispatched: [],
      retried: [],
      scheduled: [],
      inFlight: [],
      scheduledRetries: 0,
    });
    // an unknown record is resent only on an operator's explicit request
    const again = await fresh.redeliver(d1!.id);
    expect(again).toMatchObject({ number: 2, kind: 'redeliver', outcome: 'succeeded' });
  });

  it('redeliver refuses an unknown id and a record with an attempt in flight', async () => {
    let release: (v: number) => void = () => {};
    const s = await setup(() => new Promise<number>((r) => (release = r)));
    await s.create();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect((await s.delivery()).fields.state).toBe('sending');
    await expect(s.dispatcher.redeliver((await s.delivery()).id)).rejects.toMatchObject({
      code: 'NOT_CLAIMABLE',
    });
    await expect(s.dispatcher.redeliver('dlv_nope')).rejects.toMatchObject({
      code: 'UNKNOWN_DELIVERY',
    });
    release(200);
    await s.dispatcher.idle();
    expect((await s.delivery()).fields.state).toBe('succeeded');
  });

  it('a missing secret fails the attempt without sending an unsigned packet', async () => {
    const errors: unknown[] = [];
    const s = await setup(() => 200);
    await s.world.secrets.delete('ep');
    Object.assign(s.world, { onError: (e: unknown) => errors.push(e) });
    await s.create();
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(0);
    expect((await s.attempts())[0]).toMatchObject({ state: 'failed', reason: 'missing_secret' });
  });

  it('observers see every signed packet before it is sent', async () => {
    const s = await setup(() => 200);
    const seen: string[] = [];
    s.dispatcher.observe((p) => seen.push(`${p.eventType}#${p.attempt}:${s.received.length}`));
    await s.create();
    await s.dispatcher.idle();
    expect(seen).toEqual(['customer.created#1:0']);
  });

  it('no secret ever enters history: the whole exported log is scanned', async () => {
    const statuses = [500, 200];
    const s = await setup(() => statuses.shift() ?? 200, retry);
    await s.world.secrets.rotate(
      'ep',
      'whsec_dGhpcyBpcyB0aGUgbmV3IHNlY3JldCEhIQ==',
      s.clock.now(),
      3600_000,
    );
    await s.create();
    await s.dispatcher.idle();
    await s.clock.advance(3600_000);
    const log = (await collect(s.twin.exportLines())).join('\n');
    expect(s.received).toHaveLength(2);
    // while rotating, both signatures are sent
    expect(s.received[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [
      ACME_SECRET,
      'whsec_dGhpcyBpcyB0aGUgbmV3IHNlY3JldCEhIQ==',
      ACME_SECRET.slice(6),
      'dGhpcyBpcyB0aGUgbmV3IHNlY3JldCEhIQ==',
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
