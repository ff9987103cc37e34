// Updates a SaaS app makes after the fact, as the unmodified stripe package sends them to a real
// host on loopback: clearing every metadata key with `metadata: ''`, tagging a PaymentIntent that
// has already been paid, and tagging a subscription that has ended. Nothing here depends on how
// the store keeps rows, so one durable backend (SQLite) is enough.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_updatesConformance';
const sqlite = homes.filter((h) => h.name === 'sqlite');

describe.each(sqlite)('stripe-node updates objects on the surface ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'updates', Date.parse('2026-07-01T00:00:00Z'));
    stripe = new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  async function subscribed(): Promise<{ customer: string; subscription: Stripe.Subscription }> {
    const customer = await stripe.customers.create({ email: 'updates@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const product = await stripe.products.create({ name: 'Tagged plan' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 900,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    const subscription = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      default_payment_method: pm.id,
      metadata: { plan: 'pro', seats: '3' },
    });
    return { customer: customer.id, subscription };
  }

  it("metadata: '' unsets every key (Stripe: post an empty value to metadata), on each update route", async () => {
    const customer = await stripe.customers.create({ metadata: { a: '1', b: '2' } });
    const cleared = await stripe.customers.update(customer.id, { metadata: '' });
    expect(cleared.metadata).toEqual({});
    expect((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({
      metadata: {},
    });
    // and a later update sets keys again from nothing
    expect((await stripe.customers.update(customer.id, { metadata: { c: '3' } })).metadata).toEqual(
      { c: '3' },
    );

    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      metadata: { order: '42' },
    });
    expect((await stripe.paymentIntents.update(intent.id, { metadata: '' })).metadata).toEqual({});

    const { subscription } = await subscribed();
    expect((await stripe.subscriptions.update(subscription.id, { metadata: '' })).metadata).toEqual(
      {},
    );

    const endpoint = await stripe.webhookEndpoints.create({
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['customer.created'],
      metadata: { team: 'billing' },
      description: 'Billing hooks',
    });
    expect((await stripe.webhookEndpoints.update(endpoint.id, { metadata: '' })).metadata).toEqual(
      {},
    );
    // and description: '' unsets the description
    expect(
      (await stripe.webhookEndpoints.update(endpoint.id, { description: '' })).description,
    ).toBe(null);

    // on a create it is simply no metadata
    expect((await stripe.customers.create({ metadata: '' })).metadata).toEqual({});
  });

  it('a succeeded PaymentIntent takes metadata and description; its amount is refused in Stripe words', async () => {
    const intent = await stripe.paymentIntents.create({
      amount: 2500,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
      metadata: { cart: 'c_1' },
    });
    expect(intent.status).toBe('succeeded');
    const tagged = await stripe.paymentIntents.update(intent.id, {
      metadata: { order_id: 'ord_9' },
      description: 'Order 9',
    });
    expect(tagged).toMatchObject({
      status: 'succeeded',
      metadata: { cart: 'c_1', order_id: 'ord_9' },
      description: 'Order 9',
      amount: 2500,
    });
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      metadata: { cart: 'c_1', order_id: 'ord_9' },
      description: 'Order 9',
    });

    await expect(stripe.paymentIntents.update(intent.id, { amount: 3000 })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'payment_intent_unexpected_state',
      param: 'amount',
      message:
        "This PaymentIntent's amount could not be updated because it has a status of succeeded. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.",
    });
    // a refused update changes nothing, not even the metadata sent beside the amount
    await expect(
      stripe.paymentIntents.update(intent.id, { amount: 3000, metadata: { also: 'x' } }),
    ).rejects.toMatchObject({ code: 'payment_intent_unexpected_state', param: 'amount' });
    expect((await stripe.paymentIntents.retrieve(intent.id)).metadata).toEqual({
      cart: 'c_1',
      order_id: 'ord_9',
    });

    // description: '' unsets it
    expect((await stripe.paymentIntents.update(intent.id, { description: '' })).description).toBe(
      null,
    );

    const canceled = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    await stripe.paymentIntents.cancel(canceled.id);
    expect(
      (await stripe.paymentIntents.update(canceled.id, { metadata: { why: 'abandoned' } }))
        .metadata,
    ).toEqual({ why: 'abandoned' });
    await expect(
      stripe.paymentIntents.update(canceled.id, { currency: 'eur' }),
    ).rejects.toMatchObject({ code: 'payment_intent_unexpected_state', param: 'currency' });
  });

  it('a canceled subscription takes a metadata update; other fields are refused', async () => {
    const { subscription } = await subscribed();
    await stripe.subscriptions.cancel(subscription.id);
    const tagged = await stripe.subscriptions.update(subscription.id, {
      metadata: { churn_reason: 'price', seats: '' },
    });
    expect(tagged).toMatchObject({
      status: 'canceled',
      metadata: { plan: 'pro', churn_reason: 'price' },
    });
    expect((await stripe.subscriptions.retrieve(subscription.id)).metadata).toEqual({
      plan: 'pro',
      churn_reason: 'price',
    });
    await expect(
      stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true }),
    ).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      message: expect.stringMatching(
        /^A canceled subscription can only update its cancellation_details and metadata/,
      ),
    });
  });
});
