// The golden endpoint-health walk: each vendor's rule lived through on the world clock, against
// fault receivers that go down for days. Stripe degrades and disables after nine days; a GitHub
// hook's breaker opens on refused connections and a probe closes it (GitHub never disables);
// Slack turns an app's events off after an hour of failures; a Svix endpoint is throttled by its
// throttleRate and by a 429's Retry-After, recovers, then is disabled after five days, and
// its operational endpoint is sent `endpoint.disabled`.
// Saved as fixtures/walk-endpoint-health.* by write-walk-fixtures.ts.
import { github, slack, standardWebhooks, stripe } from '../../packs/index.js';
import { openWalk, type Walk, type WalkOptions } from '../../src/walk/index.js';
import { githubHookedRepo } from './github-hooked-repo.js';

const START = Date.parse('2026-05-04T08:00:00.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const at = (ms: number): string => new Date(START + ms).toISOString();

export async function endpointHealthWalk(options: Partial<WalkOptions> = {}): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-endpoint-health',
    start: at(0),
    packs: [stripe.pack, github.pack, slack.pack, standardWebhooks.pack],
    ...options,
  });
  const stripeTwin = walk.twin('stripe');
  const githubTwin = walk.twin('github');
  const slackTwin = walk.twin('slack');
  const swTwin = walk.twin('standard-webhooks');
  const shop = walk.receiver('stripe-shop', { outages: [{ from: at(HOUR), until: at(30 * DAY) }] });
  const ci = walk.receiver('github-ci', {
    outages: [{ from: at(HOUR), until: at(HOUR + 30_000), answer: 'refused' }],
  });
  const bot = walk.receiver('slack-bot', {
    outages: [{ from: at(2 * HOUR), until: at(30 * DAY), answer: 500 }],
  });
  const crm = walk.receiver('svix-crm', {
    outages: [
      {
        from: at(4 * HOUR),
        until: at(4 * HOUR + 1_000),
        answer: { status: 429, retryAfterSec: 30 },
      },
      { from: at(5 * HOUR), until: at(30 * DAY) },
    ],
  });

  await stripe.createWebhookEndpoint(stripeTwin, {
    url: shop.url,
    enabled_events: ['customer.created'],
    secret: 'whsec_golden_health_0123456789abcdef',
  });
  await githubHookedRepo(githubTwin, {
    repo: 'engine',
    url: ci.url,
    secret: 'golden-github-secret',
  });
  const team = await slack.createTeam(slackTwin, { name: 'Twinworld' });
  const ada = await slack.createUser(slackTwin, { team: team.id, name: 'ada' });
  const general = await slack.createChannel(slackTwin, {
    team: team.id,
    name: 'general',
    creator: ada.id,
  });
  await slack.createApp(slackTwin, {
    team: team.id,
    name: 'Twin App',
    request_url: bot.url,
    signing_secret: '8f742231b10e8888abcd99yyyzzz85a5',
    bot_events: ['message.channels'],
  });
  await standardWebhooks.createEndpoint(swTwin, { url: crm.url, throttleRate: 2 });
  // Svix's operational webhooks: the sender hears of the disabling as `endpoint.disabled`.
  const ops = walk.receiver('svix-ops');
  await standardWebhooks.createOperationalEndpoint(swTwin, { url: ops.url });

  // Svix: five messages at once through a throttleRate of 2 a second.
  for (let i = 0; i < 5; i++)
    await standardWebhooks.sendMessage(swTwin, {
      eventType: 'invoice.paid',
      payload: { id: `inv_${i}` },
    });
  await stripe.createCustomer(stripeTwin, { email: 'first@example.com' });
  await walk.settle();

  // GitHub: three refused connections open the breaker; two more issues wait out its minute; the
  // probe after it is answered, and the breaker closes.
  await walk.advanceTo(at(HOUR));
  for (let i = 0; i < 5; i++) {
    await github.openIssue(githubTwin, {
      repository: 'octo-org/engine',
      sender: 'octocat',
      title: `Bug ${i}`,
    });
    await walk.settle();
  }

  // Slack: a message every ten minutes into a Request URL that answers 500 for more than an hour.
  await walk.advanceTo(at(2 * HOUR));
  for (let i = 0; i < 8; i++) {
    await slack.postMessage(slackTwin, { channel: general.id, user: ada.id, text: `ping ${i}` });
    await walk.settle();
    await walk.advance(10 * 60_000);
  }

  // Svix: a 429 with Retry-After 30 holds the endpoint; the next message waits too.
  await walk.advanceTo(at(4 * HOUR));
  for (let i = 0; i < 2; i++) {
    await standardWebhooks.sendMessage(swTwin, {
      eventType: 'invoice.paid',
      payload: { id: `inv_busy_${i}` },
    });
    await walk.settle();
  }

  // Days of outage: a customer and a message a day, until Stripe's nine days have run.
  await walk.advanceTo(at(6 * HOUR));
  for (let day = 0; day < 11; day++) {
    await stripe.createCustomer(stripeTwin, { email: `day${day}@example.com` });
    await standardWebhooks.sendMessage(swTwin, {
      eventType: 'invoice.paid',
      payload: { id: `inv_day_${day}` },
    });
    await walk.settle();
    await walk.advance(DAY);
  }
  await walk.runUntilIdle();
  return walk;
}
