// The trigger guide's snippets, run. Each keeps the guide's calls and arguments — contexts passed
// to start, configure, tick, ingest, recoverIncomplete, handle, resolveSecrets and stop;
// `kind: "cron"`; `signatureScheme` — and changes only the names our API spells differently,
// each marked "guide:" and listed in src/triggers/README.md ("The trigger guide in our API").
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { SUBSCRIPTION_TYPE } from '../../src/triggers/calendar/subscription.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { createTriggerEnvelope } from '../../src/triggers/envelope.js';
import { InProcessRunner, type RoutineFn } from '../../src/triggers/in-process-runner.js';
import { tenantContext, type TriggerContext } from '../../src/triggers/tenant-context.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { NOW, ownPacket, SECRETS, stdPacket, stripePacket, T } from './packets.js';
import { expectRefusal } from './support.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
function freshRoot(): string {
  const root = tempDir('twinworld-guide-');
  roots.push(root);
  return root;
}

// guide: withTenantContext({ tenantId, scopeId }, BACKGROUND_CONTEXT) — ours names what it may do.
const demoContext = () =>
  tenantContext({ tenantId: 'demo-tenant', may: ['ingest', 'recover', 'read', 'configure'] });

describe('guide: connecting the calendar source (host integration snippet)', () => {
  it('runs as written on a real clock and a real SQLite file', async () => {
    const logged: unknown[] = [];
    const console = { log: (value: unknown) => void logged.push(value) };
    const task: RoutineFn = async (input) => ({ refreshed: true, input });
    const dir = freshRoot();

    const context = demoContext();
    const store = openWorld({ root: dir }); // guide: new SqliteTriggerStore("./triggers.sqlite")
    const engine = new TriggerEngine({
      world: store, // guide: store
      runner: new InProcessRunner(store).register('inventory.refresh', task), // guide: new TriggerRoutineRunner({ store, lock, openHarness })
    });
    engine.registerRoute({
      triggerId: 'inventory.refresh',
      routineId: 'inventory.refresh',
      // guide: profile: "inventory", task — the routine is registered with the runner above
      buildInput: (envelope) => envelope.payload,
    });
    const calendar = new CalendarSource(); // guide: new CronCalendarTriggerSource({ store })
    engine.registerSource(calendar);
    await engine.start(context);
    let configured;
    try {
      configured = await calendar.configure(
        {
          tenantId: 'demo-tenant',
          scopeId: 'demo-store',
          triggerId: 'inventory.refresh',
          kind: 'cron',
          cron: '0 7 * * *',
          timezone: 'Asia/Tokyo',
        },
        Date.now(),
        context,
      );
      // The host calls tick on its own schedule; the guide shows one call, not waiting for the next time.
      console.log(await calendar.tick('demo-tenant', Date.now(), context));
    } finally {
      await engine.stop(context);
      await store.close(); // guide: store.close()
    }

    // What it printed: this tick's answer. Something fired only if 07:00 Tokyo fell between
    // configure and tick (configure resets the cursor to its `now`).
    expect(logged).toHaveLength(1);
    const answer = logged[0] as Awaited<ReturnType<CalendarSource['tick']>>;
    expect(answer).toMatchObject({ tenantId: 'demo-tenant', missed: [] });
    expect(configured.nextAt).toMatch(/T22:00:00\.000Z$/); // 07:00 in Tokyo (UTC+9)
    expect(answer.fired).toHaveLength(
      Date.parse(configured.nextAt!) <= Date.parse(answer.now) ? 1 : 0,
    );
    // The subscription is on disk, with its scope; `kind` was accepted, not stored (every calendar is cron).
    const reopened = openWorld({ root: dir });
    const [sub] = await reopened.twin('triggers').list(SUBSCRIPTION_TYPE);
    expect(sub!.fields).toMatchObject({
      tenantId: 'demo-tenant',
      scopeId: 'demo-store',
      cron: '0 7 * * *',
      timezone: 'Asia/Tokyo',
      revision: 1,
    });
    expect(sub!.fields).not.toHaveProperty('kind');
    await reopened.close();
  });

  it('fires at 07:00 Tokyo once a host ticks after it (same snippet on a virtual clock)', async () => {
    const clock = new VirtualClock('2026-03-01T12:00:00Z');
    const context = demoContext();
    const store = openWorld({ root: ':memory:', clock, seed: 'guide' }); // guide: new InMemoryTriggerStore()
    const runs: unknown[] = [];
    const engine = new TriggerEngine({
      world: store,
      runner: new InProcessRunner(store).register(
        'inventory.refresh',
        async (input, ctx) => (runs.push([input, ctx.runKey]), { refreshed: true }),
      ),
    });
    engine.registerRoute({
      triggerId: 'inventory.refresh',
      routineId: 'inventory.refresh',
      buildInput: (envelope) => envelope.payload,
    });
    const calendar = new CalendarSource();
    engine.registerSource(calendar);
    await engine.start(context);
    await calendar.configure(
      {
        tenantId: 'demo-tenant',
        scopeId: 'demo-store',
        triggerId: 'inventory.refresh',
        kind: 'cron',
        cron: '0 7 * * *',
        timezone: 'Asia/Tokyo',
      },
      clock.now(),
      context,
    );
    await clock.set('2026-03-01T22:00:00.000Z');
    const answer = await calendar.tick('demo-tenant', clock.now(), context);
    expect(answer.fired.map((f) => [f.wallTime, f.status, f.routineResult])).toEqual([
      ['2026-03-02T07:00', 'triggered', { refreshed: true }],
    ]);
    // the guide: a run is identified by the event's dedupe key (runKey = dedupeKey)
    expect(runs).toHaveLength(1);
    expect((runs[0] as [unknown, string])[1]).toBe(answer.fired[0]!.dedupeKey);
    // configure is not to be repeated before every tick: here a second tick fires nothing more
    expect((await calendar.tick('demo-tenant', clock.now(), context)).fired).toEqual([]);
    await engine.stop(context);
    await store.close();
  });
});

describe('guide: event identity and recovery', () => {
  async function engineWith(fn: RoutineFn, filter?: (e: { payload: unknown }) => boolean) {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root: ':memory:', clock, seed: 'guide-identity' });
    const engine = new TriggerEngine({
      world,
      runner: new InProcessRunner(world).register('erp.sync', fn),
    });
    engine.registerRoute({
      triggerId: 'erp.order',
      routineId: 'erp.sync',
      buildInput: (envelope) => envelope.payload,
      ...(filter ? { filter } : {}),
    });
    const context = demoContext();
    await engine.start(context);
    return { world, engine, context, clock };
  }
  const input = (over: Record<string, unknown> = {}) => ({
    tenantId: 'demo-tenant',
    scopeId: 'demo-store',
    source: { kind: 'custom' as const, provider: 'erp' },
    triggerId: 'erp.order',
    eventId: 'ord_1',
    dedupeKey: 'erp:ord_1',
    occurredAt: NOW,
    scheduledAt: NOW,
    payload: { order: 'ord_1' },
    ...over,
  });

  it('createTriggerEnvelope() then engine.ingest(envelope, context): triggered, duplicate; a retry keeps the first nominal time', async () => {
    const { world, engine, context } = await engineWith(async (payload) => ({ synced: payload }));
    const envelope = createTriggerEnvelope(input());
    expect(envelope.payloadHash).toMatch(/^[0-9a-f]{64}$/);
    const answer = await engine.ingest(envelope, context);
    expect(answer).toMatchObject({
      status: 'triggered',
      runKey: 'erp:ord_1',
      routineResult: { synced: { order: 'ord_1' } },
    });
    const retry = await engine.ingest(
      createTriggerEnvelope(input({ scheduledAt: '2026-03-01T12:05:00.000Z' })),
      context,
    );
    expect(retry).toMatchObject({ status: 'duplicate', original: 'triggered', scheduledAt: NOW });
    // the same key with another payload, scope or source is PAYLOAD_CONFLICT
    await expectRefusal(
      () => engine.ingest(createTriggerEnvelope(input({ payload: { order: 'ord_2' } })), context),
      'PAYLOAD_CONFLICT',
      'payload',
    );
    await expectRefusal(
      () => engine.ingest(createTriggerEnvelope(input({ scopeId: 'other-store' })), context),
      'PAYLOAD_CONFLICT',
      'scopeId',
    );
    // callers never supply the digest
    await expectRefusal(
      () => createTriggerEnvelope({ ...input(), payloadHash: 'x' } as never),
      'INVALID_ENVELOPE',
      'payloadHash',
    );
    await engine.stop(context);
    await world.close();
  });

  it('filtered and in_progress answers, as the table describes', async () => {
    let release: () => void = () => {};
    const { world, engine, context } = await engineWith(
      () => new Promise((resolve) => (release = () => resolve({ ok: true }))),
      (e) => (e.payload as { order: string }).order !== 'skip',
    );
    expect(
      await engine.ingest(
        createTriggerEnvelope(
          input({ eventId: 's', dedupeKey: 'erp:s', payload: { order: 'skip' } }),
        ),
        context,
      ),
    ).toMatchObject({ status: 'filtered' });
    const first = engine.ingest(createTriggerEnvelope(input()), context);
    await new Promise((r) => setImmediate(r));
    expect(await engine.ingest(createTriggerEnvelope(input()), context)).toMatchObject({
      status: 'in_progress',
    });
    release();
    expect(await first).toMatchObject({ status: 'triggered' });
    await engine.stop(context);
    await world.close();
  });

  it('engine.recoverIncomplete(tenantId, context) re-runs the failed record from its stored envelope', async () => {
    let up = false;
    const { world, engine, context } = await engineWith(async () => {
      if (!up) throw new TypeError('erp down');
      return { synced: true };
    });
    await expectRefusal(
      () => engine.ingest(createTriggerEnvelope(input()), context),
      'ROUTINE_FAILED',
    );
    up = true;
    const report = await engine.recoverIncomplete('demo-tenant', context);
    expect(report.recovered).toMatchObject([
      {
        dedupeKey: 'erp:ord_1',
        from: 'failed',
        status: 'triggered',
        routineResult: { synced: true },
      },
    ]);
    // the context must carry the permission to recover for that tenant
    await expectRefusal(
      () => engine.recoverIncomplete('other-tenant', context),
      'TENANT_FORBIDDEN',
    );
    await engine.stop(context);
    await world.close();
  });
});

describe('guide: webhooks and persistence', () => {
  async function webhookHost(root: string) {
    const clock = new VirtualClock(NOW);
    const world = openWorld({ root, clock, seed: 'guide-webhook' });
    const resolvedWith: [string, string, TriggerContext][] = [];
    const secretsFor =
      (secret: string) => (tenantId: string, scopeId: string, context: TriggerContext) => {
        resolvedWith.push([tenantId, scopeId, context]);
        return [secret];
      };
    const received: unknown[] = [];
    const engine = new TriggerEngine({
      world,
      runner: new InProcessRunner(world).register(
        'inbox',
        async (input) => (received.push(input), { ok: true }),
      ),
    });
    for (const t of ['stripe.events', 'std.events', 'hmac.events'])
      engine.registerRoute({ triggerId: t, routineId: 'inbox', buildInput: (e) => e.payload });
    // guide: new WebhookTriggerSource({ endpoints }) — endpoints as the guide writes them
    const webhooks = new WebhookIngress({
      endpoints: [
        {
          provider: 'stripe',
          triggerId: 'stripe.events',
          signatureScheme: 'stripe',
          resolveSecrets: secretsFor(SECRETS.stripe),
        },
        {
          provider: 'acme',
          triggerId: 'std.events',
          signatureScheme: 'standard-webhooks',
          resolveSecrets: secretsFor(SECRETS.std),
        },
        {
          provider: 'plain',
          triggerId: 'hmac.events',
          signatureScheme: 'hmac-sha256',
          resolveSecrets: secretsFor(SECRETS.hmac),
        },
      ],
    });
    engine.registerSource(webhooks);
    const context = demoContext();
    await engine.start(context);
    return { world, engine, webhooks, context, resolvedWith, received };
  }

  it('handle({ tenantId, scopeId, provider, headers, rawBody }, context) for the three schemes the guide names; secrets resolved with the context', async () => {
    const h = await webhookHost(':memory:');
    const stripeBody = JSON.stringify({
      id: 'evt_guide_1',
      object: 'event',
      type: 'customer.created',
      created: T,
      data: { object: { id: 'cus_1' } },
    });
    const stdBody = JSON.stringify({ type: 'invoice.paid', data: { invoice: 'inv_1' } });
    const hmacBody = JSON.stringify({ type: 'thing.happened' });
    const packets = [
      { provider: 'stripe', headers: stripePacket(stripeBody), rawBody: Buffer.from(stripeBody) },
      { provider: 'acme', headers: stdPacket(stdBody), rawBody: Buffer.from(stdBody) },
      // hmac-sha256 v2 signs its own X-Delivery-Id (with the timestamp and body).
      {
        provider: 'plain',
        headers: ownPacket('hmac-sha256', SECRETS.hmac, hmacBody),
        rawBody: Buffer.from(hmacBody),
      },
    ];
    for (const { provider, headers, rawBody } of packets) {
      // The tenant and scope come from the host's authentication, never from the packet.
      const answer = await h.webhooks.handle(
        { tenantId: 'demo-tenant', scopeId: 'demo-store', provider, headers, rawBody },
        h.context,
      );
      expect(answer.status).toBe('triggered');
    }
    expect(h.received).toHaveLength(3);
    expect(h.resolvedWith).toEqual([
      ['demo-tenant', 'demo-store', h.context],
      ['demo-tenant', 'demo-store', h.context],
      ['demo-tenant', 'demo-store', h.context],
    ]);
    // A valid signature is no tenant authorization: a context for another tenant is refused.
    const other = tenantContext({ tenantId: 'other-tenant', may: ['ingest'] });
    await expectRefusal(
      () =>
        h.webhooks.handle(
          { tenantId: 'demo-tenant', scopeId: 'demo-store', ...packets[0]! },
          other,
        ),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    // Shutting down: stop intake (here: no more handle calls), then engine.stop(context), then the store.
    await h.engine.stop(h.context);
    await expectRefusal(
      () =>
        h.webhooks.handle(
          { tenantId: 'demo-tenant', scopeId: 'demo-store', ...packets[0]! },
          h.context,
        ),
      'ENGINE_STOPPED',
    );
    await h.world.close();
  });

  it('persistence: the in-memory store for examples, SQLite for a real file (guide: InMemoryTriggerStore / SqliteTriggerStore)', async () => {
    const root = freshRoot();
    const h = await webhookHost(root);
    const body = JSON.stringify({
      id: 'evt_guide_2',
      object: 'event',
      type: 'customer.created',
      created: T,
      data: { object: { id: 'cus_2' } },
    });
    await h.webhooks.handle(
      {
        tenantId: 'demo-tenant',
        scopeId: 'demo-store',
        provider: 'stripe',
        headers: stripePacket(body),
        rawBody: body,
      },
      h.context,
    );
    await h.engine.stop(h.context);
    await h.world.close();
    const again = await webhookHost(root);
    expect(
      await again.engine.record('demo-tenant', 'stripe:evt_guide_2', again.context),
    ).toMatchObject({ state: 'triggered' });
    const retry = await again.webhooks.handle(
      {
        tenantId: 'demo-tenant',
        scopeId: 'demo-store',
        provider: 'stripe',
        headers: stripePacket(body, T + 60),
        rawBody: body,
      },
      again.context,
    );
    expect(retry).toMatchObject({ status: 'duplicate' });
    await again.engine.stop(again.context);
    await again.world.close();
  });
});
