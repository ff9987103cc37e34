// The dispatcher's life cycle and its operator entries, on the in-process transport and the
// virtual clock (HTTP on 127.0.0.1 where a connection is what is promised): the options it checks,
// when new records go out (at once, on flush, never), observers, redeliver's refusals, find,
// recover (queued, due and not-due retries, live and lapsed claims, claims from before leases),
// runDue, close (idempotent, cancels retries, closes only the transport it made) and the commits
// its claims share.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher, type DispatcherOptions } from '../../src/events/dispatcher.js';
import { registerPack, type Pack } from '../../src/events/pack-registry.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../src/events/transports/in-process-transport.js';
import type { Transport, TransportResponse } from '../../src/events/transports/transport.js';
import { isoAt, VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { until } from '../support/dispatch-harness.js';
import { logCommits } from '../support/commit-log.js';

type Handler = (
  req: InProcessRequest,
) => TransportResponse | number | Promise<TransportResponse | number>;

const T0 = '2026-04-01T00:00:00.000Z';
const T0_MS = Date.parse(T0);

/** A world with the acme pack (and any packs registered before it), one enabled endpoint, a receiver. */
async function setup(
  options: {
    handler?: Handler;
    retry?: RetryPolicy;
    before?: readonly Pack[];
    after?: readonly Pack[];
    dispatcher?: DispatcherOptions | false;
  } = {},
) {
  const clock = new VirtualClock(T0);
  const errors: { error: unknown; where: string }[] = [];
  const world = openWorld({
    root: ':memory:',
    clock,
    seed: 'lifecycle',
    onError: (error, where) => errors.push({ error, where }),
  });
  for (const pack of options.before ?? []) registerPack(world, pack);
  const pack = acmePack(options.retry);
  const twin = registerPack(world, pack);
  for (const p of options.after ?? []) registerPack(world, p);
  const received: InProcessRequest[] = [];
  const handler = options.handler ?? (() => 200);
  const transport = new InProcessTransport(clock, (req) => {
    received.push(req);
    return handler(req);
  });
  const newDispatcher = (extra: DispatcherOptions = {}) =>
    new Dispatcher(world, { routes: [{ prefix: 'inproc://', transport }], ...extra });
  const dispatcher =
    options.dispatcher === false ? undefined : newDispatcher(options.dispatcher ?? {});
  await world.secrets.set('ep', ACME_SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
  const create = async (customer = 'cus_1'): Promise<string> => {
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: customer,
      fields: { email: `${customer}@example.com` },
    });
    const record = (await twin.list('delivery')).find(
      (d) => JSON.parse(String(d.fields.body)).data.object.email === `${customer}@example.com`,
    );
    return record!.id;
  };
  const record = async (id: string) => (await twin.get('delivery', id))!.fields;
  const attempt = async (id: string, n: number) =>
    (await twin.get('delivery_attempt', `${id}.${n}`))?.fields;
  const customerOf = (req: InProcessRequest): string =>
    String(JSON.parse(req.body).data.object.email).split('@')[0]!;
  const setEndpoint = (status: string) =>
    twin.applyWrite({
      operation: 'endpoint.change',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { status },
    });
  return {
    clock,
    world,
    twin,
    pack,
    errors,
    received,
    transport,
    dispatcher: dispatcher!,
    newDispatcher,
    create,
    record,
    attempt,
    customerOf,
    setEndpoint,
  };
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Whether `p` settles within a few event-loop turns. */
async function settlesSoon(p: Promise<unknown>, maxTurns = 50): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < maxTurns && !settled; i++) await new Promise((r) => setImmediate(r));
  return settled;
}

/** A receiver that answers only when told to. */
function heldReceiver() {
  const pending: ((status: number) => void)[] = [];
  return {
    handler: () => new Promise<number>((resolve) => pending.push(resolve)),
    pending,
    releaseAll: (status = 200) => pending.splice(0).forEach((r) => r(status)),
  };
}

describe('the dispatcher checks its options', () => {
  it('a concurrency that is not a positive integer is refused with INVALID_ARGUMENT at path concurrency', async () => {
    const s = await setup({ dispatcher: false });
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        s.newDispatcher({ concurrency });
      } catch (e) {
        error = e;
      }
      expect(error, `concurrency ${concurrency}`).toMatchObject({
        code: 'INVALID_ARGUMENT',
        path: 'concurrency',
        message: 'dispatcher concurrency must be a positive integer',
      });
    }
    expect(() => s.newDispatcher({ leaseMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'leaseMs' }),
    );
  });

  it('concurrency 1 sends one packet at a time, concurrency 2 two at once', async () => {
    for (const concurrency of [1, 2]) {
      const held = heldReceiver();
      const s = await setup({ handler: held.handler, dispatcher: { concurrency } });
      await s.create('cus_1');
      await s.create('cus_2');
      await s.create('cus_3');
      await until(() => s.received.length === concurrency);
      // nothing more goes out while the slots are taken
      await turns(30);
      expect(s.received).toHaveLength(concurrency);
      while (s.received.length < 3 || held.pending.length > 0) {
        held.releaseAll();
        await new Promise((r) => setImmediate(r));
      }
      await s.dispatcher.idle();
      expect(s.received).toHaveLength(3);
      expect(s.errors).toEqual([]);
    }
  });

  it('every claim carries the owner given, else a fresh wrk_ id of its own', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler, dispatcher: { owner: 'wrk_host_a' } });
    expect(s.dispatcher.owner).toBe('wrk_host_a');
    const id = await s.create();
    await until(() => s.received.length === 1);
    expect(await s.record(id)).toMatchObject({ state: 'sending', owner: 'wrk_host_a' });
    expect(await s.attempt(id, 1)).toMatchObject({ owner: 'wrk_host_a' });
    held.releaseAll();
    await s.dispatcher.idle();

    const other = s.newDispatcher({ autoDispatch: false });
    const another = s.newDispatcher({ autoDispatch: false });
    expect(other.owner).toMatch(/^wrk_[0-9A-Za-z]{27}$/);
    expect(another.owner).toMatch(/^wrk_[0-9A-Za-z]{27}$/);
    expect(other.owner).not.toBe(another.owner);
    const redelivered = other.redeliver(id);
    await until(() => s.received.length === 2);
    expect(await s.record(id)).toMatchObject({ state: 'sending', owner: other.owner });
    held.releaseAll();
    expect(await redelivered).toMatchObject({ number: 2, kind: 'redeliver', outcome: 'succeeded' });
  });
});

describe('when new records go out', () => {
  it("'on-flush' sends nothing until flush(), then first attempts in commit order; a second flush sends only what came after", async () => {
    const s = await setup({ dispatcher: { autoDispatch: 'on-flush' } });
    const a = await s.create('cus_a');
    const b = await s.create('cus_b');
    await s.dispatcher.idle();
    await new Promise((r) => setImmediate(r));
    expect(s.received).toHaveLength(0);
    expect((await s.record(a)).state).toBe('queued');
    s.dispatcher.flush();
    await s.dispatcher.idle();
    expect(s.received.map(s.customerOf)).toEqual(['cus_a', 'cus_b']);
    expect(await s.attempt(a, 1)).toMatchObject({ kind: 'first', state: 'succeeded' });
    expect(await s.attempt(b, 1)).toMatchObject({ kind: 'first', state: 'succeeded' });
    const c = await s.create('cus_c');
    s.dispatcher.flush();
    s.dispatcher.flush();
    await s.dispatcher.idle();
    expect(s.received.map(s.customerOf)).toEqual(['cus_a', 'cus_b', 'cus_c']);
    expect(await s.record(c)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(s.errors).toEqual([]);
  });

  it('autoDispatch false sends nothing by itself; dispatch() sends one first attempt on request, without an error', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    const id = await s.create();
    await new Promise((r) => setImmediate(r));
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(0);
    expect(await s.dispatcher.dispatch('acme', id)).toMatchObject({
      deliveryId: id,
      number: 1,
      kind: 'first',
      outcome: 'succeeded',
      state: 'succeeded',
    });
    expect(s.errors).toEqual([]);
  });

  it('a dispatcher sends the records created after it; a record queued before it waits for recover(), even when written to again', async () => {
    const s = await setup({ dispatcher: false });
    const old = await s.create('cus_old');
    const dispatcher = s.newDispatcher();
    // an operator's note on the old record is not its creation
    await s.twin.applyWrite({
      operation: 'delivery.annotate',
      subjectType: 'delivery',
      subjectId: old,
      fields: { note: 'checked by ops' },
      actor: 'operator',
    });
    const fresh = await s.create('cus_new');
    await until(() => s.received.length === 1);
    await dispatcher.idle();
    expect(s.received.map(s.customerOf)).toEqual(['cus_new']);
    expect((await s.record(old)).state).toBe('queued');
    expect((await s.record(fresh)).state).toBe('succeeded');
    const report = await dispatcher.recover();
    expect(report.dispatched.map((r) => r.deliveryId)).toEqual([old]);
    expect(s.received.map(s.customerOf)).toEqual(['cus_new', 'cus_old']);
  });

  it('an observer stops seeing packets once it unsubscribes', async () => {
    const s = await setup();
    const seen: string[] = [];
    const unsubscribe = s.dispatcher.observe((p) => seen.push(p.deliveryId));
    const first = await s.create('cus_1');
    await s.dispatcher.idle();
    unsubscribe();
    await s.create('cus_2');
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(2);
    expect(seen).toEqual([first]);
  });

  it('the claims of records committed together are written in one commit', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    for (const ep of ['ep2', 'ep3']) {
      await s.twin.applyWrite({
        operation: 'endpoint.create',
        subjectType: 'endpoint',
        subjectId: ep,
        fields: { url: `inproc://${ep}/hook`, secret_ref: 'ep', events: ['*'], status: 'enabled' },
      });
    }
    const commits = logCommits(s.twin);
    await s.create();
    const ids = (await s.twin.list('delivery')).map((d) => d.id);
    expect(ids).toHaveLength(3);
    commits.length = 0;
    await Promise.all(ids.map((id) => s.dispatcher.dispatch('acme', id)));
    expect(s.received).toHaveLength(3);
    expect(commits).toContainEqual(['delivery.claim', 'delivery.claim', 'delivery.claim']);
    expect(commits).toContainEqual(['delivery.finish', 'delivery.finish', 'delivery.finish']);
    expect(commits).toHaveLength(2);
  });
});

describe('which endpoints take a delivery', () => {
  /** acme with a second endpoint kind, `hook`, that has no enabled flag at all. */
  function twoKindPack(retry?: RetryPolicy): Pack {
    const base = acmePack(retry);
    return {
      ...base,
      events: {
        ...base.events!,
        endpoints: [
          ...base.events!.endpoints,
          { type: 'hook', urlField: 'url', secretRefField: 'secret_ref', eventsField: 'events' },
        ],
      },
    };
  }

  it('an endpoint kind without an enabled flag always takes deliveries: first attempts and retries are sent', async () => {
    const clock = new VirtualClock(T0);
    const errors: unknown[] = [];
    const world = openWorld({
      root: ':memory:',
      clock,
      seed: 'kinds',
      onError: (e) => errors.push(e),
    });
    const twin = registerPack(
      world,
      twoKindPack({ delaysMs: [60_000], retryOn: ['failed'], jitter: 0 }),
    );
    const received: string[] = [];
    let calls = 0;
    const transport = new InProcessTransport(clock, (req) => {
      received.push(req.url);
      return ++calls <= 2 ? 500 : 200;
    });
    const dispatcher = new Dispatcher(world, { routes: [{ prefix: 'inproc://', transport }] });
    await world.secrets.set('ep', ACME_SECRET);
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await twin.applyWrite({
      operation: 'hook.create',
      subjectType: 'hook',
      subjectId: 'hk',
      fields: { url: 'inproc://hk/hook', secret_ref: 'ep', events: ['*'] },
    });
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'cus_1@example.com' },
    });
    await dispatcher.idle();
    expect([...received].sort()).toEqual(['inproc://ep/hook', 'inproc://hk/hook']);
    await clock.advance(60_000);
    await dispatcher.idle();
    expect(received).toHaveLength(4);
    const records = await twin.list('delivery');
    expect(
      records.map((r) => [r.fields.endpointKind, r.fields.state, r.fields.attempts]).sort(),
    ).toEqual([
      ['endpoint', 'succeeded', 2],
      ['hook', 'succeeded', 2],
    ]);
    expect(errors).toEqual([]);
  });

  it('a record whose endpoint no longer exists is cancelled, not sent; one whose endpoint kind the pack no longer declares is sent while that endpoint exists', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    const gone = await s.create('cus_gone');
    const legacy = await s.create('cus_legacy');
    // operators moved the records: one to an endpoint id that never existed, one to a kind
    // an earlier version of the pack declared
    await s.twin.applyWrite({
      operation: 'delivery.retarget',
      subjectType: 'delivery',
      subjectId: gone,
      fields: { endpointId: 'ep_missing' },
      actor: 'operator',
    });
    await s.twin.applyWrite({
      operation: 'legacy_hook.create',
      subjectType: 'legacy_hook',
      subjectId: 'lh',
      fields: { url: 'inproc://ep/hook' },
    });
    await s.twin.applyWrite({
      operation: 'delivery.retarget',
      subjectType: 'delivery',
      subjectId: legacy,
      fields: { endpointKind: 'legacy_hook', endpointId: 'lh' },
      actor: 'operator',
    });
    expect(await s.dispatcher.dispatch('acme', gone)).toBeUndefined();
    expect(await s.record(gone)).toMatchObject({
      state: 'cancelled',
      reason: 'endpoint_disabled',
      attempts: 0,
    });
    expect(await s.dispatcher.dispatch('acme', legacy)).toMatchObject({ outcome: 'succeeded' });
    expect(s.received.map(s.customerOf)).toEqual(['cus_legacy']);
    expect(s.errors).toEqual([]);
  });
});

describe("an operator's redeliver and find", () => {
  it('redeliver of a record in flight is refused NOT_CLAIMABLE, naming its state and what to do', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler });
    const id = await s.create();
    await until(() => s.received.length === 1);
    const error = await s.dispatcher.redeliver(id).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'NOT_CLAIMABLE',
      path: 'delivery',
      message: `delivery ${id} has an attempt in flight (state sending); wait for it, or run recover if its sender crashed`,
    });
    held.releaseAll();
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(1);
  });

  it('redeliver of a record removed while it waited for a free slot is refused UNKNOWN_DELIVERY, not "in flight"', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler, dispatcher: { concurrency: 1 } });
    const done = await s.create('cus_done');
    await until(() => s.received.length === 1);
    held.releaseAll();
    await s.dispatcher.idle();
    await s.create('cus_busy'); // takes the one slot
    await until(() => s.received.length === 2);
    const redelivered = s.dispatcher.redeliver(done).catch((e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    await s.twin.applyWrite({
      operation: 'delivery.remove',
      subjectType: 'delivery',
      subjectId: done,
      delete: true,
      actor: 'operator',
    });
    held.releaseAll();
    expect(await redelivered).toMatchObject({
      code: 'UNKNOWN_DELIVERY',
      path: 'delivery',
      message: `delivery ${done} was removed before its redeliver could claim it; list deliveries with \`twinworld deliveries\``,
    });
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(2);
  });

  it('redeliver of a record refused without a stated reason says it lacks a whole packet (incomplete_packet)', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    const id = await s.create();
    // refused by an earlier version, which kept no reason
    await s.twin.applyWrite({
      operation: 'delivery.refuse',
      subjectType: 'delivery',
      subjectId: id,
      fields: { state: 'refused', url: '', dueAt: null },
      actor: 'system',
    });
    const error = await s.dispatcher.redeliver(id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_CLAIMABLE', path: 'delivery' });
    expect((error as Error).message).toContain(`delivery ${id} was refused (incomplete_packet):`);
    expect(s.received).toEqual([]);
  });

  it('find looks through every pack with events, skipping packs without; an unknown id names the packs searched and how to list deliveries', async () => {
    const plain: Pack = { name: 'plain' };
    const globex = acmePack(undefined, 'globex');
    const s = await setup({ before: [plain], after: [globex] });
    // attaching again (or a pack without events) adds no second hook and no error
    s.dispatcher.attach(s.pack);
    s.dispatcher.attach(plain);
    const gtwin = s.world.twin('globex');
    await gtwin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: 'inproc://ep/g', secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await gtwin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_g',
      fields: { email: 'cus_g@example.com' },
    });
    await s.dispatcher.idle();
    const gid = (await gtwin.list('delivery'))[0]!.id;
    const found = await s.dispatcher.find(gid);
    expect(found.pack.name).toBe('globex');
    expect(found.delivery).toMatchObject({ state: 'succeeded', pack: 'globex' });
    const error = await s.dispatcher.find('dlv_nope').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'UNKNOWN_DELIVERY',
      path: 'delivery',
      message:
        'no delivery dlv_nope in packs plain, acme, globex; list them with `twinworld deliveries`',
    });
    await expect(s.dispatcher.redeliver('dlv_nope')).rejects.toMatchObject({
      code: 'UNKNOWN_DELIVERY',
    });
    expect(s.received).toHaveLength(1);
    expect(s.errors).toEqual([]);
    // recover walks the same packs
    expect(await s.dispatcher.recover()).toMatchObject({ dispatched: [], markedUnknown: [] });

    const empty = openWorld({ root: ':memory:', clock: new VirtualClock(T0), seed: 'empty' });
    await expect(new Dispatcher(empty).find('dlv_x')).rejects.toMatchObject({
      code: 'UNKNOWN_DELIVERY',
      message:
        'no delivery dlv_x in packs (none registered); list them with `twinworld deliveries`',
    });
    await empty.close();
  });
});

describe('recover', () => {
  const retry: RetryPolicy = { delaysMs: [60_000], retryOn: ['failed'], jitter: 0 };
  /** Attempt 1 fails, later attempts succeed; cus_q is accepted at once. */
  const firstFails: Handler = (req) =>
    req.headers['x-acme-attempt'] === '1' && !req.body.includes('cus_q@') ? 500 : 200;

  it('runs retries due now (to the millisecond), reports the others with their time and runs them when due, and sends what is queued', async () => {
    const s = await setup({ handler: firstFails, retry });
    const early = await s.create('cus_early'); // fails at T0, due at T0 + 60 s
    await s.dispatcher.idle();
    await s.clock.advance(30_000);
    const late = await s.create('cus_late'); // fails at T0 + 30 s, due at T0 + 90 s
    await s.dispatcher.idle();
    expect(await s.record(late)).toMatchObject({
      state: 'retrying',
      nextAttemptAt: isoAt(T0_MS + 90_000),
    });
    // the dispatcher stops: its scheduled retries are cancelled and it sends nothing new
    await s.dispatcher.close();
    const queued = await s.create('cus_q');
    await s.clock.advance(30_000);
    await new Promise((r) => setImmediate(r));
    expect(s.received).toHaveLength(2);
    expect(await s.record(queued)).toMatchObject({ state: 'queued' });
    expect(await s.record(early)).toMatchObject({ state: 'retrying' });

    const recovering = s.newDispatcher();
    const report = await recovering.recover();
    expect(report.retried).toHaveLength(1);
    expect(report.retried[0]).toMatchObject({
      deliveryId: early,
      number: 2,
      kind: 'retry',
      outcome: 'succeeded',
    });
    expect(report.scheduled).toEqual([{ deliveryId: late, at: isoAt(T0_MS + 90_000) }]);
    expect(report.scheduledRetries).toBe(1);
    expect(report.dispatched.map((r) => [r.deliveryId, r.kind])).toEqual([[queued, 'first']]);
    expect(await s.attempt(early, 2)).toMatchObject({ kind: 'retry', state: 'succeeded' });
    expect(s.received.map(s.customerOf).sort()).toEqual([
      'cus_early',
      'cus_early',
      'cus_late',
      'cus_q',
    ]);

    // the retry not yet due runs on the recovering dispatcher's timer when its time comes
    await s.clock.advance(29_999);
    expect((await s.record(late)).state).toBe('retrying');
    await s.clock.advance(1);
    await recovering.idle();
    expect(await s.record(late)).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect(await s.attempt(late, 2)).toMatchObject({ kind: 'retry', state: 'succeeded' });
    expect(s.errors).toEqual([]);
  });

  it('reports only attempts made: a queued record and a due retry whose endpoint was disabled are cancelled, not listed', async () => {
    const s = await setup({ handler: firstFails, retry });
    const failing = await s.create('cus_f');
    await s.dispatcher.idle();
    await s.dispatcher.close();
    const queued = await s.create('cus_q');
    await s.setEndpoint('disabled');
    await s.clock.advance(60_000);
    const report = await s.newDispatcher().recover();
    expect(report).toEqual({
      markedUnknown: [],
      dispatched: [],
      retried: [],
      scheduled: [],
      inFlight: [],
      scheduledRetries: 0,
    });
    expect(await s.record(queued)).toMatchObject({
      state: 'cancelled',
      reason: 'endpoint_disabled',
    });
    // the waiting retry ended with its endpoint, in the disabling commit
    expect(await s.record(failing)).toMatchObject({
      state: 'cancelled',
      reason: 'endpoint_disabled',
      nextAttemptAt: null,
    });
    expect(s.received).toHaveLength(1);
  });

  it('an attempt out when its endpoint is disabled, and failing, takes no retry: the record is cancelled in its finish', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler, retry, dispatcher: { autoDispatch: false } });
    const id = await s.create('cus_out');
    const finished = s.dispatcher.dispatch('acme', id);
    await until(() => s.received.length === 1);
    await s.setEndpoint('disabled');
    // in flight, so the disabling commit left it alone
    expect(await s.record(id)).toMatchObject({ state: 'sending' });
    held.releaseAll(500);
    const result = await finished;
    expect(result).toMatchObject({ outcome: 'failed', status: 500, state: 'cancelled' });
    expect(result).not.toHaveProperty('retryAt');
    expect(await s.record(id)).toMatchObject({
      state: 'cancelled',
      reason: 'endpoint_disabled',
      lastStatus: 500,
      nextAttemptAt: null,
      attempts: 1,
    });
    expect(await s.attempt(id, 1)).toMatchObject({ state: 'failed', status: 500 });
    await s.clock.advance(3_600_000);
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(1);
    expect(s.errors).toEqual([]);
  });

  it('an attempt out when its endpoint is disabled still records its success', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler, retry, dispatcher: { autoDispatch: false } });
    const id = await s.create('cus_ok');
    const finished = s.dispatcher.dispatch('acme', id);
    await until(() => s.received.length === 1);
    await s.setEndpoint('disabled');
    held.releaseAll(200);
    expect(await finished).toMatchObject({ outcome: 'succeeded', state: 'succeeded' });
    expect(await s.record(id)).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('a retrying record with no retry time is neither run nor reported as scheduled', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    const id = await s.create();
    // put on hold by an operator: retrying, still due, but no time for the next attempt
    await s.twin.applyWrite({
      operation: 'delivery.hold',
      subjectType: 'delivery',
      subjectId: id,
      fields: { state: 'retrying', nextAttemptAt: null },
      actor: 'operator',
    });
    const report = await s.dispatcher.recover();
    expect(report.scheduled).toEqual([]);
    expect(report.retried).toEqual([]);
    expect(s.received).toEqual([]);
  });

  it('reports an attempt under a live lease with its owner and when the lease ends', async () => {
    const held = heldReceiver();
    const s = await setup({
      handler: held.handler,
      dispatcher: { owner: 'wrk_live', leaseMs: 45_000 },
    });
    const id = await s.create();
    await until(() => s.received.length === 1);
    await s.clock.advance(10_000);
    const report = await s.newDispatcher({ autoDispatch: false }).recover();
    expect(report.inFlight).toEqual([
      { deliveryId: id, owner: 'wrk_live', leaseUntil: isoAt(T0_MS + 45_000) },
    ]);
    held.releaseAll();
    await s.dispatcher.idle();
  });
});

describe('claims made before leases existed', () => {
  /** What a sender from before leases wrote when it claimed: no owner, no lease end. */
  async function legacyClaim(
    s: Awaited<ReturnType<typeof setup>>,
    id: string,
    record: Record<string, unknown>,
    withAttempt = true,
  ) {
    await s.twin.applyWrite({
      operation: 'delivery.claim',
      subjectType: 'delivery',
      subjectId: id,
      fields: {
        state: 'sending',
        attempts: 1,
        currentAttempt: `${id}.1`,
        nextAttemptAt: null,
        finishedAt: null,
        ...record,
      } as never,
      ...(withAttempt
        ? {
            projection: {
              creates: [
                {
                  type: 'delivery_attempt',
                  id: `${id}.1`,
                  fields: {
                    recordType: 'delivery',
                    delivery: id,
                    number: 1,
                    kind: 'first',
                    state: 'sending',
                    startedAt: T0,
                    finishedAt: null,
                    status: null,
                    reason: null,
                    headers: null,
                  },
                },
              ],
            },
          }
        : {}),
      actor: 'system',
    });
  }

  it('recover leaves one younger than staleAfterMs in flight and marks it unknown (recovered_after_crash) once it is that old, never resent', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    const id = await s.create('cus_legacy');
    const bare = await s.create('cus_bare');
    await legacyClaim(s, id, {});
    // a record claimed but whose attempt never reached the store
    await legacyClaim(s, bare, {}, false);
    expect((await s.record(id)).leaseUntil).toBeUndefined();

    await s.clock.advance(59_999);
    const young = await s.dispatcher.recover({ staleAfterMs: 60_000 });
    expect(young.markedUnknown).toEqual([]);
    expect(young.inFlight).toHaveLength(2);
    expect(young.inFlight).toEqual(
      expect.arrayContaining([
        { deliveryId: id, owner: null, leaseUntil: null },
        { deliveryId: bare, owner: null, leaseUntil: null },
      ]),
    );
    expect((await s.record(id)).state).toBe('sending');

    await s.clock.advance(1);
    const old = await s.dispatcher.recover({ staleAfterMs: 60_000 });
    expect(old.markedUnknown).toEqual([id]);
    expect(old.inFlight).toEqual([{ deliveryId: bare, owner: null, leaseUntil: null }]);
    expect(await s.record(id)).toMatchObject({
      state: 'unknown',
      lastOutcome: 'unknown',
      currentAttempt: null,
      dueAt: null,
    });
    expect(await s.attempt(id, 1)).toMatchObject({
      state: 'unknown',
      reason: 'recovered_after_crash',
      finishedAt: isoAt(T0_MS + 60_000),
    });
    expect(s.received).toEqual([]);
  });

  it("runDue takes one over once it is one lease old (the dispatcher's leaseMs), with owner and lease end written as null", async () => {
    const s = await setup({ dispatcher: { autoDispatch: false, leaseMs: 45_000 } });
    const id = await s.create();
    await legacyClaim(s, id, { owner: null, leaseUntil: null });
    await s.clock.advance(44_999);
    expect(await s.dispatcher.runDue('acme', id)).toBeUndefined();
    expect((await s.record(id)).state).toBe('sending');
    await s.clock.advance(1);
    expect(await s.dispatcher.runDue('acme', id)).toBe('taken_over');
    expect(await s.attempt(id, 1)).toMatchObject({
      state: 'unknown',
      reason: 'recovered_after_crash',
    });
    expect((await s.record(id)).state).toBe('unknown');
    expect(s.received).toEqual([]);
  });
  it('a sending record that names no attempt (written by hand) is left alone: nothing written, nothing sent, reported in flight', async () => {
    const s = await setup({ dispatcher: { autoDispatch: false } });
    const id = await s.create();
    await legacyClaim(s, id, { currentAttempt: null, owner: null, leaseUntil: null });
    const head = await s.twin.head();
    await s.clock.advance(120_000);
    expect(await s.dispatcher.runDue('acme', id)).toBeUndefined();
    const report = await s.dispatcher.recover({ staleAfterMs: 60_000 });
    expect(report.markedUnknown).toEqual([]);
    expect(report.inFlight).toEqual([{ deliveryId: id, owner: null, leaseUntil: null }]);
    expect(await s.twin.head()).toBe(head);
    expect((await s.record(id)).state).toBe('sending');
    expect(s.received).toEqual([]);
  });
});

describe('runDue and takeOver', () => {
  it('runDue acts on what fell due: a first attempt, then a due retry; a finished or missing record is nothing to do, and takeOver of a missing one is false', async () => {
    const s = await setup({
      handler: (req) => (req.headers['x-acme-attempt'] === '1' ? 500 : 200),
      retry: { delaysMs: [60_000], retryOn: ['failed'], jitter: 0 },
      dispatcher: { autoDispatch: false },
    });
    const id = await s.create();
    expect(await s.dispatcher.runDue('acme', id)).toMatchObject({
      number: 1,
      kind: 'first',
      outcome: 'failed',
      state: 'retrying',
    });
    await s.dispatcher.close(); // its own timer must not run the retry
    const worker = s.newDispatcher({ autoDispatch: false });
    await s.clock.advance(60_000);
    expect(await worker.runDue('acme', id)).toMatchObject({
      number: 2,
      kind: 'retry',
      outcome: 'succeeded',
      state: 'succeeded',
    });
    expect(await worker.runDue('acme', id)).toBeUndefined();
    expect(await worker.runDue('acme', 'dlv_nope')).toBeUndefined();
    expect(await worker.takeOver(s.pack, 'dlv_nope')).toBe(false);
    expect(s.received).toHaveLength(2);
  });
});

describe('close', () => {
  it('close waits for the attempt in flight; a second close returns at once', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler });
    const id = await s.create();
    await until(() => s.received.length === 1);
    const first = s.dispatcher.close();
    const second = s.dispatcher.close();
    expect(await settlesSoon(second)).toBe(true);
    expect(await settlesSoon(first)).toBe(false);
    held.releaseAll();
    await first;
    expect(await s.record(id)).toMatchObject({ state: 'succeeded' });
  });

  it('closing the world closes its dispatcher: the attempt in flight is finished first', async () => {
    const held = heldReceiver();
    const s = await setup({ handler: held.handler });
    const id = await s.create();
    await until(() => s.received.length === 1);
    const closing = s.world.close();
    expect(await settlesSoon(closing)).toBe(false);
    // still open while the dispatcher drains: the finish is recorded before storage closes
    expect((await s.record(id)).state).toBe('sending');
    held.releaseAll();
    await closing;
    expect(s.errors).toEqual([]);
  });

  it("a default transport the caller passed carries every packet without a route and is the caller's to close", async () => {
    const s = await setup({ dispatcher: false });
    let closes = 0;
    const callers: Transport = {
      name: 'callers',
      now: () => s.transport.now(),
      send: (r) => s.transport.send(r),
      close: () => void closes++,
    };
    const d = new Dispatcher(s.world, { defaultTransport: callers });
    const id = await s.create();
    await until(() => s.received.length === 1);
    await d.close();
    expect(await s.record(id)).toMatchObject({ state: 'succeeded' });
    expect(closes).toBe(0);
    await s.world.close();
    expect(closes).toBe(0);
  });
});

describe('the HTTP transport a dispatcher makes', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r) ?? r(undefined));
    server = undefined;
  });

  async function httpWorld() {
    const sockets: Socket[] = [];
    const open = new Set<Socket>();
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.on('connection', (socket) => {
      sockets.push(socket);
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const clock = new VirtualClock(T0);
    const world = openWorld({ root: ':memory:', clock, seed: 'http' });
    const twin = registerPack(world, acmePack());
    const dispatcher = new Dispatcher(world);
    await world.secrets.set('ep', ACME_SECRET);
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: {
        url: `http://127.0.0.1:${port}/hook`,
        secret_ref: 'ep',
        events: ['*'],
        status: 'enabled',
      },
    });
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'cus_1@example.com' },
    });
    await dispatcher.idle();
    expect((await twin.list('delivery'))[0]!.fields.state).toBe('succeeded');
    return { world, dispatcher, sockets, open };
  }

  /** Waits (real time, at most 2 s) for the server to see every connection closed. */
  async function allClosed(open: Set<Socket>): Promise<boolean> {
    for (let i = 0; i < 200 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    return open.size === 0;
  }

  it('keeps its connection open between packets and releases it on close()', async () => {
    const h = await httpWorld();
    expect(h.sockets).toHaveLength(1);
    expect(h.open.size).toBe(1);
    await h.dispatcher.close();
    expect(await allClosed(h.open)).toBe(true);
    await h.world.close();
  });

  it('releases its connection when the world closes', async () => {
    const h = await httpWorld();
    expect(h.open.size).toBe(1);
    await h.world.close();
    expect(await allClosed(h.open)).toBe(true);
  });
});
