// The send-once dispatcher on the in-process transport and the virtual clock: claim, send,
// finish; retries by policy only; unknown outcomes; recovery; redeliver; no secret in history.
import { describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld } from '../../src/world/world.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { InProcessTransport, type InProcessRequest } from '../../src/events/transports/in-process-transport.js';
import { TransportFailure, type TransportResponse } from '../../src/events/transports/transport.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';

type Handler = (req: InProcessRequest) => TransportResponse | number | Promise<TransportResponse | number>;

function setup(handler: Handler, retry?: RetryPolicy) {
  const clock = new VirtualClock('2026-04-01T00:00:00Z');
  const world = openWorld({ root: ':memory:', clock, seed: 'dispatch' });
  const twin = registerPack(world, acmePack(retry));
  const received: InProcessRequest[] = [];
  const transport = new InProcessTransport(clock, (req) => {
    received.push(req);
    return handler(req);
  });
  const dispatcher = new Dispatcher(world, { routes: [{ prefix: 'inproc://', transport }] });
  world.secrets.set('ep', ACME_SECRET);
  twin.applyWrite({ operation: 'endpoint.create', subjectType: 'endpoint', subjectId: 'ep', fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' } });
  const create = (id = 'cus_1') => twin.applyWrite({ operation: 'customer.create', subjectType: 'customer', subjectId: id, fields: { email: `${id}@example.com` } });
  const delivery = () => twin.list('delivery')[0]!;
  const attempts = () => twin.list('delivery_attempt').map((a) => a.fields);
  return { clock, world, twin, dispatcher, received, create, delivery, attempts };
}

const retry: RetryPolicy = { delaysMs: [60_000, 300_000], retryOn: ['failed', 'unknown'], jitter: 0.1, stopOnStatus: [410] };

describe('send-once dispatcher', () => {
  it('dispatches after the writer has its answer, signs on the transport clock, records the attempt', async () => {
    const s = setup(() => 204);
    s.create();
    // The write returned before anything was sent.
    expect(s.received).toHaveLength(0);
    expect(s.delivery().fields.state).toBe('queued');
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(1);
    const req = s.received[0]!;
    expect(req.headers['webhook-timestamp']).toBe(String(Date.parse('2026-04-01T00:00:00Z') / 1000));
    expect(req.headers['user-agent']).toBe('acme-webhooks/1.0');
    // the receiver verifies on the world clock with the vendor's own library (which reads Date)
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(s.clock.now());
    const verified = new Webhook(ACME_SECRET).verify(req.body, req.headers as Record<string, string>) as { type: string };
    vi.useRealTimers();
    expect(verified.type).toBe('customer.created');
    expect(s.delivery().fields).toMatchObject({ state: 'succeeded', attempts: 1, currentAttempt: null, lastStatus: 204, acceptedAt: '2026-04-01T00:00:00.000Z' });
    const [attempt] = s.attempts();
    expect(attempt).toMatchObject({ number: 1, kind: 'first', state: 'succeeded', status: 204, reason: 'http_status' });
    expect(attempt!.headers).toEqual(req.headers);
  });

  it('one claim, one request: a second dispatch of the same record claims nothing', async () => {
    const s = setup(() => 200);
    s.create();
    await s.dispatcher.idle();
    const again = await Promise.all([s.dispatcher.dispatch('acme', s.delivery().id), s.dispatcher.dispatch('acme', s.delivery().id)]);
    expect(again).toEqual([undefined, undefined]);
    expect(s.received).toHaveLength(1);
  });

  it('no retry policy means no retry', async () => {
    const s = setup(() => 500);
    s.create();
    await s.dispatcher.idle();
    await s.clock.advance(24 * 3600_000);
    expect(s.received).toHaveLength(1);
    expect(s.delivery().fields).toMatchObject({ state: 'failed', lastStatus: 500, acceptedAt: null, nextAttemptAt: null });
  });

  it('retries by policy on the world clock: numbered, re-signed attempts, accepted_at kept', async () => {
    const statuses = [500, 503, 200];
    const s = setup(() => statuses.shift() ?? 200, retry);
    s.create();
    await s.dispatcher.idle();
    expect(s.delivery().fields.state).toBe('retrying');
    const firstRetryAt = Date.parse(String(s.delivery().fields.nextAttemptAt));
    expect(firstRetryAt - s.clock.now()).toBeGreaterThanOrEqual(54_000);
    expect(firstRetryAt - s.clock.now()).toBeLessThanOrEqual(66_000);
    await s.clock.advance(59_000 - 6_001); // not yet due
    expect(s.received).toHaveLength(1);
    await s.clock.advance(3600_000);
    expect(s.received).toHaveLength(3);
    expect(s.attempts().map((a) => [a.number, a.kind, a.state, a.status])).toEqual([
      [1, 'first', 'failed', 500],
      [2, 'retry', 'failed', 503],
      [3, 'retry', 'succeeded', 200],
    ]);
    const stamps = s.received.map((r) => r.headers['webhook-timestamp']);
    expect(new Set(stamps).size).toBe(3);
    expect(new Set(s.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const accepted = s.delivery().fields.acceptedAt;
    expect(s.delivery().fields).toMatchObject({ state: 'succeeded', attempts: 3 });
    // an operator's redeliver that fails does not erase accepted_at
    statuses.push(500);
    const r = await s.dispatcher.redeliver(s.delivery().id);
    expect(r).toMatchObject({ number: 4, kind: 'redeliver', outcome: 'failed' });
    expect(s.delivery().fields.acceptedAt).toBe(accepted);
  });

  it('retries until the policy is spent, and stops at once on a status the policy names', async () => {
    const s = setup(() => 500, retry);
    s.create('cus_a');
    await s.dispatcher.idle();
    await s.clock.advance(7 * 24 * 3600_000);
    expect(s.received).toHaveLength(3);
    expect(s.delivery().fields).toMatchObject({ state: 'failed', attempts: 3, nextAttemptAt: null });

    const gone = setup(() => 410, retry);
    gone.create();
    await gone.dispatcher.idle();
    expect(gone.delivery().fields.state).toBe('failed');
  });

  it('a pending retry is cancelled when its endpoint is disabled or deleted meanwhile', async () => {
    for (const change of [{ fields: { status: 'disabled' } }, { delete: true as const }]) {
      const s = setup(() => 500, retry);
      s.create();
      await s.dispatcher.idle();
      expect(s.delivery().fields.state).toBe('retrying');
      s.twin.applyWrite({ operation: 'endpoint.change', subjectType: 'endpoint', subjectId: 'ep', ...change });
      await s.clock.advance(24 * 3600_000);
      expect(s.received).toHaveLength(1);
      expect(s.delivery().fields).toMatchObject({ state: 'failed', nextAttemptAt: null, attempts: 1 });
    }
  });

  it('a timeout or reset is unknown — it may have reached the receiver — with no exception text kept', async () => {
    const s = setup(() => {
      throw new TransportFailure('timeout');
    });
    s.create();
    await s.dispatcher.idle();
    expect(s.delivery().fields).toMatchObject({ state: 'unknown', lastStatus: null, lastOutcome: 'unknown' });
    expect(s.attempts()[0]).toMatchObject({ state: 'unknown', reason: 'timeout', status: null });
    const crash = setup(() => {
      throw new Error('ECONNREFUSED secret stack trace');
    });
    crash.create();
    await crash.dispatcher.idle();
    expect(crash.attempts()[0]).toMatchObject({ state: 'unknown', reason: 'connection_error' });
    expect([...crash.twin.exportLines()].join('\n')).not.toContain('stack trace');
  });

  it('honours Retry-After on a 429 when it asks for longer than the schedule', async () => {
    const answers: TransportResponse[] = [{ status: 429, retryAfterSec: 600 }, { status: 200 }];
    const s = setup(() => answers.shift()!, { ...retry, jitter: 0, honorRetryAfter: true });
    s.create();
    await s.dispatcher.idle();
    expect(Date.parse(String(s.delivery().fields.nextAttemptAt)) - s.clock.now()).toBe(600_000);
  });

  it('recovery marks records found sending as unknown and dispatches those never attempted', async () => {
    const s = setup(() => 200);
    s.dispatcher['closed'] = true; // simulate a dispatcher that died: records stay queued
    s.create('cus_1');
    s.create('cus_2');
    const [d1, d2] = s.twin.list('delivery');
    // a claim that never finished: the process died between claim and finish
    const { decideClaim } = await import('../../src/events/records.js');
    s.twin.applyAtomic((view) => decideClaim(view, 'delivery', d1!.id, 'first', '2026-04-01T00:00:00.000Z', s.clock.now()));
    const fresh = new Dispatcher(s.world, { routes: [{ prefix: 'inproc://', transport: new InProcessTransport(s.clock, (req) => (s.received.push(req), 200)) }] });
    const report = await fresh.recover();
    expect(report.markedUnknown).toEqual([d1!.id]);
    expect(report.dispatched.map((r) => r.deliveryId)).toEqual([d2!.id]);
    expect(s.received).toHaveLength(1);
    expect(s.twin.get('delivery', d1!.id)?.fields).toMatchObject({ state: 'unknown', currentAttempt: null });
    expect(s.twin.get('delivery_attempt', `${d1!.id}.1`)?.fields).toMatchObject({ state: 'unknown', reason: 'recovered_after_crash' });
    // recovering again changes nothing
    expect(await fresh.recover()).toEqual({ markedUnknown: [], dispatched: [], scheduledRetries: 0 });
    // an unknown record is resent only on an operator's explicit request
    const again = await fresh.redeliver(d1!.id);
    expect(again).toMatchObject({ number: 2, kind: 'redeliver', outcome: 'succeeded' });
  });

  it('redeliver refuses an unknown id and a record with an attempt in flight', async () => {
    let release: (v: number) => void = () => {};
    const s = setup(() => new Promise<number>((r) => (release = r)));
    s.create();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(s.delivery().fields.state).toBe('sending');
    await expect(s.dispatcher.redeliver(s.delivery().id)).rejects.toMatchObject({ code: 'NOT_CLAIMABLE' });
    await expect(s.dispatcher.redeliver('dlv_nope')).rejects.toMatchObject({ code: 'UNKNOWN_DELIVERY' });
    release(200);
    await s.dispatcher.idle();
    expect(s.delivery().fields.state).toBe('succeeded');
  });

  it('a missing secret fails the attempt without sending an unsigned packet', async () => {
    const errors: unknown[] = [];
    const s = setup(() => 200);
    s.world.secrets.delete('ep');
    Object.assign(s.world, { onError: (e: unknown) => errors.push(e) });
    s.create();
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(0);
    expect(s.attempts()[0]).toMatchObject({ state: 'failed', reason: 'missing_secret' });
  });

  it('observers see every signed packet before it is sent', async () => {
    const s = setup(() => 200);
    const seen: string[] = [];
    s.dispatcher.observe((p) => seen.push(`${p.eventType}#${p.attempt}:${s.received.length}`));
    s.create();
    await s.dispatcher.idle();
    expect(seen).toEqual(['customer.created#1:0']);
  });

  it('no secret ever enters history: the whole exported log is scanned', async () => {
    const statuses = [500, 200];
    const s = setup(() => statuses.shift() ?? 200, retry);
    s.world.secrets.rotate('ep', 'whsec_dGhpcyBpcyB0aGUgbmV3IHNlY3JldCEhIQ==', s.clock.now(), 3600_000);
    s.create();
    await s.dispatcher.idle();
    await s.clock.advance(3600_000);
    const log = [...s.twin.exportLines()].join('\n');
    expect(s.received).toHaveLength(2);
    // while rotating, both signatures are sent
    expect(s.received[0]!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [ACME_SECRET, 'whsec_dGhpcyBpcyB0aGUgbmV3IHNlY3JldCEhIQ==', ACME_SECRET.slice(6), 'dGhpcyBpcyB0aGUgbmV3IHNlY3JldCEhIQ==']) {
      expect(log).not.toContain(secret);
    }
  });
});
