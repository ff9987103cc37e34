// The demo walk behind `twinworld demo`: Stripe, GitHub and Slack twins send signed webhooks to
// the ingress host, which verifies them on the world clock and runs routines; a receiver fails
// once so a retry shows; a New York calendar fires as the clock passes 09:30 there.
import { github, slack, stripe } from '../../packs/index.js';
import type { JsonObject, JsonValue } from '../log/json-value.js';
import type { StorageBackend } from '../storage/port.js';
import type { RoutineFn } from '../triggers/in-process-runner.js';
import { mountPrefix } from '../walk/mount-transport.js';
import { openWalk, type Walk } from '../walk/walk.js';
import { startWalkTriggers, type WalkTriggers } from '../walk/walk-triggers.js';

const DEMO_START = '2026-03-02T14:00:00.000Z';
const DEMO_TENANT = 'demo';

export interface DemoOptions {
  readonly seed: string | number;
  /** A folder for the world, or ':memory:' (default); with `backend`, the label of its store. */
  readonly root?: string;
  /** Another storage backend (PostgreSQL): the demo's world is kept there. */
  readonly backend?: StorageBackend;
}

export interface Demo {
  readonly walk: Walk;
  readonly triggers: WalkTriggers;
}

/** The stable URL the packs' endpoints point at; the walk routes it to the ingress host's real port. */
function ingressUrl(provider: string): string {
  return `${mountPrefix('ingress')}ingress/${DEMO_TENANT}/${provider}`;
}

function body(input: JsonValue): JsonObject {
  const b = (input as JsonObject | null)?.body;
  return b !== null && typeof b === 'object' && !Array.isArray(b) ? b : {};
}

function eventType(input: JsonValue): string {
  return String((input as JsonObject | null)?.eventType ?? 'unknown');
}

export async function runDemoWalk(options: DemoOptions): Promise<Demo> {
  const walk = await openWalk({
    seed: options.seed,
    start: DEMO_START,
    ...(options.root === undefined ? {} : { root: options.root }),
    ...(options.backend === undefined ? {} : { backend: options.backend }),
    packs: [stripe.pack, github.pack, slack.pack],
  });
  try {
    const { world } = walk;
    const secretsOf = (ref: string) => () => world.secrets.resolve(ref, world.clock.now());

    // Vendors, each with an endpoint at the ingress; the secrets live in world.secrets only.
    const stripeTwin = walk.twin('stripe');
    const stripeEndpoint = await stripe.createWebhookEndpoint(stripeTwin, {
      url: ingressUrl('stripe'),
      enabled_events: ['*'],
      description: 'trigger ingress',
    });
    const ledger = walk.receiver('ledger', {
      script: [503],
      verify: { scheme: 'stripe', secrets: [stripeEndpoint.secret] },
    });
    await stripe.createWebhookEndpoint(stripeTwin, {
      url: ledger.url,
      enabled_events: ['payment_intent.succeeded'],
      secret: stripeEndpoint.secret,
      description: 'ledger app (fails once)',
    });

    const githubTwin = walk.twin('github');
    await github.createOrganization(githubTwin, { login: 'octo-org' });
    await github.createUser(githubTwin, { login: 'octocat' });
    await github.createRepository(githubTwin, { owner: 'octo-org', name: 'hello-world' });
    const hook = await github.createRepositoryHook(githubTwin, {
      repository: 'octo-org/hello-world',
      url: ingressUrl('github'),
      secret: world.ids.vendorId('ghsec', 32),
      events: ['issues'],
    });

    const slackTwin = walk.twin('slack');
    const team = await slack.createTeam(slackTwin, { name: 'Twinworld' });
    const ada = await slack.createUser(slackTwin, {
      team: team.id,
      name: 'ada',
      real_name: 'Ada Lovelace',
    });
    const general = await slack.createChannel(slackTwin, {
      team: team.id,
      name: 'general',
      creator: ada.id,
    });
    const { app } = await slack.createApp(slackTwin, {
      team: team.id,
      name: 'Twin Bot',
      request_url: ingressUrl('slack'),
      bot_events: ['message.channels', 'app_mention'],
    });

    const routines: Record<string, RoutineFn> = {
      billing: (input) => {
        const object = (body(input).data as JsonObject | undefined)?.object as
          JsonObject | undefined;
        const type = eventType(input);
        const actions: Record<string, string> = {
          'payment_intent.payment_failed': 'send dunning email',
          'payment_intent.succeeded': 'fulfil order',
          'payment_intent.created': 'reserve stock',
        };
        const action = actions[type] ?? 'sync customer';
        return { action, object: String(object?.id ?? '-') };
      },
      triage: (input) => {
        const issue = body(input).issue as JsonObject | undefined;
        return {
          issue: Number(issue?.number ?? 0),
          label: /bug|crash/i.test(String(issue?.title ?? '')) ? 'bug' : 'question',
        };
      },
      chatops: (input) => {
        const event = body(input).event as JsonObject | undefined;
        return { reply: `on it: ${String(event?.text ?? '').replace(/<@\w+>\s*/, '')}` };
      },
      // The calendar's routine writes to a twin: its Slack post goes out as one more webhook.
      standup: async (input) => {
        const wall = String((input as JsonObject | null)?.wallTime ?? '');
        const posted = await slack.postMessage(slackTwin, {
          channel: general.id,
          user: ada.id,
          text: `Stand-up time (${wall} in New York)`,
        });
        return { posted: posted.ts };
      },
    };
    const triggers = await startWalkTriggers(walk, {
      routines,
      routes: [
        { triggerId: 'stripe-events', routine: 'billing' },
        { triggerId: 'github-issues', routine: 'triage', eventTypes: ['issues'] },
        // Plain messages are recorded as filtered; only mentions of the bot run a routine.
        { triggerId: 'slack-events', routine: 'chatops', eventTypes: ['app_mention'] },
        { triggerId: 'standup', routine: 'standup' },
      ],
      webhooks: [
        {
          tenantId: DEMO_TENANT,
          provider: 'stripe',
          triggerId: 'stripe-events',
          scheme: 'stripe',
          resolveSecrets: secretsOf(stripeEndpoint.secret_ref),
        },
        {
          tenantId: DEMO_TENANT,
          provider: 'github',
          triggerId: 'github-issues',
          scheme: 'github',
          resolveSecrets: secretsOf(hook.secret_ref!), // the hook was made with a secret above
        },
        {
          tenantId: DEMO_TENANT,
          provider: 'slack',
          triggerId: 'slack-events',
          scheme: 'slack',
          resolveSecrets: secretsOf(`slack/${app.id}`),
        },
      ],
      calendars: [
        {
          tenantId: DEMO_TENANT,
          triggerId: 'standup',
          cron: '30 9 * * 1-5',
          timezone: 'America/New_York',
        },
      ],
    });

    // The walk's writes, under one trace: every delivery they cause continues it.
    await walk.traced(async () => {
      const customer = await stripe.createCustomer(stripeTwin, {
        email: 'ada@example.com',
        name: 'Ada Lovelace',
      });
      await stripe.createCustomer(stripeTwin, { email: 'grace@example.com', name: 'Grace Hopper' });
      const payment = await stripe.createPaymentIntent(stripeTwin, {
        amount: 4200,
        currency: 'usd',
        customer: customer.id,
        description: 'Analytical Engine, 1 unit',
      });
      await stripe.confirmPaymentIntent(stripeTwin, payment.id, {
        payment_method: 'pm_card_chargeDeclined',
      });
      await stripe.confirmPaymentIntent(stripeTwin, payment.id, { payment_method: 'pm_card_visa' });
      await github.openIssue(githubTwin, {
        repository: 'octo-org/hello-world',
        title: 'Engine crashes on negative numbers',
        body: 'Steps to reproduce: …',
        sender: 'octocat',
      });
      await slack.postMessage(slackTwin, {
        channel: general.id,
        user: ada.id,
        text: `${slack.mention(app.bot_user_id)} deploy the fix please`,
      });
    });
    await walk.settle();
    // An hour passes in milliseconds: the ledger's retry (~15 min), then 09:30 in New York.
    await walk.advance(60 * 60_000);
    return { walk, triggers };
  } catch (error) {
    await walk.close().catch(() => {});
    throw error;
  }
}
