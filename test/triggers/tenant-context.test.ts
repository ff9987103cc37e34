// Tenant-scoped authority: ingest, recovery, reads, listings and calendars take a context made
// by tenantContext(); a context for one tenant cannot act on another's records (TENANT_FORBIDDEN,
// nothing appended), nor do what its `may` leaves out. Calls without a context act as host code.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { errorStatus } from '../../src/host/ingress/status.js';
import { startIngressHost } from '../../src/host/ingress/ingress-host.js';
import { listTriggerRecords } from '../../src/triggers/list.js';
import {
  isTriggerContext,
  SYSTEM_CONTEXT,
  tenantContext,
  tenantOf,
  type TriggerContext,
} from '../../src/triggers/tenant-context.js';
import { WebhookIngress } from '../../src/triggers/webhook/webhook-ingress.js';
import { ingressHarness, SECRETS, stripePacket, T } from './packets.js';
import { envelope, expectRefusal, harness, operations } from './support.js';

const ACME_ALL = () =>
  tenantContext({ tenantId: 'acme', may: ['ingest', 'recover', 'read', 'configure'] });

describe('tenantContext()', () => {
  it('is a frozen value naming one tenant and what it may do, in a fixed order', () => {
    const ctx = tenantContext({ tenantId: 'acme', may: ['read', 'ingest', 'read'] });
    expect(ctx).toEqual({ kind: 'tenant', tenantId: 'acme', may: ['ingest', 'read'] });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.may)).toBe(true);
    expect(isTriggerContext(ctx)).toBe(true);
    expect(tenantOf(ctx)).toBe('acme');
    expect(tenantOf(SYSTEM_CONTEXT)).toBeNull();
    expect(isTriggerContext(SYSTEM_CONTEXT)).toBe(true);
  });

  it('refuses an unusable tenant, an empty or unknown permission, naming the field', async () => {
    await expectRefusal(
      () => tenantContext({ tenantId: 'no spaces', may: ['read'] }),
      'INVALID_ARGUMENT',
      'context.tenantId',
    );
    await expectRefusal(
      () => tenantContext({ tenantId: 'acme', may: [] }),
      'INVALID_ARGUMENT',
      'context.may',
    );
    await expectRefusal(
      () => tenantContext({ tenantId: 'acme', may: ['read', 'admin' as never] }),
      'INVALID_ARGUMENT',
      'context.may[1]',
    );
    await expectRefusal(() => tenantContext(null as never), 'INVALID_ARGUMENT', 'context');
  });

  it('a look-alike object is no context: refused, never read as options or as authority', async () => {
    const h = await harness();
    const forged = {
      kind: 'tenant',
      tenantId: 'globex',
      may: ['ingest', 'recover', 'read'],
    } as unknown as TriggerContext;
    expect(isTriggerContext(forged)).toBe(false);
    await expectRefusal(() => h.engine.ingest(envelope(), forged), 'INVALID_ARGUMENT', 'context');
    await expectRefusal(
      () => h.engine.recoverIncomplete('acme', forged as never),
      'INVALID_ARGUMENT',
      'options.kind',
    );
    await expectRefusal(
      () => listTriggerRecords(h.world, { context: forged }),
      'INVALID_ARGUMENT',
      'context',
    );
    await expectRefusal(
      () => h.engine.record('acme', 'order:ord_1', forged),
      'INVALID_ARGUMENT',
      'context',
    );
    expect(await operations(h.world)).toEqual([]);
    await h.world.close();
  });
});

describe('ingest under a tenant context', () => {
  it("ingests its own tenant's envelopes; another tenant's are refused and nothing is appended", async () => {
    const h = await harness();
    const acme = tenantContext({ tenantId: 'acme', may: ['ingest'] });
    expect(await h.engine.ingest(envelope(), acme)).toMatchObject({
      status: 'triggered',
      tenantId: 'acme',
    });
    const head = await h.engine.twin.head();
    const e = await expectRefusal(
      () => h.engine.ingest(envelope({ tenantId: 'globex' }), acme),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    expect(e.message).toContain('"acme"');
    expect(e.message).toContain('"globex"');
    expect(e.details).toEqual({ contextTenant: 'acme', tenantId: 'globex', permission: 'ingest' });
    expect(await h.engine.twin.head()).toBe(head);
    expect(h.calls).toHaveLength(1);
    await h.world.close();
  });

  it('a context that may not ingest is refused for its own tenant too', async () => {
    const h = await harness();
    await expectRefusal(
      () => h.engine.ingest(envelope(), tenantContext({ tenantId: 'acme', may: ['read'] })),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    expect(await operations(h.world)).toEqual([]);
    await h.world.close();
  });

  it('without a context, or with SYSTEM_CONTEXT, host code acts for every tenant', async () => {
    const h = await harness();
    expect((await h.engine.ingest(envelope())).status).toBe('triggered');
    expect((await h.engine.ingest(envelope({ tenantId: 'globex' }), SYSTEM_CONTEXT)).status).toBe(
      'triggered',
    );
    await h.world.close();
  });

  it('TENANT_FORBIDDEN is 403 over HTTP', async () => {
    const h = await harness();
    const e = await expectRefusal(
      () =>
        h.engine.record(
          'globex',
          'order:ord_1',
          tenantContext({ tenantId: 'acme', may: ['read'] }),
        ),
      'TENANT_FORBIDDEN',
    );
    expect(errorStatus(e)).toMatchObject({
      status: 403,
      body: { error: 'TENANT_FORBIDDEN', path: 'context.tenantId' },
    });
    await h.world.close();
  });
});

describe('recovery and reads under a tenant context', () => {
  async function failedInTwoTenants() {
    const h = await harness();
    let failing = true;
    h.runner.register('flaky', async () => {
      if (failing) throw new TypeError('down');
      return { ok: true };
    });
    h.engine.registerRoute({ triggerId: 'sync', routineId: 'flaky', buildInput: (e) => e.payload });
    for (const tenantId of ['acme', 'globex']) {
      await expectRefusal(
        () =>
          h.engine.ingest(
            envelope({ tenantId, triggerId: 'sync', dedupeKey: 'sync:1', eventId: 's1' }),
          ),
        'ROUTINE_FAILED',
      );
    }
    failing = false;
    return h;
  }

  it("a context for acme cannot recover globex's async records: refused, globex's record untouched", async () => {
    const h = await failedInTwoTenants();
    const head = await h.engine.twin.head();
    const e = await expectRefusal(
      () => h.engine.recoverIncomplete('globex', ACME_ALL()),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    expect(e.details).toMatchObject({ permission: 'recover' });
    expect(await h.engine.twin.head()).toBe(head);
    expect(await h.engine.record('globex', 'sync:1')).toMatchObject({ state: 'failed' });
    // acme's own, with options after the context
    const report = await h.engine.recoverIncomplete('acme', ACME_ALL(), { staleAfterMs: 0 });
    expect(report.recovered.map((r) => [r.dedupeKey, r.status])).toEqual([['sync:1', 'triggered']]);
    expect(await h.engine.record('acme', 'sync:1')).toMatchObject({ state: 'triggered' });
    expect(await h.engine.record('globex', 'sync:1')).toMatchObject({ state: 'failed' });
    await h.world.close();
  });

  it('recovery needs "recover" in may; the old (tenantId, options) form still works', async () => {
    const h = await failedInTwoTenants();
    await expectRefusal(
      () =>
        h.engine.recoverIncomplete(
          'acme',
          tenantContext({ tenantId: 'acme', may: ['ingest', 'read'] }),
        ),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    expect(await h.engine.record('acme', 'sync:1')).toMatchObject({ state: 'failed' });
    expect(
      (await h.engine.recoverIncomplete('globex', { staleAfterMs: 0 })).recovered,
    ).toHaveLength(1);
    await expectRefusal(
      () => h.engine.recoverIncomplete('acme', ACME_ALL(), { staleAfterMs: -1 }),
      'INVALID_ARGUMENT',
      'staleAfterMs',
    );
    // an explicit "no context" still reads the options after it
    await expectRefusal(
      () => h.engine.recoverIncomplete('acme', undefined, { staleAfterMs: -1 }),
      'INVALID_ARGUMENT',
      'staleAfterMs',
    );
    await h.world.close();
  });

  it("a context for acme cannot read globex's record or list globex's history", async () => {
    const h = await failedInTwoTenants();
    const acme = tenantContext({ tenantId: 'acme', may: ['read'] });
    expect(await h.engine.record('acme', 'sync:1', acme)).toMatchObject({ state: 'failed' });
    await expectRefusal(
      () => h.engine.record('globex', 'sync:1', acme),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    // a listing under a tenant context is that tenant's, and only with "read"
    const rows = await listTriggerRecords(h.world, { context: acme });
    expect(rows.map((r) => r.tenantId)).toEqual(['acme']);
    expect(await listTriggerRecords(h.world, { tenant: 'acme', context: acme })).toEqual(rows);
    await expectRefusal(
      () => listTriggerRecords(h.world, { tenant: 'globex', context: acme }),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    await expectRefusal(
      () =>
        listTriggerRecords(h.world, {
          context: tenantContext({ tenantId: 'acme', may: ['ingest'] }),
        }),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    // host code still lists every tenant
    expect((await listTriggerRecords(h.world)).map((r) => r.tenantId).sort()).toEqual([
      'acme',
      'globex',
    ]);
    await h.world.close();
  });
});

describe('calendars under a tenant context', () => {
  it("configure, read and tick only the context's own tenant; each ingest of the tick carries it", async () => {
    const h = await harness({ start: false });
    const calendar = new CalendarSource();
    h.engine.registerSource(calendar);
    h.engine.registerRoute({
      triggerId: 'nightly',
      routineId: 'fulfil',
      buildInput: () => ({ order: 'nightly' }),
    });
    await h.engine.start();
    const acme = ACME_ALL();
    await expectRefusal(
      () =>
        calendar.configure(
          { tenantId: 'globex', triggerId: 'nightly', cron: '0 3 * * *', timezone: 'UTC' },
          undefined,
          acme,
        ),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    await expectRefusal(
      () =>
        calendar.configure(
          { tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * * *', timezone: 'UTC' },
          undefined,
          tenantContext({ tenantId: 'acme', may: ['ingest'] }),
        ),
      'TENANT_FORBIDDEN',
      'context.may',
    );
    expect(await operations(h.world)).toEqual([]);
    await calendar.configure(
      { tenantId: 'acme', triggerId: 'nightly', cron: '0 3 * * *', timezone: 'UTC' },
      undefined,
      acme,
    );
    await calendar.configure({
      tenantId: 'globex',
      triggerId: 'nightly',
      cron: '0 3 * * *',
      timezone: 'UTC',
    });
    expect(await calendar.subscription('acme', 'nightly', acme)).toMatchObject({
      tenantId: 'acme',
    });
    await expectRefusal(
      () => calendar.subscription('globex', 'nightly', acme),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    await h.clock.set('2026-03-02T03:00:00.000Z');
    await expectRefusal(
      () => calendar.tick('globex', undefined, acme),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    expect((await calendar.subscription('globex', 'nightly'))!.occurrences).toBe(0);
    const tick = await calendar.tick('acme', undefined, acme);
    expect(tick.fired.map((f) => [f.nominalAt, f.status])).toEqual([
      ['2026-03-02T03:00:00.000Z', 'triggered'],
    ]);
    await h.world.close();
  });
});

describe('webhooks under a tenant context', () => {
  const body = JSON.stringify({
    id: 'evt_ctx_1',
    object: 'event',
    type: 'customer.created',
    created: T,
    data: { object: { id: 'cus_1' } },
  });

  it("handle() refuses another tenant's packet before resolving secrets, and records nothing", async () => {
    const h = await ingressHarness();
    const acme = tenantContext({ tenantId: 'acme', may: ['ingest'] });
    const head = await h.engine.twin.head();
    await expectRefusal(
      () =>
        h.ingress.handle(
          {
            tenantId: 'globex',
            scopeId: 'globex',
            provider: 'stripe',
            headers: stripePacket(body),
            rawBody: body,
          },
          acme,
        ),
      'TENANT_FORBIDDEN',
      'context.tenantId',
    );
    expect(h.resolved).toEqual([]);
    expect(await h.engine.twin.head()).toBe(head);
    expect(
      await h.ingress.handle(
        {
          tenantId: 'acme',
          scopeId: 'acme',
          provider: 'stripe',
          headers: stripePacket(body),
          rawBody: body,
        },
        acme,
      ),
    ).toMatchObject({ status: 'triggered', tenantId: 'acme' });
    await h.world.close();
  });

  it('the ingress host acts for the tenant of the endpoint the URL names, with ingest only', async () => {
    const seen: { tenantId: string; context: TriggerContext }[] = [];
    const resolveSecrets = (tenantId: string, _scope: string, context: TriggerContext) => {
      seen.push({ tenantId, context });
      return [SECRETS.stripe];
    };
    const h = await ingressHarness([], { start: false });
    const ingress = new WebhookIngress({
      name: 'ctx',
      endpoints: [
        {
          tenantId: 'acme',
          provider: 'own',
          triggerId: 'stripe.events',
          scheme: 'stripe',
          resolveSecrets,
        },
        { provider: 'shared', triggerId: 'stripe.events', scheme: 'stripe', resolveSecrets },
      ],
    });
    h.engine.registerSource(ingress);
    await h.engine.start();
    const host = await startIngressHost({ world: h.world, engine: h.engine, ingress, port: 0 });
    const post = (path: string, raw: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${host.url}${path}`,
          {
            method: 'POST',
            headers: { ...stripePacket(raw), 'content-length': String(Buffer.byteLength(raw)) },
            agent: false,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(raw);
      });
    expect(await post('/ingress/acme/own', body)).toBe(200);
    expect(await post('/ingress/globex/shared', body.replace('evt_ctx_1', 'evt_ctx_2'))).toBe(200);
    expect(seen.map((s) => [s.tenantId, s.context])).toEqual([
      ['acme', { kind: 'tenant', tenantId: 'acme', may: ['ingest'] }],
      ['globex', { kind: 'tenant', tenantId: 'globex', may: ['ingest'] }],
    ]);
    expect(seen.every((s) => isTriggerContext(s.context))).toBe(true);
    // globex's packet could not reach acme's own endpoint
    expect(await post('/ingress/globex/own', body)).toBe(404);
    await host.close();
  });
});
