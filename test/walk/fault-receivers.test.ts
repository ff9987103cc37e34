// Fault-injecting receivers drive the vendors' own retry schedules on the virtual clock: Stripe
// to exhaustion over hours, Slack's three quick retries with their headers, unknown outcomes from
// timeouts, resets and accept-then-crash, Retry-After, 410, and recovery after a crashed claim.
import { describe, expect, it } from 'vitest';
import { slack, standardWebhooks, stripe } from '../../packs/index.js';
import { isoAt, isTwinError, type Pack } from '../../src/index.js';
import { decideClaim } from '../../src/events/delivery-records.js';
import { checkDeliveryInvariants, openWalk, validateFaultProfile } from '../../src/walk/index.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';

const STRIPE_SECRET = 'whsec_test_walk_secret_0123456789';
const HOUR = 3600_000;

function gaps(times: string[]): number[] {
  return times.slice(1).map((t, i) => Date.parse(t) - Date.parse(times[i]!));
}

async function stripeWalk(
  profile: Parameters<Awaited<ReturnType<typeof openWalk>>['receiver']>[1],
  seed = 'faults',
) {
  const walk = await openWalk({ seed, start: '2026-05-04T08:00:00Z', packs: [stripe.pack] });
  const twin = walk.twin('stripe');
  const receiver = walk.receiver('app', profile);
  await stripe.createWebhookEndpoint(twin, {
    url: receiver.url,
    enabled_events: ['customer.created'],
    secret: STRIPE_SECRET,
  });
  await stripe.createCustomer(twin, { email: 'ada@example.com' });
  await walk.settle();
  return { walk, twin, receiver };
}

describe('fault-injecting receivers', () => {
  it('drive Stripe retries to exhaustion: 1 + 3 attempts over about four hours, in milliseconds', async () => {
    const started = performance.now();
    const { walk, receiver } = await stripeWalk({ mix: [{ answer: 500, weight: 1 }] });
    await walk.runUntilIdle();
    const [d] = (await walk.report()).deliveries;
    expect(d).toMatchObject({ state: 'failed', acceptedAt: null, nextAttemptAt: null });
    expect(d!.attempts.map((a) => [a.kind, a.state, a.status])).toEqual([
      ['first', 'failed', 500],
      ['retry', 'failed', 500],
      ['retry', 'failed', 500],
      ['retry', 'failed', 500],
    ]);
    // The pack's schedule (15 min, 1 h, 3 h) with ±10% seeded jitter.
    const g = gaps(d!.attempts.map((a) => a.startedAt));
    [15 * 60_000, HOUR, 3 * HOUR].forEach((base, i) => {
      expect(g[i]).toBeGreaterThanOrEqual(base * 0.9);
      expect(g[i]).toBeLessThanOrEqual(base * 1.1);
    });
    expect(Date.parse((await walk.report()).clock.now) - Date.parse(walk.start)).toBeGreaterThan(
      3.5 * HOUR,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(receiver.stats()).toEqual({
      requests: 4,
      accepted: 0,
      unanswered: 0,
      acceptedButUnknown: 0,
    });
    expect(walk.clock.pending()).toBe(0);
    expect(checkDeliveryInvariants(await walk.exportLog()).violations).toEqual([]);
    await walk.close();
  });

  it('drive Slack retries: at once, ~1 min, ~5 min, with X-Slack-Retry-Num and -Reason', async () => {
    const walk = await openWalk({
      seed: 'slack-faults',
      start: '2026-05-04T08:00:00Z',
      packs: [slack.pack],
    });
    const twin = walk.twin('slack');
    const bot = walk.receiver('bot', {
      script: ['timeout', 503, 'refused'],
      mix: [{ answer: 503, weight: 1 }],
      verify: { scheme: 'slack', secrets: ['slack-signing-secret-0001'] },
    });
    const team = await slack.createTeam(twin, { name: 'T' });
    const user = await slack.createUser(twin, { team: team.id, name: 'ada' });
    const channel = await slack.createChannel(twin, {
      team: team.id,
      name: 'general',
      creator: user.id,
    });
    await slack.createApp(twin, {
      team: team.id,
      name: 'Bot',
      request_url: bot.url,
      signing_secret: 'slack-signing-secret-0001',
      bot_events: ['message.channels'],
    });
    await slack.postMessage(twin, { channel: channel.id, user: user.id, text: 'hello' });
    await walk.runUntilIdle();
    const [d] = (await walk.report()).deliveries;
    expect(d!.state).toBe('failed');
    expect(d!.attempts.map((a) => `${a.state}:${a.reason}`)).toEqual([
      'unknown:timeout',
      'failed:http_status',
      'failed:not_sent',
      'failed:http_status',
    ]);
    expect(gaps(d!.attempts.map((a) => a.startedAt))).toEqual([0, 60_000, 300_000]);
    // What the receiver got: retry numbers and reasons named after the attempt before.
    expect(
      bot.requests.map((r) => [r.headers['X-Slack-Retry-Num'], r.headers['X-Slack-Retry-Reason']]),
    ).toEqual([
      [undefined, undefined],
      ['1', 'http_timeout'],
      ['2', 'http_error'],
      ['3', 'connection_failed'],
    ]);
    // Signed on the world clock, so the receiver's check against that clock passes every time.
    expect(
      bot.requests.filter((r) => r.signature !== 'unchecked').every((r) => r.signature === 'valid'),
    ).toBe(true);
    expect(bot.requests.map((r) => r.packet?.attempt)).toEqual([1, 2, 3, 4]);
    await walk.close();
  });

  it('turn timeouts, resets and accept-then-crash into unknown; the retry reaches a receiver that already has it', async () => {
    const { walk, receiver } = await stripeWalk({
      script: ['accept-then-crash', 'reset', 'timeout'],
    });
    await walk.runUntilIdle();
    const [d] = (await walk.report()).deliveries;
    expect(d!.attempts.map((a) => `${a.state}:${a.reason}`)).toEqual([
      'unknown:connection_reset',
      'unknown:connection_reset',
      'unknown:timeout',
      'succeeded:http_status',
    ]);
    expect(d!.state).toBe('succeeded');
    // The first attempt was in fact accepted: the receiver holds the same event twice (at least once).
    expect(receiver.accepted.map((r) => r.packet?.attempt)).toEqual([1, 4]);
    expect(new Set(receiver.accepted.map((r) => JSON.parse(r.body).id)).size).toBe(1);
    expect(receiver.stats().acceptedButUnknown).toBe(1);
    await walk.close();
  });

  it('compare virtual latency with the sender timeout: too slow is a timeout, though the receiver processed it', async () => {
    const { walk, receiver } = await stripeWalk({ latencyMs: 30_000 });
    const [first] = (await walk.report()).deliveries[0]!.attempts;
    expect(first).toMatchObject({ state: 'unknown', reason: 'timeout' });
    expect(receiver.requests[0]).toMatchObject({
      latencyMs: 30_000,
      senderSaw: 'timeout',
      accepted: true,
    });
    await walk.close();
    const fast = await stripeWalk({ latencyMs: [10, 200] });
    expect((await fast.walk.report()).deliveries[0]!.state).toBe('succeeded');
    expect(fast.receiver.requests[0]!.latencyMs).toBeGreaterThanOrEqual(10);
    await fast.walk.close();
  });

  it('answer 429 with Retry-After, honoured by a policy that says so (Svix); 410 stops a policy that stops on it', async () => {
    const walk = await openWalk({
      seed: '429',
      start: '2026-05-04T08:00:00Z',
      packs: [standardWebhooks.pack],
    });
    const twin = walk.twin('standard-webhooks');
    const crm = walk.receiver('crm', { script: [{ status: 429, retryAfterSec: 600 }] });
    await standardWebhooks.createEndpoint(twin, { url: crm.url });
    await standardWebhooks.sendMessage(twin, {
      eventType: 'invoice.paid',
      payload: { id: 'inv_1' },
    });
    await walk.runUntilIdle();
    const [d] = (await walk.report()).deliveries;
    expect(d!.attempts.map((a) => a.status)).toEqual([429, 200]);
    // Svix would retry after ~5 s; the receiver asked for 600 s and got them.
    expect(gaps(d!.attempts.map((a) => a.startedAt))).toEqual([600_000]);
    await walk.close();

    const retry = {
      delaysMs: [60_000, 60_000],
      retryOn: ['failed', 'unknown'] as const,
      stopOnStatus: [410],
    };
    const acme = await openWalk({
      seed: '410',
      packs: [acmePack({ ...retry, retryOn: [...retry.retryOn] }) as Pack],
    });
    const gone = acme.receiver('gone', { script: [410] });
    await acme.world.secrets.set('ep', ACME_SECRET);
    const t = acme.twin('acme');
    await t.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: gone.url, secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await t.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: {},
    });
    await acme.runUntilIdle();
    expect((await acme.report()).deliveries[0]).toMatchObject({
      state: 'failed',
      nextAttemptAt: null,
      attempts: [{ status: 410 }],
    });
    await acme.close();
  });

  it('a mix is drawn from the receiver seed: same seed, same answers; another seed, others', async () => {
    const mix = [
      { answer: 200, weight: 3 },
      { answer: 500, weight: 1 },
      { answer: 'reset' as const, weight: 1 },
    ];
    const answers = async (seed: string) => {
      const walk = await openWalk({ seed, packs: [stripe.pack] });
      const r = walk.receiver('app', { mix, seed: 'fixed-receiver-seed' });
      const twin = walk.twin('stripe');
      await stripe.createWebhookEndpoint(twin, {
        url: r.url,
        enabled_events: ['*'],
        secret: STRIPE_SECRET,
      });
      for (let i = 0; i < 20; i++) await stripe.createCustomer(twin, { name: `c${i}` });
      await walk.settle();
      await walk.close();
      return r.requests.map((q) => q.answer);
    };
    const a = await answers('one');
    expect(await answers('two')).toEqual(a);
    expect(new Set(a)).toEqual(new Set(['200', '500', 'reset']));
  });

  it('recovery after a crashed claim: the record is marked unknown, never resent blindly; the operator redelivers', async () => {
    const { walk, twin, receiver } = await stripeWalk({});
    await stripe.createCustomer(twin, { email: 'bob@example.com' });
    // A process claims the new record, then dies before sending: the claim is all that is left.
    const record = (await twin.list('webhook_delivery')).find((r) => r.fields.state === 'queued')!;
    const now = walk.clock.now();
    await twin.applyAtomic((view) =>
      decideClaim(view, 'webhook_delivery', record.id, 'first', isoAt(now), now),
    );
    await walk.settle();
    expect((await twin.get('webhook_delivery', record.id))!.fields.state).toBe('sending');
    expect(receiver.requests).toHaveLength(1);
    await walk.advance(60_000);
    const recovered = await walk.dispatcher.recover({ staleAfterMs: 30_000 });
    expect(recovered.markedUnknown).toEqual([record.id]);
    expect((await twin.get('webhook_delivery', record.id))!.fields).toMatchObject({
      state: 'unknown',
      attempts: 1,
    });
    await walk.advance(24 * HOUR);
    expect(receiver.requests).toHaveLength(1);
    const again = await walk.dispatcher.redeliver(record.id);
    expect(again).toMatchObject({ number: 2, kind: 'redeliver', outcome: 'succeeded' });
    expect(receiver.requests).toHaveLength(2);
    const report = checkDeliveryInvariants(await walk.exportLog());
    expect(report.violations).toEqual([]);
    expect(report.claims).toBe(3);
    await walk.close();
  });

  it('refuse a bad profile with a typed error naming the option', () => {
    const bad = (p: unknown, path: string) => {
      try {
        validateFaultProfile(p, 'p');
        expect.unreachable();
      } catch (error) {
        expect(isTwinError(error, 'INVALID_ARGUMENT')).toBe(true);
        expect((error as { path: string }).path).toBe(path);
      }
    };
    bad({ script: ['explode'] }, 'p.script[0]');
    bad({ script: [99] }, 'p.script[0]');
    bad({ mix: [{ answer: 200, weight: 0 }] }, 'p.mix[0].weight');
    bad({ mix: [] }, 'p.mix');
    bad({ latencyMs: [5, 1] }, 'p.latencyMs');
    bad({ script: [{ status: 429, retryAfterSec: -1 }] }, 'p.script[0].retryAfterSec');
    bad({ statuses: [500] }, 'p.statuses');
    bad({ verify: { scheme: 'nope', secrets: [] } }, 'p.verify.scheme');
    bad(
      { outages: [{ from: '2026-05-05T00:00:00Z', until: '2026-05-04T00:00:00Z' }] },
      'p.outages[0]',
    );
    bad(
      { outages: [{ from: '2026-05-04T00:00:00Z', until: '2026-05-05T00:00:00Z', answer: 'x' }] },
      'p.outages[0].answer',
    );
  });

  it('an outage answers for days of world time; the script waits for it to end', async () => {
    const { walk, twin, receiver } = await stripeWalk({
      script: [502],
      outages: [{ from: '2026-05-04T08:00:00Z', until: '2026-05-06T08:00:00Z', answer: 'refused' }],
    });
    await walk.advance(3 * 24 * HOUR);
    await stripe.createCustomer(twin, { email: 'grace@example.com' });
    await walk.settle();
    await walk.runUntilIdle();
    const answers = receiver.requests.map((r) => [r.at < '2026-05-06T08:00:00.000Z', r.answer]);
    // Inside the outage every answer is the outage's; after it, the script's 502, then the default.
    // (the first customer's four attempts all fell inside it; the second's retry is answered).
    expect(answers.filter(([inside]) => inside).map(([, a]) => a)).toEqual(
      Array(4).fill('refused'),
    );
    expect(answers.filter(([inside]) => !inside).map(([, a]) => a)).toEqual(['502', '200']);
    await walk.close();
  });

  it('a receiver that verifies refuses a packet signed with another secret (401, not accepted)', async () => {
    const { walk, receiver } = await stripeWalk({
      verify: { scheme: 'stripe', secrets: ['whsec_someone_else'] },
    });
    expect(receiver.requests[0]).toMatchObject({
      signature: 'invalid',
      senderSaw: 401,
      accepted: false,
    });
    expect((await walk.report()).deliveries[0]!.attempts[0]).toMatchObject({
      state: 'failed',
      status: 401,
    });
    await walk.close();
  });
});
