// The deferred-dispatch golden walk: every dispatch option on the walk's virtual clock.
// - A debounced burst: five Stripe customer.updated webhooks, signed and sent through the ingress
//   host, coalesce into one sync that runs 30 s after the last, with the last payload.
// - A delayed reminder: "remind me in an hour" runs an hour later; a second one is cancelled.
// - A concurrency queue: five builds of one repository, at most two at once, drain in order.
// - An expiry: a presence feed that never goes quiet for its quiet period expires at its ttl,
//   and the next ping opens a window that runs.
import { stripe } from '../../packs/index.js';
import type { JsonObject, JsonValue } from '../../src/log/json-value.js';
import { createTriggerEnvelope } from '../../src/triggers/envelope.js';
import { cancelDispatch } from '../../src/triggers/deferred/operations.js';
import type { DeferredAnswer } from '../../src/triggers/answer.js';
import { mountPrefix } from '../../src/walk/mount-transport.js';
import { openWalk, startWalkTriggers, type Walk, type WalkOptions } from '../../src/walk/index.js';

const TENANT = 'shop';

function custom(walk: Walk, triggerId: string, n: number, payload: JsonValue) {
  const at = new Date(walk.clock.now()).toISOString();
  return createTriggerEnvelope({
    tenantId: TENANT,
    scopeId: TENANT,
    source: { kind: 'custom', provider: 'app' },
    triggerId,
    eventId: `${triggerId}-${n}`,
    dedupeKey: `${triggerId}:${n}`,
    occurredAt: at,
    scheduledAt: at,
    payload,
  });
}

export async function deferredWalk(options: Partial<WalkOptions> = {}): Promise<Walk> {
  const walk = await openWalk({
    seed: 'walk-deferred',
    start: '2026-03-02T10:00:00.000Z',
    packs: [stripe.pack],
    ...options,
  });
  const { world } = walk;
  const stripeTwin = walk.twin('stripe');
  const endpoint = await stripe.createWebhookEndpoint(stripeTwin, {
    url: `${mountPrefix('ingress')}ingress/${TENANT}/stripe`,
    enabled_events: ['customer.updated'],
    description: 'customer sync',
  });
  const customerOf = (input: JsonValue) =>
    (((input as JsonObject).body as JsonObject).data as JsonObject).object as JsonObject;
  const triggers = await startWalkTriggers(walk, {
    routines: {
      'sync-customer': (input) => ({
        synced: customerOf(input).id ?? null,
        name: customerOf(input).name ?? null,
      }),
      remind: (input) => ({ reminded: (input as JsonObject).user ?? null }),
      build: (input) => ({ built: (input as JsonObject).sha ?? null }),
      presence: (input) => ({ seen: (input as JsonObject).status ?? null }),
    },
    routes: [
      {
        triggerId: 'stripe-customers',
        routine: 'sync-customer',
        dispatch: {
          debounce: { key: 'payload.body.data.object.id', period: 30_000, maxWait: 300_000 },
        },
      },
      { triggerId: 'trial-reminder', routine: 'remind', dispatch: { delay: 3_600_000 } },
      {
        triggerId: 'ci-build',
        routine: 'build',
        dispatch: { concurrency: { limit: 2, key: 'payload.repo' } },
      },
      {
        triggerId: 'presence',
        routine: 'presence',
        dispatch: { debounce: { key: 'payload.user', period: 30_000 }, ttl: 60_000 },
      },
    ],
    webhooks: [
      {
        tenantId: TENANT,
        provider: 'stripe',
        triggerId: 'stripe-customers',
        scheme: 'stripe',
        resolveSecrets: () => world.secrets.resolve(endpoint.secret_ref, world.clock.now()),
      },
    ],
  });
  const { engine } = triggers;

  // A debounced burst: five edits two seconds apart, one sync 30 s after the last.
  const customer = await stripe.createCustomer(stripeTwin, { email: 'ada@example.com' });
  for (const [i, name] of [
    'Ada',
    'Ada L',
    'Ada Lovelace',
    'A. Lovelace',
    'Ada Lovelace',
  ].entries()) {
    if (i > 0) await walk.advance(2_000);
    await stripe.updateCustomer(stripeTwin, customer.id, { name, metadata: { edit: String(i) } });
    await walk.settle();
  }

  // Two reminders in an hour; the second is called off.
  await engine.ingest(custom(walk, 'trial-reminder', 1, { user: 'ada' }));
  const second = (await engine.ingest(
    custom(walk, 'trial-reminder', 2, { user: 'grace' }),
  )) as DeferredAnswer;
  await walk.advance(10_000);
  await cancelDispatch(world, second.dispatchId);

  // Five builds of one repository at once, and one of another: two at a time per repository.
  for (let n = 1; n <= 5; n++)
    await engine.ingest(custom(walk, 'ci-build', n, { repo: 'octo/engine', sha: `c0${n}` }));
  await engine.ingest(custom(walk, 'ci-build', 6, { repo: 'octo/docs', sha: 'd01' }));

  // A presence feed pinging every 20 s never has a 30 s quiet period: its first window expires
  // at its 60 s ttl; the window the next ping opens goes quiet after the fifth, and runs.
  for (let n = 1; n <= 5; n++) {
    await engine.ingest(custom(walk, 'presence', n, { user: 'ada', status: `typing ${n}` }));
    await walk.advance(20_000);
  }

  await walk.advance(2 * 3_600_000);
  await walk.runUntilIdle();
  return walk;
}
