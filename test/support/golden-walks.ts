// The golden walks: one seeded walk per pack and one for the trigger ingress, with receivers that
// fail on purpose so retries, unknown outcomes and redeliveries are in the log. Saved as
// fixtures/walk-*.jsonl by write-walk-fixtures.ts; tests check a rerun writes the same bytes.
import { github, slack, standardWebhooks, stripe } from '../../packs/index.js';
import { runDemoWalk } from '../../src/cli/demo-walk.js';
import type { JsonValue } from '../../src/log/json-value.js';
import type { RoutineContext } from '../../src/triggers/in-process-runner.js';
import { waitRoutine } from '../../src/triggers/routines/wait-routine.js';
import { openWalk, startWalkSchedules, type Walk, type WalkOptions } from '../../src/walk/index.js';
import { githubPullRequestWalk, slackConversationWalk } from './golden-walks-lives.js';
import { deferredWalk } from './golden-walk-deferred.js';
import { endpointHealthWalk } from './golden-walk-health.js';

export interface GoldenWalk {
  readonly name: string;
  /** `options` are added to the walk's (a storage backend, say); the log must not change. */
  readonly run: (options?: Partial<WalkOptions>) => Promise<Walk>;
}

const STRIPE_SECRET = 'whsec_golden_stripe_0123456789abcdef';
const GITHUB_SECRET = 'golden-github-secret';
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Stripe: retries on the test-mode schedule (15 min, 1 h, 3 h ± 10%), one endpoint exhausted. */
async function stripeWalk(options: Partial<WalkOptions> = {}): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-stripe',
    start: '2026-03-02T09:00:00.000Z',
    packs: [stripe.pack],
    ...options,
  });
  const twin = walk.twin('stripe');
  const shop = walk.receiver('shop', {
    script: [500, 'timeout'],
    verify: { scheme: 'stripe', secrets: [STRIPE_SECRET] },
  });
  const down = walk.receiver('down', { mix: [{ answer: 503, weight: 1 }] });
  await stripe.createWebhookEndpoint(twin, {
    url: shop.url,
    enabled_events: ['*'],
    secret: STRIPE_SECRET,
  });
  await stripe.createWebhookEndpoint(twin, {
    url: down.url,
    enabled_events: ['payment_intent.succeeded'],
    secret: STRIPE_SECRET,
  });
  await walk.traced(async () => {
    const ada = await stripe.createCustomer(twin, {
      email: 'ada@example.com',
      name: 'Ada Lovelace',
    });
    await stripe.createCustomer(twin, { email: 'grace@example.com', name: 'Grace Hopper' });
    const pi = await stripe.createPaymentIntent(twin, {
      amount: 2000,
      currency: 'usd',
      customer: ada.id,
    });
    await stripe.confirmPaymentIntent(twin, pi.id, { payment_method: 'pm_card_chargeDeclined' });
    await stripe.confirmPaymentIntent(twin, pi.id, { payment_method: 'pm_card_visa' });
  });
  await walk.settle();
  await walk.runUntilIdle();
  return walk;
}

/**
 * Stripe billing: a subscription month on the world clock, as a Stripe test clock runs it — one
 * subscriber renews and pays; one with a card that declines leaves its trial, goes past_due,
 * is retried on the schedule and canceled. The app's endpoint fails once.
 */
async function stripeBillingWalk(): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-stripe-billing',
    start: '2026-03-02T09:00:00.000Z',
    packs: [stripe.pack],
  });
  const twin = walk.twin('stripe');
  const app = walk.receiver('billing', {
    script: [500],
    verify: { scheme: 'stripe', secrets: [STRIPE_SECRET] },
  });
  await stripe.createWebhookEndpoint(twin, {
    url: app.url,
    enabled_events: ['*'],
    secret: STRIPE_SECRET,
  });
  await walk.traced(() => stripe.subscriptionMonth(walk, twin));
  await walk.runUntilIdle();
  return walk;
}

/** GitHub: no retries — a failed and an unknown attempt are redelivered by the operator. */
async function githubWalk(): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-github',
    start: '2026-03-02T10:00:00.000Z',
    packs: [github.pack],
  });
  const twin = walk.twin('github');
  const ci = walk.receiver('ci', {
    script: [502],
    verify: { scheme: 'github', secrets: [GITHUB_SECRET] },
  });
  const audit = walk.receiver('audit', { script: ['accept-then-crash'] });
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
  await github.createRepositoryHook(twin, {
    repository: 'octo-org/hello-world',
    url: ci.url,
    secret: GITHUB_SECRET,
    events: ['issues', 'pull_request'],
  });
  await github.createOrganizationHook(twin, {
    organization: 'octo-org',
    url: audit.url,
    secret: GITHUB_SECRET,
    events: ['issues'],
  });
  await walk.traced(async () => {
    const issue = await github.openIssue(twin, {
      repository: 'octo-org/hello-world',
      title: 'Found a bug',
      body: 'It crashes.',
      sender: 'octocat',
    });
    await github.closeIssue(twin, {
      repository: 'octo-org/hello-world',
      number: issue.number,
      sender: 'octocat',
    });
    await github.openPullRequest(twin, {
      repository: 'octo-org/hello-world',
      title: 'Fix the bug',
      head: 'fix-bug',
      sender: 'octocat',
    });
  });
  await walk.settle();
  await walk.advance(10 * 60_000);
  // GitHub never retries: the operator redelivers what did not succeed, keeping X-GitHub-Delivery.
  for (const d of (await walk.report()).deliveries)
    if (d.state !== 'succeeded') await walk.dispatcher.redeliver(d.id);
  await walk.settle();
  return walk;
}

/** Slack: three retries (at once, ~1 min, ~5 min) with X-Slack-Retry-Num/-Reason; one app mention. */
async function slackWalk(): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-slack',
    start: '2026-03-02T11:00:00.000Z',
    packs: [slack.pack],
  });
  const twin = walk.twin('slack');
  const bot = walk.receiver('bot', {
    script: ['timeout', 500, 'reset'],
    verify: { scheme: 'slack', secrets: [SLACK_SECRET] },
  });
  const team = await slack.createTeam(twin, { name: 'Twinworld' });
  const ada = await slack.createUser(twin, {
    team: team.id,
    name: 'ada',
    real_name: 'Ada Lovelace',
  });
  const general = await slack.createChannel(twin, {
    team: team.id,
    name: 'general',
    creator: ada.id,
  });
  const { app } = await slack.createApp(twin, {
    team: team.id,
    name: 'Twin App',
    request_url: bot.url,
    signing_secret: SLACK_SECRET,
    bot_events: ['message.channels', 'app_mention'],
  });
  await walk.traced(async () => {
    await slack.postMessage(twin, {
      channel: general.id,
      user: ada.id,
      text: `${slack.mention(app.bot_user_id)} deploy please`,
    });
  });
  await walk.settle();
  await walk.runUntilIdle();
  await slack.postMessage(twin, { channel: general.id, user: ada.id, text: 'thanks!' });
  await walk.settle();
  return walk;
}

/** Standard Webhooks: 429 with Retry-After honoured, a secret rotation, an endpoint gone for good (410). */
async function standardWebhooksWalk(): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-standard-webhooks',
    start: '2026-03-02T12:00:00.000Z',
    packs: [standardWebhooks.pack],
  });
  const twin = walk.twin('standard-webhooks');
  const crm = walk.receiver('crm', {
    script: [{ status: 429, retryAfterSec: 120 }],
    verify: {
      scheme: 'standard-webhooks',
      secrets: () =>
        walk.world.secrets.resolve(
          `standard-webhooks/${endpoint.id}`,
          walk.clock.now(),
        ) as string[],
    },
  });
  const gone = walk.receiver('gone', { mix: [{ answer: 410, weight: 1 }] });
  const endpoint = await standardWebhooks.createEndpoint(twin, {
    url: crm.url,
    secret: SW_SECRET,
    filterTypes: null,
  });
  await standardWebhooks.createEndpoint(twin, { url: gone.url, filterTypes: ['invoice.paid'] });
  await walk.traced(async () => {
    await standardWebhooks.sendMessage(twin, {
      eventType: 'contact.created',
      payload: { id: 'contact_01', name: 'Ada Lovelace' },
    });
  });
  await walk.settle();
  await walk.advance(5 * 60_000);
  await standardWebhooks.rotateEndpointSecret(twin, endpoint.id, { graceMs: 3600_000 });
  await standardWebhooks.sendMessage(twin, {
    eventType: 'invoice.paid',
    payload: { id: 'inv_01', amount_paid: 2000, currency: 'usd' },
  });
  await walk.settle();
  await walk.runUntilIdle();
  return walk;
}

/**
 * The nightly report takes three hours, thirty on Tuesdays and fifty on Fridays (by the wall
 * day of its occurrence), so the week shows a buffered night, a night skipped behind a full buffer,
 * and promotions as slow runs end.
 */
async function slowReport(input: JsonValue, ctx: RoutineContext): Promise<JsonValue> {
  const wall = String((ctx.envelope.payload as { wallTime?: unknown }).wallTime);
  const day = new Date(`${wall}:00Z`).getUTCDay();
  const hours = day === 2 ? 30 : day === 5 ? 50 : 3;
  await waitRoutine()({ ms: hours * 3600_000 }, ctx);
  return { rows: (input as { rows?: JsonValue }).rows ?? null, hours };
}

/** A week of a nightly schedule (02:30 New York, across the DST gap) with a slow routine. */
async function schedulesWalk(options: Partial<WalkOptions> = {}): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-schedules',
    start: '2026-03-02T00:00:00.000Z',
    ...options,
  });
  await startWalkSchedules(walk, {
    routines: { report: slowReport },
    leaseMs: 6 * 3600_000,
    hostBeatMs: 3600_000,
    schedules: [
      {
        tenantId: 'acme',
        scheduleId: 'nightly-report',
        cron: '30 2 * * *',
        timezone: 'America/New_York',
        routine: 'report',
        input: { rows: 1000 },
        overlap: 'buffer:1:oldest',
      },
    ],
  });
  await walk.advanceTo('2026-03-09T12:00:00.000Z');
  return walk;
}

export const goldenWalks: readonly GoldenWalk[] = [
  { name: 'walk-stripe', run: stripeWalk },
  { name: 'walk-stripe-billing', run: stripeBillingWalk },
  { name: 'walk-github', run: githubWalk },
  { name: 'walk-slack', run: slackWalk },
  { name: 'walk-standard-webhooks', run: standardWebhooksWalk },
  // The trigger ingress: the demo walk (webhooks through the ingress host on 127.0.0.1, a calendar).
  { name: 'walk-triggers', run: async () => (await runDemoWalk({ seed: 'walk-triggers' })).walk },
  // Schedules: a week of a nightly report that sometimes runs longer than a day.
  { name: 'walk-schedules', run: schedulesWalk },
  // The packs' walk-callable scenarios: a pull request's life, a Slack conversation.
  { name: 'walk-github-pull-request', run: githubPullRequestWalk },
  { name: 'walk-slack-conversation', run: slackConversationWalk },
  // Deferred dispatch: a debounced burst, a delayed reminder, a concurrency queue, an expiry.
  { name: 'walk-deferred', run: deferredWalk },
  // Endpoint health: each vendor's rule over days of outage (degraded, throttled, breaker, disabled).
  { name: 'walk-endpoint-health', run: endpointHealthWalk },
];
