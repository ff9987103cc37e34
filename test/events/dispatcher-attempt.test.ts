// One attempt from claim to finish, as its users see it: which statuses count as accepted, what
// the pack's headers callback is told, why an attempt fails before any request (no secret, a vault
// that throws, signing that throws), what `world.reportError` is told, what the result carries,
// what is left on the world clock, a sender that lost its claim (STALE_OWNER), and the
// concurrency limit. In-process transport on the virtual clock, real :memory: worlds.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Dispatcher, type DispatcherOptions } from '../../src/events/dispatcher.js';
import type { EventsDeclaration, HeaderContext } from '../../src/events/declaration.js';
import { registerPack } from '../../src/events/pack-registry.js';
import type { RetryPolicy } from '../../src/events/retry.js';
import { withTraceContext } from '../../src/events/trace.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../src/events/transports/in-process-transport.js';
import {
  TransportFailure,
  type Transport,
  type TransportResponse,
} from '../../src/events/transports/transport.js';
import { TwinError } from '../../src/errors.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type WorldOptions } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { until } from '../support/dispatch-harness.js';

type Handler = (
  req: InProcessRequest,
) => TransportResponse | number | Promise<TransportResponse | number>;

const T0 = '2026-04-01T00:00:00.000Z';

interface Reported {
  readonly error: unknown;
  readonly where: string;
}

async function setup(
  o: {
    handler?: Handler;
    transport?: Transport;
    retry?: RetryPolicy;
    /** Replaces the pack's headers callback; null drops it. */
    headers?: EventsDeclaration['headers'] | null;
    world?: Partial<WorldOptions>;
    dispatcher?: DispatcherOptions;
  } = {},
) {
  const clock = new VirtualClock(T0);
  const reported: Reported[] = [];
  const world = openWorld({
    root: ':memory:',
    clock,
    seed: 'attempt',
    onError: (error, where) => reported.push({ error, where }),
    ...o.world,
  });
  const { headers: acmeHeaders, ...events } = acmePack(o.retry).events!;
  const headers = o.headers === undefined ? acmeHeaders : o.headers;
  const twin = registerPack(world, {
    name: 'acme',
    events: { ...events, ...(headers === null || headers === undefined ? {} : { headers }) },
  });
  const received: InProcessRequest[] = [];
  const handler = o.handler ?? (() => 200);
  const inproc = new InProcessTransport(clock, (req) => {
    received.push(req);
    return handler(req);
  });
  const newDispatcher = (options: DispatcherOptions = {}) =>
    new Dispatcher(world, {
      routes: [{ prefix: 'inproc://', transport: o.transport ?? inproc }],
      autoDispatch: false,
      ...o.dispatcher,
      ...options,
    });
  const dispatcher = newDispatcher();
  await world.secrets.set('ep', ACME_SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
  const known = new Set<string>();
  /** Creates a customer and answers its delivery's id. */
  const create = async (id = 'cus_1'): Promise<string> => {
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: id,
      fields: { email: `${id}@example.com` },
    });
    const fresh = (await twin.list('delivery')).filter((r) => !known.has(r.id));
    if (fresh.length !== 1) throw new Error(`expected one new delivery, found ${fresh.length}`);
    known.add(fresh[0]!.id);
    return fresh[0]!.id;
  };
  const record = async (id: string) => (await twin.get('delivery', id))!.fields;
  const attempt = async (id: string, n: number) =>
    (await twin.get('delivery_attempt', `${id}.${n}`))!.fields;
  return {
    clock,
    world,
    twin,
    dispatcher,
    newDispatcher,
    received,
    reported,
    create,
    record,
    attempt,
  };
}

/** A request the test answers when it chooses. */
function gate() {
  let open: (answer: TransportResponse | number | Error) => void = () => {};
  const handler: Handler = () =>
    new Promise<TransportResponse | number>((resolve, reject) => {
      open = (answer) => (answer instanceof Error ? reject(answer) : resolve(answer));
    });
  return { handler, answer: (a: TransportResponse | number | Error) => open(a) };
}

const RETRY: RetryPolicy = {
  delaysMs: [60_000, 60_000],
  retryOn: ['failed', 'unknown'],
  jitter: 0,
};

describe('which statuses a receiver can answer: 2xx accepted, any other real status refused', () => {
  it('100, 199, 300 and 599 are refused (failed, http_status, status kept); 200 and 299 are accepted', async () => {
    let answer = 200;
    const s = await setup({ handler: () => answer });
    const cases = [
      [100, 'failed'],
      [199, 'failed'],
      [200, 'succeeded'],
      [299, 'succeeded'],
      [300, 'failed'],
      [599, 'failed'],
    ] as const;
    for (const [status, outcome] of cases) {
      answer = status;
      const id = await s.create(`cus_${status}`);
      const result = await s.dispatcher.dispatch('acme', id);
      expect(result, `status ${status}`).toMatchObject({ outcome, status, reason: 'http_status' });
      expect(await s.attempt(id, 1), `status ${status}`).toMatchObject({
        state: outcome,
        status,
        reason: 'http_status',
      });
    }
    await s.world.close();
  });
});

describe('an attempt that fails before any request is made', () => {
  it('no stored secret: failed as missing_secret, nothing sent, and onError is told which reference to set and how', async () => {
    const s = await setup();
    await s.world.secrets.delete('ep');
    const id = await s.create();
    const result = await s.dispatcher.dispatch('acme', id);
    expect(result).toMatchObject({ outcome: 'failed', reason: 'missing_secret', status: null });
    expect(s.received).toHaveLength(0);
    expect(s.reported).toHaveLength(1);
    const [{ error, where }] = s.reported as [Reported];
    expect(where).toBe('dispatch');
    expect(error).toBeInstanceOf(TwinError);
    expect(error).toMatchObject({ code: 'INVALID_CONFIG' });
    const message = (error as TwinError).message;
    expect(message).toContain(`delivery ${id}`);
    expect(message).toContain('no secret is stored for reference "ep"');
    expect(message).toContain('world.secrets.set(ref, secret)');
    await s.world.close();
  });

  it("a vault resolver that throws: failed as secret_error, nothing sent unsigned, and onError gets the vault's own error for that delivery", async () => {
    const vaultDown = new Error('vault unreachable');
    const s = await setup({ world: { resolveSecret: () => Promise.reject(vaultDown) } });
    const id = await s.create();
    const result = await s.dispatcher.dispatch('acme', id);
    expect(result).toMatchObject({
      outcome: 'failed',
      reason: 'secret_error',
      status: null,
      state: 'failed',
    });
    expect(s.received).toHaveLength(0);
    expect(await s.attempt(id, 1)).toMatchObject({
      state: 'failed',
      reason: 'secret_error',
      headers: null,
    });
    expect(s.reported).toEqual([
      { error: vaultDown, where: `resolving the secret of delivery ${id}` },
    ]);
    await s.world.close();
  });

  it("a pack headers callback that throws: failed as signing_error, nothing sent, and onError gets the pack's error for that delivery", async () => {
    const broken = new Error('headers callback broke');
    const s = await setup({
      headers: () => {
        throw broken;
      },
    });
    const id = await s.create();
    const result = await s.dispatcher.dispatch('acme', id);
    expect(result).toMatchObject({ outcome: 'failed', reason: 'signing_error', status: null });
    expect(s.received).toHaveLength(0);
    expect(await s.attempt(id, 1)).toMatchObject({ state: 'failed', reason: 'signing_error' });
    expect(s.reported).toEqual([{ error: broken, where: `signing delivery ${id}` }]);
    await s.world.close();
  });
});

describe("the pack's headers callback and the request's headers", () => {
  it('is told the record, the attempt number, the send time, and the outcome of the attempt before this one', async () => {
    const seen: HeaderContext[] = [];
    const answers: (number | Error)[] = [500, new TransportFailure('timeout'), 200];
    const s = await setup({
      retry: { ...RETRY, delaysMs: [60_000, 60_000, 60_000] },
      handler: () => {
        const a = answers.shift()!;
        if (a instanceof Error) throw a;
        return a;
      },
      headers: (ctx) => {
        seen.push(ctx);
        return { 'x-acme-attempt': String(ctx.attempt) };
      },
    });
    const id = await s.create();
    await s.dispatcher.dispatch('acme', id);
    await s.clock.advance(60_000);
    await s.clock.advance(60_000);
    expect(s.received).toHaveLength(3);
    expect(seen.map((c) => [c.attempt, c.previousOutcome, c.timestampSec])).toEqual([
      [1, undefined, Date.parse(T0) / 1000],
      [2, { state: 'failed', status: 500, reason: 'http_status' }, Date.parse(T0) / 1000 + 60],
      [3, { state: 'unknown', status: null, reason: 'timeout' }, Date.parse(T0) / 1000 + 120],
    ]);
    expect(seen[0]!.record).toMatchObject({
      url: 'inproc://ep/hook',
      eventType: 'customer.created',
    });
    expect(s.received.map((r) => r.headers['x-acme-attempt'])).toEqual(['1', '2', '3']);
    await s.world.close();
  });

  it('previousOutcome is exactly the attempt before: none for a first attempt beside a stray attempt record, none when that attempt was never stored or was deleted, reason "unknown" when it has none', async () => {
    const seen: HeaderContext[] = [];
    const s = await setup({
      headers: (ctx) => {
        seen.push(ctx);
        return {};
      },
    });
    const id = await s.create('cus_1');
    // An attempt-shaped record numbered 0 (an import or an operator's raw write) is no previous attempt.
    await s.twin.applyWrite({
      operation: 'delivery_attempt.import',
      subjectType: 'delivery_attempt',
      subjectId: `${id}.0`,
      fields: {
        recordType: 'delivery',
        delivery: id,
        number: 0,
        state: 'failed',
        status: 503,
        reason: 'http_status',
      },
    });
    expect(await s.dispatcher.dispatch('acme', id)).toMatchObject({
      number: 1,
      outcome: 'succeeded',
    });
    // The attempt before carries no reason (written before reasons were kept).
    await s.twin.applyWrite({
      operation: 'delivery_attempt.import',
      subjectType: 'delivery_attempt',
      subjectId: `${id}.1`,
      fields: { reason: null },
    });
    expect(await s.dispatcher.redeliver(id)).toMatchObject({ number: 2, outcome: 'succeeded' });
    // A record imported with attempts counted elsewhere: attempt 3 was never stored here.
    const imported = await s.create('cus_2');
    await s.twin.applyWrite({
      operation: 'delivery.import',
      subjectType: 'delivery',
      subjectId: imported,
      fields: { state: 'failed', attempts: 3 },
    });
    expect(await s.dispatcher.redeliver(imported)).toMatchObject({
      number: 4,
      outcome: 'succeeded',
    });
    // An attempt an operator deleted tells nothing either.
    await s.twin.applyWrite({
      operation: 'delivery_attempt.delete',
      subjectType: 'delivery_attempt',
      subjectId: `${id}.2`,
      delete: true,
    });
    expect(await s.dispatcher.redeliver(id)).toMatchObject({ number: 3, outcome: 'succeeded' });
    expect(seen.map((c) => [c.attempt, c.previousOutcome])).toEqual([
      [1, undefined],
      [2, { state: 'succeeded', status: 200, reason: 'unknown' }],
      [4, undefined],
      [3, undefined],
    ]);
    expect(s.received).toHaveLength(4);
    expect(s.reported).toEqual([]);
    await s.world.close();
  });

  it('every request is sent as application/json with its signature, with or without a pack headers callback', async () => {
    for (const headers of [undefined, null] as const) {
      const s = await setup({ headers });
      const id = await s.create();
      expect(await s.dispatcher.dispatch('acme', id)).toMatchObject({ outcome: 'succeeded' });
      const req = s.received[0]!;
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['webhook-id']).toMatch(/^msg_/);
      expect(req.headers['webhook-signature']).toMatch(/^v1,/);
      if (headers === null) expect(req.headers['user-agent']).toBeUndefined();
      else expect(req.headers['user-agent']).toBe('acme-webhooks/1.0');
      expect(s.reported).toEqual([]);
      await s.world.close();
    }
  });
});

describe('sending: observers, transports, duration, trace', () => {
  it('an observer that throws is reported as "delivery observer"; the packet is still sent and other observers still see it', async () => {
    const s = await setup();
    const broken = new Error('observer broke');
    const seen: number[] = [];
    s.dispatcher.observe(() => {
      throw broken;
    });
    s.dispatcher.observe((p) => seen.push(p.attempt));
    const id = await s.create();
    expect(await s.dispatcher.dispatch('acme', id)).toMatchObject({ outcome: 'succeeded' });
    expect(seen).toEqual([1]);
    expect(s.received).toHaveLength(1);
    expect(s.reported).toEqual([{ error: broken, where: 'delivery observer' }]);
    await s.world.close();
  });

  it('a transport that throws something other than a TransportFailure counts as connection_error: unknown, since it may have arrived', async () => {
    const own: Transport = {
      name: 'own',
      now: () => Date.parse(T0),
      send: () => Promise.reject(new TypeError('socket gone: secret stack text')),
    };
    const s = await setup({ transport: own });
    const id = await s.create();
    expect(await s.dispatcher.dispatch('acme', id)).toMatchObject({
      outcome: 'unknown',
      reason: 'connection_error',
      status: null,
      state: 'unknown',
    });
    expect(await s.attempt(id, 1)).toMatchObject({ state: 'unknown', reason: 'connection_error' });
    await s.world.close();
  });

  it("durationMs is the request's wall-clock time in tenths of a millisecond: never negative, never longer than the dispatch call", async () => {
    const s = await setup({
      handler: () => new Promise<number>((resolve) => setTimeout(() => resolve(200), 5)),
    });
    const id = await s.create();
    const before = performance.now();
    const result = (await s.dispatcher.dispatch('acme', id))!;
    const took = performance.now() - before;
    expect(result.durationMs).toBeGreaterThan(0);
    // in tenths of a millisecond, so rounding may lift it by 0.05 at most
    expect(result.durationMs).toBeLessThanOrEqual(took + 0.05);
    expect(String(result.durationMs)).toMatch(/^\d+(\.\d)?$/);
    await s.world.close();
  });

  it("with an OpenTelemetry SDK, each attempt's hop span ends marked ok only when the receiver accepted", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    trace.setGlobalTracerProvider(provider);
    try {
      const answers = [200, 503];
      const s = await setup({ handler: () => answers.shift()! });
      const carrier = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
      const ok = await withTraceContext(carrier, () => s.create('cus_ok'));
      const refused = await withTraceContext(carrier, () => s.create('cus_refused'));
      expect(await s.dispatcher.dispatch('acme', ok)).toMatchObject({ outcome: 'succeeded' });
      expect(await s.dispatcher.dispatch('acme', refused)).toMatchObject({ outcome: 'failed' });
      const hops = exporter
        .getFinishedSpans()
        .filter((sp) => sp.name === 'twinworld.webhook.deliver');
      expect(hops.map((h) => h.attributes['twinworld.delivery.ok'])).toEqual([true, false]);
      // the hop is the span named in the request's traceparent
      expect(s.received[0]!.headers.traceparent).toContain(hops[0]!.spanContext().spanId);
      await s.world.close();
    } finally {
      trace.disable();
      await provider.shutdown();
    }
  });
});

describe('the finish: retries by policy, the result, and the world clock', () => {
  it("an operator's redeliver that fails is reported, never retried by the policy", async () => {
    const answers = [200, 500];
    const s = await setup({ retry: RETRY, handler: () => answers.shift() ?? 200 });
    const id = await s.create();
    expect(await s.dispatcher.dispatch('acme', id)).toMatchObject({ state: 'succeeded' });
    const again = await s.dispatcher.redeliver(id);
    expect(again).toMatchObject({ kind: 'redeliver', outcome: 'failed', state: 'failed' });
    expect(again.retryAt).toBeUndefined();
    expect(await s.record(id)).toMatchObject({ state: 'failed', nextAttemptAt: null });
    await s.clock.advance(24 * 3600_000);
    expect(s.received).toHaveLength(2);
    expect(s.clock.pending()).toBe(0);
    await s.world.close();
  });

  it("a retry granted by the policy is on the result as retryAt, the same instant as the record's nextAttemptAt", async () => {
    const s = await setup({ retry: RETRY, handler: () => 500 });
    const id = await s.create();
    const result = (await s.dispatcher.dispatch('acme', id))!;
    expect(result).toMatchObject({ state: 'retrying', retryAt: '2026-04-01T00:01:00.000Z' });
    expect((await s.record(id)).nextAttemptAt).toBe(result.retryAt);
    // the retry waits on the clock, once, and runs when due
    expect(s.clock.pending()).toBe(1);
    await s.clock.advance(60_000);
    expect(s.received).toHaveLength(2);
    await s.world.close();
  });

  it('an attempt that ended leaves nothing waiting on the world clock: no heartbeat, no retry', async () => {
    for (const answer of [200, 500]) {
      const s = await setup({ handler: () => answer });
      const id = await s.create();
      const result = await s.dispatcher.dispatch('acme', id);
      expect(result).toMatchObject({
        status: answer,
        state: answer === 200 ? 'succeeded' : 'failed',
      });
      expect(s.clock.pending()).toBe(0);
      expect(s.clock.nextAt()).toBeUndefined();
      await s.world.close();
    }
  });

  it('a dispatcher closed while an attempt is in flight leaves the retry it earned in the store, with nothing on the clock', async () => {
    const g = gate();
    const s = await setup({ retry: RETRY, handler: g.handler, dispatcher: { autoDispatch: true } });
    const id = await s.create();
    await until(() => s.received.length === 1);
    const closing = s.dispatcher.close();
    g.answer(500);
    await closing;
    expect(await s.record(id)).toMatchObject({
      state: 'retrying',
      nextAttemptAt: '2026-04-01T00:01:00.000Z',
    });
    expect(s.clock.pending()).toBe(0);
    await s.clock.advance(3600_000);
    expect(s.received).toHaveLength(1);
    await s.world.close();
  });
});

describe('a sender that lost its claim before finishing', () => {
  /**
   * Sender A's heartbeats cannot be committed (a commit hook refuses them), so its lease lapses
   * while its request hangs; sender B takes the attempt over; then A's request comes back.
   */
  async function lostClaim(answer: number | Error) {
    const g = gate();
    const s = await setup({ retry: RETRY, handler: g.handler });
    const refused = new Error('heartbeat refused by a commit hook');
    s.twin.use({
      name: 'refuse-heartbeats',
      withinCommit: (entries) => {
        if (entries.some((e) => e.operation === 'delivery.heartbeat')) throw refused;
        return [];
      },
    });
    const a = s.newDispatcher({ owner: 'wrk_a' });
    const b = s.newDispatcher({ owner: 'wrk_b' });
    const id = await s.create();
    const sending = a.dispatch('acme', id);
    await until(() => s.received.length === 1);
    await s.clock.advance(30_000);
    expect(await b.runDue('acme', id)).toBe('taken_over');
    expect(await s.record(id)).toMatchObject({ state: 'unknown', currentAttempt: null });
    g.answer(answer);
    const result = (await sending)!;
    return { s, id, result, refused };
  }

  it("its beats' failures are reported for that delivery; its late finish is refused as STALE_OWNER with its details, and earns no retry", async () => {
    const { s, id, result, refused } = await lostClaim(500);
    const beats = s.reported.filter((r) => r.where !== 'dispatch');
    expect(beats.length).toBeGreaterThanOrEqual(2);
    for (const r of beats)
      expect(r).toEqual({ error: refused, where: `heartbeat of delivery ${id}` });
    const stale = s.reported.filter((r) => r.where === 'dispatch');
    expect(stale).toHaveLength(1);
    const error = stale[0]!.error as TwinError;
    expect(error).toBeInstanceOf(TwinError);
    expect(error).toMatchObject({
      code: 'STALE_OWNER',
      path: 'delivery',
      details: { deliveryId: id, attempt: 1, owner: 'wrk_a' },
    });
    expect(error.message).toContain(`delivery ${id} attempt 1: this sender (wrk_a) lost its claim`);
    expect(error.message).toContain('what it saw (failed 500) is kept on the attempt');
    expect(result).toMatchObject({ stale: true, state: undefined, outcome: 'failed', status: 500 });
    // the record stays as the takeover left it, and nothing waits on the clock for it
    expect(await s.record(id)).toMatchObject({ state: 'unknown', nextAttemptAt: null });
    expect((await s.attempt(id, 1)).lateObservation).toMatchObject({
      owner: 'wrk_a',
      outcome: 'failed',
      status: 500,
    });
    expect(s.clock.pending()).toBe(0);
    await s.clock.advance(24 * 3600_000);
    expect(s.received).toHaveLength(1);
    await s.world.close();
  });

  it('a late finish that saw no status says only its outcome', async () => {
    const { s, result } = await lostClaim(new TransportFailure('timeout'));
    expect(result).toMatchObject({ stale: true, outcome: 'unknown', status: null });
    const error = s.reported.find((r) => r.where === 'dispatch')!.error as TwinError;
    expect(error.code).toBe('STALE_OWNER');
    expect(error.message).toContain('what it saw (unknown) is kept on the attempt');
    await s.world.close();
  });
});

describe('background dispatch and the concurrency limit', () => {
  it('a background attempt whose claim cannot be committed is reported to onError as "dispatch", and idle() still resolves', async () => {
    const s = await setup({ dispatcher: { autoDispatch: true } });
    const refused = new Error('claim refused by a commit hook');
    s.twin.use({
      name: 'refuse-claims',
      withinCommit: (entries) => {
        if (entries.some((e) => e.operation === 'delivery.claim')) throw refused;
        return [];
      },
    });
    const id = await s.create();
    await until(() => s.reported.length > 0);
    await s.dispatcher.idle();
    expect(s.reported).toEqual([{ error: refused, where: 'dispatch' }]);
    expect(s.received).toHaveLength(0);
    expect(await s.record(id)).toMatchObject({ state: 'queued', attempts: 0 });
    await s.world.close();
  });

  it('under concurrency 1 one attempt is in flight at a time, and each finished attempt frees the slot for the next', async () => {
    let inFlight = 0;
    let most = 0;
    const s = await setup({
      dispatcher: { autoDispatch: true, concurrency: 1 },
      handler: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return 200;
      },
    });
    await s.create('cus_1');
    await s.create('cus_2');
    await s.dispatcher.idle();
    expect(s.received).toHaveLength(2);
    expect(most).toBe(1);
    // one after another, each after the last has finished
    for (const n of [3, 4, 5]) {
      await s.create(`cus_${n}`);
      await until(() => s.received.length === n);
      await s.dispatcher.idle();
    }
    expect(s.received).toHaveLength(5);
    await s.world.close();
  });
});
