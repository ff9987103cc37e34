// The one trigger-runtime factory: routines, routes, webhooks and calendars in, a started engine
// with both sources out; subscriptions stored always or only when changed; intake on listen().
import { afterEach, describe, expect, it } from 'vitest';
import { createTriggerRuntime, type TriggerRuntime } from '../../src/host/runtime/runtime.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { NOW, SECRETS, stripePacket, T } from './packets.js';
import { expectRefusal } from './support.js';

const HOURLY = {
  tenantId: 'acme',
  triggerId: 'hourly',
  cron: '0 * * * *',
  timezone: 'UTC',
  scopeId: 'acme',
  catchUp: { kind: 'latest' as const },
  enabled: true,
};

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function build(
  clock: VirtualClock,
  extra: Partial<Parameters<typeof createTriggerRuntime>[0]> = {},
): Promise<TriggerRuntime> {
  world ??= openWorld({ root: ':memory:', clock, seed: 'runtime' });
  return createTriggerRuntime({
    world,
    routines: { inbox: (input) => ({ got: input }) },
    routes: [{ triggerId: 'stripe.events', routineId: 'inbox', buildInput: (e) => e.payload }],
    webhooks: [
      {
        provider: 'stripe',
        triggerId: 'stripe.events',
        scheme: 'stripe',
        resolveSecrets: () => [SECRETS.stripe],
      },
    ],
    ...extra,
  });
}

describe('createTriggerRuntime', () => {
  it('starts the engine with the webhook ingress and the calendar, and takes packets on listen()', async () => {
    const runtime = await build(new VirtualClock(NOW), { calendars: [HOURLY] });
    expect(runtime.engine.running).toBe(true);
    expect(await runtime.calendar.subscription('acme', 'hourly')).toMatchObject({ revision: 1 });
    const host = await runtime.listen();
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const body = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { object: {} } });
    const res = await fetch(`${host.url}/ingress/acme/stripe`, {
      method: 'POST',
      headers: stripePacket(body, T),
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'triggered', tenantId: 'acme' });
    await host.close();
    world = undefined; // the host closed it
  });

  it("stores an unchanged subscription again only with configure: 'always'", async () => {
    const clock = new VirtualClock(NOW);
    const first = await build(clock, { calendars: [HOURLY] });
    await first.engine.stop();
    await clock.set('2026-03-01T15:00:00.000Z');
    const same = await build(clock, { calendars: [HOURLY] });
    // 'changed' (the default): the cursor stays where it was, so what fell due still fires
    expect(await same.calendar.subscription('acme', 'hourly')).toMatchObject({
      revision: 1,
      cursor: NOW,
    });
    await same.engine.stop();
    const changed = await build(clock, { calendars: [{ ...HOURLY, cron: '30 * * * *' }] });
    expect(await changed.calendar.subscription('acme', 'hourly')).toMatchObject({
      revision: 2,
      cursor: '2026-03-01T15:00:00.000Z',
    });
    await changed.engine.stop();
    const always = await build(clock, {
      calendars: [{ ...HOURLY, cron: '30 * * * *' }],
      configure: 'always',
    });
    expect(await always.calendar.subscription('acme', 'hourly')).toMatchObject({ revision: 3 });
  });

  it('with start: false leaves the engine and the calendars to the caller', async () => {
    const runtime = await build(new VirtualClock(NOW), { calendars: [HOURLY], start: false });
    expect(runtime.engine.running).toBe(false);
    await expectRefusal(() => runtime.calendar.subscription('acme', 'hourly'), 'ENGINE_STOPPED');
    await runtime.engine.start();
    expect(await runtime.calendar.subscription('acme', 'hourly')).toBeUndefined();
  });

  it('refuses a bad route or webhook as the engine and the ingress do', async () => {
    const clock = new VirtualClock(NOW);
    await expectRefusal(
      () =>
        build(clock, { routes: [{ triggerId: 'x', routineId: '', buildInput: (e) => e.payload }] }),
      'INVALID_ARGUMENT',
      'route.routineId',
    );
    await expectRefusal(
      () =>
        build(clock, {
          webhooks: [
            {
              provider: 'Bad Provider',
              triggerId: 't',
              scheme: 'stripe',
              resolveSecrets: () => [],
            },
          ],
        }),
      'INVALID_CONFIG',
      'endpoints[0].provider',
    );
  });
});
