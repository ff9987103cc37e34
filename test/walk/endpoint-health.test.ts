// Endpoint health on the world clock, as each vendor runs it: Stripe disables an endpoint after
// nine days of failures (and re-enabling is by hand), a GitHub hook's breaker pauses attempts after
// refused connections and a probe closes it, a Svix endpoint's throttleRate holds attempts per
// second. Days of virtual time in a walk, checked through the delivery records and the log.
import { describe, expect, it } from 'vitest';
import { github, standardWebhooks, stripe } from '../../packs/index.js';
import { checkDeliveryInvariants, openWalk } from '../../src/walk/index.js';
import { githubHookedRepo } from '../support/github-hooked-repo.js';

const DAY = 24 * 3600_000;
const STRIPE_SECRET = 'whsec_test_walk_secret_0123456789';

function operations(
  log: string[],
  prefix: string,
): { operation: string; fields: Record<string, unknown> }[] {
  return log
    .map((line) => JSON.parse(line) as { operation: string; fields: Record<string, unknown> })
    .filter((e) => e.operation.startsWith(prefix));
}

describe('endpoint health', () => {
  it('Stripe: failing for nine days disables the endpoint once, cancels what waits, sends nothing after; enabling starts again', async () => {
    const walk = await openWalk({
      seed: 'health-stripe',
      start: '2026-05-04T08:00:00Z',
      packs: [stripe.pack],
    });
    const twin = walk.twin('stripe');
    const down = walk.receiver('down', { mix: [{ answer: 500, weight: 1 }] });
    const endpoint = await stripe.createWebhookEndpoint(twin, {
      url: down.url,
      enabled_events: ['customer.created'],
      secret: STRIPE_SECRET,
    });
    for (let day = 0; day < 12; day++) {
      await stripe.createCustomer(twin, { email: `c${day}@example.com` });
      await walk.settle();
      await walk.advance(DAY);
    }
    await walk.runUntilIdle();
    const log = await walk.exportLog();
    const disabled = operations(log, 'endpoint_health.disabled');
    expect(disabled).toHaveLength(1);
    expect(disabled[0]!.fields).toMatchObject({
      state: 'disabled',
      reason: expect.stringMatching(/^failing for 9 days/),
    });
    expect(operations(log, 'webhook_endpoint.health_disable')).toHaveLength(1);
    // Stripe emails the account: the notice is recorded, once, with why and where it is documented.
    const notices = operations(log, 'endpoint_notice.create');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.fields).toMatchObject({
      endpointId: endpoint.id,
      notice: 'endpoint_disabled',
      channel: 'email',
      reason: disabled[0]!.fields.reason,
      source: 'https://docs.stripe.com/webhooks#disable-logic',
    });
    const view = await twin.read((v) => v.get('webhook_endpoint', endpoint.id)!.fields);
    expect(view.status).toBe('disabled');

    const report = await walk.report();
    const disabledAt = Date.parse(
      String(
        (
          JSON.parse(log.find((l) => l.includes('"endpoint_health.disabled"'))!) as {
            recordedAt: string;
          }
        ).recordedAt,
      ),
    );
    const attemptsAfter = report.deliveries
      .flatMap((d) => d.attempts)
      .filter((a) => Date.parse(a.startedAt) > disabledAt);
    expect(attemptsAfter).toEqual([]);
    const cancelled = report.deliveries.filter((d) => d.state === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    // Each cancelled once, by the same commit that disabled the endpoint or by later fan-out.
    const cancels = operations(log, 'webhook_delivery.cancel');
    expect(new Set(cancels.map((c) => JSON.stringify(c))).size).toBe(cancels.length);
    expect(checkDeliveryInvariants(log).violations).toEqual([]);

    // By hand only: enabling resets health, and the next event is sent again.
    await stripe.updateWebhookEndpoint(twin, endpoint.id, { disabled: false });
    const health = await twin.read(
      (v) => v.get('endpoint_health', `webhook_endpoint:${endpoint.id}`)!.fields,
    );
    expect(health).toMatchObject({ state: 'healthy', failures: 0, reason: 'enabled by hand' });
    const before = down.stats().requests;
    await stripe.createCustomer(twin, { email: 'again@example.com' });
    await walk.settle();
    expect(down.stats().requests).toBe(before + 1);
    await walk.close();
  });

  it('GitHub: refused connections open the breaker; attempts wait out the pause; a probe closes it', async () => {
    const walk = await openWalk({
      seed: 'health-github',
      start: '2026-05-04T08:00:00Z',
      packs: [github.pack],
    });
    const twin = walk.twin('github');
    const ci = walk.receiver('ci', {
      script: ['refused', 'refused', 'refused'],
      mix: [{ answer: 200, weight: 1 }],
    });
    await githubHookedRepo(twin, { repo: 'hello', url: ci.url, secret: 's' });
    await walk.settle();
    for (let i = 0; i < 5; i++) {
      await github.openIssue(twin, {
        repository: 'octo-org/hello',
        sender: 'octocat',
        title: `Bug ${i}`,
      });
      await walk.settle();
    }
    await walk.runUntilIdle();
    const attempts = (await walk.report()).deliveries

      .flatMap((d) => d.attempts)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    const start = Date.parse(attempts[0]!.startedAt);
    const offsets = attempts.map((a) => [Date.parse(a.startedAt) - start, a.state]);
    // The hook's ping and two issues refused at once (GitHub never retries them); the other three
    // wait out the 60 s pause; the first is the probe, it succeeds, and the rest follow at once.
    expect(offsets).toEqual([
      [0, 'failed'],
      [0, 'failed'],
      [0, 'failed'],
      [60_000, 'succeeded'],
      [60_000, 'succeeded'],
      [60_000, 'succeeded'],
    ]);
    expect(ci.stats().requests).toBe(6);
    const changes = operations(await walk.exportLog(), 'endpoint_health.').map(
      (e) => e.fields.state,
    );
    expect(changes).toContain('open');
    expect(changes.at(-1)).toBe('healthy');
    await walk.close();
  });

  it('Svix: a 429 with Retry-After: 5 holds the endpoint’s next attempt 5 s of world time', async () => {
    const walk = await openWalk({
      seed: 'health-retry-after',
      start: '2026-05-04T08:00:00Z',
      packs: [standardWebhooks.pack],
    });
    const twin = walk.twin('standard-webhooks');
    const busy = walk.receiver('busy', { script: [{ status: 429, retryAfterSec: 5 }] });
    await standardWebhooks.createEndpoint(twin, { url: busy.url });
    await standardWebhooks.sendMessage(twin, { eventType: 'invoice.paid', payload: { id: 'a' } });
    await walk.settle();
    // A second message, queued while the endpoint waits, waits too (not only the one told).
    await standardWebhooks.sendMessage(twin, { eventType: 'invoice.paid', payload: { id: 'b' } });
    await walk.settle();
    await walk.runUntilIdle();
    const attempts = (await walk.report()).deliveries
      .flatMap((d) => d.attempts)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    const t0 = Date.parse(attempts[0]!.startedAt);
    expect(attempts[0]!.status).toBe(429);
    expect(attempts.slice(1).map((a) => [Date.parse(a.startedAt) - t0 >= 5_000, a.state])).toEqual([
      [true, 'succeeded'],
      [true, 'succeeded'],
    ]);
    // The first attempt after the wait starts exactly when it ends.
    expect(Date.parse(attempts[1]!.startedAt) - t0).toBe(5_000);
    const log = await walk.exportLog();
    expect(operations(log, 'endpoint_health.throttled')[0]!.fields).toMatchObject({
      state: 'throttled',
      reason: 'answered 429 with Retry-After 5 s',
    });
    expect(log.some((l) => l.includes('"heldFor":"retry_after"'))).toBe(true);
    expect(checkDeliveryInvariants(log).violations).toEqual([]);
    await walk.close();
  });

  it('Svix: five days down disables the endpoint and sends endpoint.disabled to the operational endpoints only, signed', async () => {
    const walk = await openWalk({
      seed: 'health-svix-disabled',
      start: '2026-05-04T08:00:00Z',
      packs: [standardWebhooks.pack],
    });
    const twin = walk.twin('standard-webhooks');
    const OPS_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const ops = walk.receiver('ops', {
      verify: { scheme: 'standard-webhooks', secrets: [OPS_SECRET] },
    });
    const other = walk.receiver('other');
    const down = walk.receiver('down', { mix: [{ answer: 503, weight: 1 }] });
    await standardWebhooks.createOperationalEndpoint(twin, { url: ops.url, secret: OPS_SECRET });
    // An app endpoint taking every type is not an operational endpoint: it never hears of it.
    await standardWebhooks.createEndpoint(twin, { url: other.url, filterTypes: null });
    const failing = await standardWebhooks.createEndpoint(twin, {
      url: down.url,
      filterTypes: ['invoice.paid'],
    });
    for (let day = 0; day < 7; day++) {
      await standardWebhooks.sendMessage(twin, {
        eventType: 'invoice.paid',
        payload: { id: `inv_${day}` },
      });
      await walk.settle();
      await walk.advance(DAY);
    }
    await walk.runUntilIdle();
    expect(walk.errors).toEqual([]);
    const disabled = operations(await walk.exportLog(), 'endpoint_health.disabled');
    expect(disabled).toHaveLength(1);
    expect(ops.accepted).toHaveLength(1);
    const got = ops.accepted[0]!;
    expect(got.signature).toBe('valid');
    expect(got.headers['webhook-id']).toMatch(/^msg_/);
    expect(JSON.parse(got.body)).toEqual({
      type: 'endpoint.disabled',
      data: {
        appId: 'app_standard-webhooks',
        appUid: 'standard-webhooks',
        endpointId: failing.id,
        failSince: disabled[0]!.fields.failingSince,
        trigger: 'automatic',
      },
    });
    expect(other.requests.map((r) => JSON.parse(r.body).type as string)).toEqual(
      Array(7).fill('invoice.paid'),
    );
    // Sent through the dispatcher: a delivery record like any other, to the operational endpoint.
    const report = await walk.report();
    const opsDeliveries = report.deliveries.filter((d) => d.eventType === 'endpoint.disabled');
    expect(opsDeliveries.map((d) => d.state)).toEqual(['succeeded']);
    await expect(
      standardWebhooks.createEndpoint(twin, { url: other.url, filterTypes: ['endpoint.disabled'] }),
    ).rejects.toMatchObject({ path: 'filterTypes' });
    await walk.close();
  });

  it('Svix: an endpoint’s throttleRate paces attempts to that many a second, one slot apart, on the world clock', async () => {
    const walk = await openWalk({
      seed: 'health-svix',
      start: '2026-05-04T08:00:00Z',
      packs: [standardWebhooks.pack],
    });
    const twin = walk.twin('standard-webhooks');
    const crm = walk.receiver('crm');
    await standardWebhooks.createEndpoint(twin, { url: crm.url, throttleRate: 2 });
    for (let i = 0; i < 7; i++)
      await standardWebhooks.sendMessage(twin, {
        eventType: 'invoice.paid',
        payload: { id: `inv_${i}` },
      });
    await walk.settle();
    await walk.runUntilIdle();
    const starts = (await walk.report()).deliveries.flatMap((d) =>
      d.attempts.map((a) => a.startedAt),
    );
    expect(starts).toHaveLength(7);
    const perSecond = new Map<string, number>();
    for (const s of starts) perSecond.set(s.slice(0, 19), (perSecond.get(s.slice(0, 19)) ?? 0) + 1);
    expect([...perSecond.values()]).toEqual([2, 2, 2, 1]);
    // Paced in slots: each start one slot (1,050 ms / 2) after the one before, never two at once.
    const times = starts.map((s) => Date.parse(s)).sort((a, b) => a - b);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([525, 525, 525, 525, 525, 525]);
    expect(crm.stats().accepted).toBe(7);
    await expect(
      standardWebhooks.createEndpoint(twin, { url: crm.url, throttleRate: 0 }),
    ).rejects.toMatchObject({
      path: 'throttleRate',
    });
    await walk.close();
  });
});
