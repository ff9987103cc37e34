// Two claims of the Stripe surface about worlds rather than routes. A seeded script run twice —
// once on SQLite, once on PostgreSQL — writes the same vendor objects and sends the same webhook
// bodies, although stripe-node draws a random Idempotency-Key for every POST (keys live beside the
// log, not in it). And several hosts (separate World and store objects, as separate processes
// would have) on one PostgreSQL world serve one twin: writes through either, consistent reads
// through both, and each event sent once.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../src/index.js';
import { collect, homes } from '../support/backends.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_sameScriptTwice';
const START = Date.parse('2026-08-01T00:00:00Z');

function client(twin: StripeTwin): Stripe {
  return new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
}

/**
 * A sequential script touching most families: customers, cards, payments, catalog, billing,
 * Checkout, setup intents, a test clock. `settle` runs after each call (nothing: the webhooks a
 * call causes race the next call).
 */
async function script(stripe: Stripe, hooks: string, settle: () => Promise<void>): Promise<void> {
  const step = async <T>(call: Promise<T>): Promise<T> => {
    const answer = await call;
    await settle();
    return answer;
  };
  await step(stripe.webhookEndpoints.create({ url: hooks, enabled_events: ['*'] }));
  const customer = await step(stripe.customers.create({ email: 'same@example.com', name: 'Same' }));
  await step(stripe.customers.update(customer.id, { metadata: { run: 'any' } }));
  const pm = await step(stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id }));
  await step(
    stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } }),
  );
  const pi = await step(
    stripe.paymentIntents.create({
      amount: 4200,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
    }),
  );
  await step(stripe.refunds.create({ payment_intent: pi.id, amount: 200 }));
  await step(
    stripe.paymentIntents
      .create({
        amount: 100,
        currency: 'usd',
        payment_method: 'pm_card_chargeDeclined',
        confirm: true,
      })
      .catch(() => undefined),
  );
  const product = await step(stripe.products.create({ name: 'Same plan' }));
  const price = await step(
    stripe.prices.create({
      product: product.id,
      unit_amount: 1500,
      currency: 'usd',
      recurring: { interval: 'month' },
    }),
  );
  await step(stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] }));
  const once = await step(
    stripe.prices.create({ product: product.id, unit_amount: 700, currency: 'usd' }),
  );
  const session = await step(
    stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [{ price: once.id, quantity: 3 }],
      success_url: 'https://app.example/done',
    }),
  );
  await step(stripe.rawRequest('POST', new URL(session.url!).pathname, {}));
  const si = await step(stripe.setupIntents.create({ customer: customer.id }));
  await step(stripe.setupIntents.confirm(si.id, { payment_method: 'pm_card_mastercard' }));
  const clock = await step(stripe.testHelpers.testClocks.create({ frozen_time: START / 1000 }));
  await step(
    stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: START / 1000 + 35 * 86_400 }),
  );
}

interface Run {
  /** Every vendor object of the account's twin, as stored, by type and id. */
  readonly objects: Pick<Resource, 'type' | 'id' | 'deleted' | 'fields'>[];
  /** Every webhook body sent, by event id. */
  readonly bodies: string[];
}

async function run(
  spec: string,
  receiver: Receiver,
  settle: (twin: StripeTwin) => Promise<void>,
): Promise<Run> {
  const from = receiver.requests.length;
  const twin = await startStripeTwin(spec, 'same-script', START, receiver);
  try {
    await script(client(twin), `${receiver.url}/same`, () => settle(twin));
    await twin.host.idle();
    await receiver.quiet();
    const [account] = (await twin.world.twinNames()).filter((n) => n.startsWith('stripe-'));
    const objects = (await collect(twin.world.twin(account!).liveResources()))
      // delivery records and their attempts carry what the wall clock and the network did (times,
      // signatures); the bodies they sent are compared below
      .filter((r) => !r.type.startsWith('webhook_delivery'))
      // versions count log entries, and attempts interleave with requests as the network pleases
      .map((r) => ({ type: r.type, id: r.id, deleted: r.deleted, fields: r.fields }));
    const bodies = receiver.requests
      .slice(from)
      .map((p) => p.body)
      .sort((a, b) => (JSON.parse(a).id < JSON.parse(b).id ? -1 : 1));
    return { objects, bodies };
  } finally {
    await twin.close();
  }
}

describe('the same seeded script, run twice (SQLite, then PostgreSQL)', () => {
  let receiver: Receiver;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    for (const c of cleanups) c();
  });

  // Each call's webhooks race the next call, as in an app under test: deliveries claim, sign and
  // finish while requests are served, yet draw nothing from the stream the vendor's ids come from
  // (their writes' ids are derived, their trace ids and jitter come from a stream of their own).
  it('writes identical vendor objects and sends identical webhook bodies, byte for byte, while deliveries race the calls', async () => {
    const runs: Run[] = [];
    for (const home of homes) {
      const fresh = home.fresh();
      cleanups.push(fresh.cleanup);
      runs.push(await run(fresh.spec, receiver, async () => {}));
    }
    const [a, b] = runs as [Run, Run];
    expect(a.objects.length).toBeGreaterThan(20);
    expect(a.bodies.length).toBeGreaterThan(20);
    const types = new Set(a.objects.map((r) => r.type));
    for (const t of [
      'customer',
      'payment_intent',
      'charge',
      'subscription',
      'invoice',
      'api_request',
    ])
      expect(types).toContain(t);
    expect(b.objects.map((o) => JSON.stringify(o))).toEqual(
      a.objects.map((o) => JSON.stringify(o)),
    );
    expect(b.bodies).toEqual(a.bodies);
  });
});

describe('two hosts on one PostgreSQL world serve one twin', () => {
  let first: StripeTwin;
  let second: StripeTwin;
  let receiver: Receiver;
  let cleanup: () => void;
  beforeAll(async () => {
    const pg = homes.find((h) => h.name === 'postgres')!;
    const fresh = pg.fresh();
    cleanup = fresh.cleanup;
    receiver = await startReceiver();
    // Two World objects with their own store connections and hosts, as two processes would be.
    first = await startStripeTwin(fresh.spec, 'host-a', START, receiver);
    second = await startStripeTwin(fresh.spec, 'host-b', START, receiver);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await receiver?.close();
    cleanup?.();
  });

  it('writes through both, reads the same through both, and sends each event once', async () => {
    const a = client(first);
    const b = client(second);
    const secret = (
      await a.webhookEndpoints.create({
        url: `${receiver.url}/both`,
        enabled_events: ['customer.created', 'customer.updated'],
      })
    ).secret!;
    const made: string[] = [];
    // interleaved and concurrent: each host commits through the same advisory lock
    for (let round = 0; round < 5; round++) {
      const pair = await Promise.all([
        a.customers.create({ email: `a${round}@example.com` }),
        b.customers.create({ email: `b${round}@example.com` }),
      ]);
      made.push(...pair.map((c) => c.id));
    }
    await b.customers.update(made[0]!, { name: 'Updated through B' });
    expect((await a.customers.retrieve(made[0]!)) as Stripe.Customer).toMatchObject({
      name: 'Updated through B',
    });
    const listedA = await collect(a.customers.list({ limit: 3 }));
    const listedB = await collect(b.customers.list({ limit: 3 }));
    expect(listedA.map((c) => c.id)).toEqual(listedB.map((c) => c.id));
    expect(new Set(listedA.map((c) => c.id))).toEqual(new Set(made));
    // an endpoint made through A takes what B's writes cause; an idempotency key used on A answers on B
    const key = { idempotencyKey: 'across-hosts-1' };
    const once = await a.customers.create({ email: 'once@example.com' }, key);
    const again = await b.customers.create({ email: 'once@example.com' }, key);
    expect(again.id).toBe(once.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');

    await first.host.idle();
    await second.host.idle();
    const until = Date.now() + 15_000;
    while (receiver.requests.length < 12 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 10));
    await first.host.idle();
    await second.host.idle();
    await receiver.quiet();
    const events = receiver.requests.map((p) =>
      a.webhooks.constructEvent(p.body, String(p.headers['stripe-signature']), secret),
    );
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.filter((e) => e.type === 'customer.created')).toHaveLength(11);
    expect(events.filter((e) => e.type === 'customer.updated')).toHaveLength(1);
  });
});
