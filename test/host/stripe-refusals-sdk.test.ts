// Where a new user found the twin answering what real Stripe answers differently, as the
// unmodified stripe package sees it on a real host on loopback: refusals Stripe makes, and
// defaults Stripe keeps. None depends on how the store keeps rows, so one durable backend
// (SQLite) is enough; the SDK suites run the rest on PostgreSQL too.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_refusalsConformance';
const sqlite = homes.filter((h) => h.name === 'sqlite');

describe.each(sqlite)('stripe-node meets Stripe refusals on the surface ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'refusals', Date.parse('2026-07-01T00:00:00Z'));
    stripe = new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  const missingMethod = {
    statusCode: 400,
    type: 'StripeInvalidRequestError',
    code: 'payment_intent_unexpected_state',
    message: expect.stringMatching(
      /^You cannot confirm this PaymentIntent because it's missing a payment method\./,
    ),
  };

  it('confirm without a payment method: refused when the intent has none, the held one reused when it has', async () => {
    const pi = await stripe.paymentIntents.create({ amount: 700, currency: 'usd' });
    await expect(stripe.paymentIntents.confirm(pi.id)).rejects.toMatchObject(missingMethod);
    expect(await stripe.paymentIntents.retrieve(pi.id)).toMatchObject({
      status: 'requires_payment_method',
      payment_method: null,
      latest_charge: null,
    });
    expect((await stripe.charges.list({ payment_intent: pi.id })).data).toEqual([]);

    // after requires_action the intent holds the card: confirming again asks again, with that card
    const waiting = await stripe.paymentIntents.confirm(pi.id, {
      payment_method: 'pm_card_authenticationRequired',
    });
    expect(waiting.status).toBe('requires_action');
    const again = await stripe.paymentIntents.confirm(pi.id);
    expect(again).toMatchObject({
      status: 'requires_action',
      payment_method: waiting.payment_method,
    });

    // a decline leaves payment_method null, so a bare confirm has nothing to charge
    await expect(
      stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }),
    ).rejects.toMatchObject({ type: 'StripeCardError' });
    expect((await stripe.paymentIntents.retrieve(pi.id)).payment_method).toBeNull();
    await expect(stripe.paymentIntents.confirm(pi.id)).rejects.toMatchObject(missingMethod);
  });

  it('create with confirm=true and no payment method is refused before an intent is made', async () => {
    const before = (await stripe.paymentIntents.list({ limit: 100 })).data.length;
    await expect(
      stripe.paymentIntents.create({ amount: 900, currency: 'usd', confirm: true }),
    ).rejects.toMatchObject(missingMethod);
    expect((await stripe.paymentIntents.list({ limit: 100 })).data.length).toBe(before);
  });

  it('subscriptions.list leaves canceled subscriptions out unless status asks for them', async () => {
    const customer = await stripe.customers.create({ email: 'lists@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const product = await stripe.products.create({ name: 'Listed plan' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 500,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    const subscribe = () =>
      stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: price.id }],
        default_payment_method: pm.id,
      });
    const kept = await subscribe();
    const gone = await subscribe();
    await stripe.subscriptions.cancel(gone.id);
    const ids = async (params: Stripe.SubscriptionListParams) =>
      (await stripe.subscriptions.list({ customer: customer.id, ...params })).data.map((s) => s.id);
    expect(await ids({})).toEqual([kept.id]);
    expect(await ids({ status: 'all' })).toEqual([gone.id, kept.id]);
    expect(await ids({ status: 'canceled' })).toEqual([gone.id]);
    expect(await ids({ status: 'ended' })).toEqual([gone.id]);
    expect(await ids({ status: 'active' })).toEqual([kept.id]);
  });

  it('metadata: 50 keys of up to 40 characters, values of up to 500; beyond that a 400 on every route', async () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    const limits = {
      ...fifty,
      ['k'.repeat(40)]: '',
      k0: 'v'.repeat(500),
    };
    const customers = async () => (await stripe.customers.list({ limit: 100 })).data.length;
    const customer = await stripe.customers.create({ metadata: limits });
    const made = await customers();
    expect(Object.keys(customer.metadata)).toHaveLength(50);
    const refused = (message: RegExp) => ({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      param: 'metadata',
      code: undefined,
      message: expect.stringMatching(message),
    });
    const tooMany = refused(/^Metadata can have up to 50 keys, but you've set 51\./);
    const longKey = refused(/^Invalid key: k{41} must be a string under 40 characters$/);
    const longValue = refused(/^Invalid val: v{501} must be a string under 500 characters$/);
    // the 51st key on update counts the keys already there; removing one frees its place
    await expect(
      stripe.customers.update(customer.id, { metadata: { extra: 'x' } }),
    ).rejects.toMatchObject(tooMany);
    expect(
      Object.keys(
        (await stripe.customers.update(customer.id, { metadata: { extra: 'x', k1: '' } })).metadata,
      ),
    ).toHaveLength(50);
    const longKeyMeta = { ['k'.repeat(41)]: 'x' };
    const longValueMeta = { note: 'v'.repeat(501) };
    await expect(stripe.customers.create({ metadata: longKeyMeta })).rejects.toMatchObject(longKey);
    await expect(
      stripe.products.create({ name: 'P', metadata: longValueMeta }),
    ).rejects.toMatchObject(longValue);
    await expect(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'usd',
        metadata: { ...fifty, one: 'more' },
      }),
    ).rejects.toMatchObject(tooMany);
    const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd' });
    await expect(
      stripe.paymentIntents.update(pi.id, { metadata: longKeyMeta }),
    ).rejects.toMatchObject(longKey);
    await expect(stripe.setupIntents.create({ metadata: longValueMeta })).rejects.toMatchObject(
      longValue,
    );
    expect(await customers()).toBe(made);
  });

  it("decline test cards answer Stripe's code, decline_code and message, by every documented token", async () => {
    const cases: [string, string, string, string][] = [
      ['pm_card_chargeDeclined', 'card_declined', 'generic_decline', 'Your card was declined.'],
      [
        'pm_card_visa_chargeDeclinedInsufficientFunds',
        'card_declined',
        'insufficient_funds',
        'Your card has insufficient funds.',
      ],
      [
        'pm_card_visa_chargeDeclinedLostCard',
        'card_declined',
        'lost_card',
        'Your card was declined.',
      ],
      [
        'pm_card_chargeDeclinedExpiredCard',
        'expired_card',
        'expired_card',
        'Your card has expired.',
      ],
      [
        'pm_card_chargeDeclinedIncorrectCvc',
        'incorrect_cvc',
        'incorrect_cvc',
        "Your card's security code is incorrect.",
      ],
      [
        'pm_card_chargeDeclinedProcessingError',
        'processing_error',
        'processing_error',
        'An error occurred while processing your card. Try again in a little bit.',
      ],
    ];
    for (const [token, code, decline_code, message] of cases) {
      const error = await stripe.paymentIntents
        .create({ amount: 1200, currency: 'usd', confirm: true, payment_method: token })
        .catch((e: unknown) => e as Stripe.errors.StripeCardError);
      expect(error, token).toMatchObject({
        type: 'StripeCardError',
        statusCode: 402,
        code,
        decline_code,
        message,
        doc_url: `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`,
      });
      const intent = (error as Stripe.errors.StripeCardError).payment_intent!;
      expect(intent.last_payment_error, token).toMatchObject({ code, decline_code, message });
      const charge = await stripe.charges.retrieve(intent.latest_charge as string);
      expect(charge, token).toMatchObject({
        status: 'failed',
        failure_code: code,
        failure_message: message,
        outcome: { reason: decline_code },
      });
    }
    // on attach and on setup the same card error
    const customer = await stripe.customers.create({ email: 'declines@example.com' });
    await expect(
      stripe.paymentMethods.attach('pm_card_chargeDeclinedExpiredCard', { customer: customer.id }),
    ).rejects.toMatchObject({
      type: 'StripeCardError',
      code: 'expired_card',
      decline_code: 'expired_card',
    });
    const si = await stripe.setupIntents.create({ customer: customer.id });
    await expect(
      stripe.setupIntents.confirm(si.id, { payment_method: 'pm_card_chargeDeclinedIncorrectCvc' }),
    ).rejects.toMatchObject({
      type: 'StripeCardError',
      code: 'incorrect_cvc',
      decline_code: 'incorrect_cvc',
      message: "Your card's security code is incorrect.",
    });
  });

  it('currency: any case of a known code, answered lowercase; an unknown one and amounts out of range refused', async () => {
    const pi = await stripe.paymentIntents.create({ amount: 50, currency: 'USD' });
    expect(pi.currency).toBe('usd');
    const product = await stripe.products.create({ name: 'Priced in caps' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 300,
      currency: 'EUR',
    });
    expect(price.currency).toBe('eur');
    await expect(
      stripe.paymentIntents.create({ amount: 500, currency: 'zzz' }),
    ).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      code: undefined,
      param: 'currency',
      message: expect.stringMatching(/^Invalid currency: zzz\. /),
    });
    await expect(
      stripe.paymentIntents.create({ amount: 49, currency: 'usd' }),
    ).rejects.toMatchObject({
      statusCode: 400,
      code: 'amount_too_small',
      param: 'amount',
      message: 'Amount must be at least 50 cents',
    });
    await expect(
      stripe.paymentIntents.create({ amount: 100_000_000, currency: 'usd' }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount' });
    await expect(stripe.paymentIntents.update(pi.id, { amount: 10 })).rejects.toMatchObject({
      code: 'amount_too_small',
    });
  });

  it('refunding a PaymentIntent with no successful charge says so, naming the intent', async () => {
    const unpaid = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    const declined = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    await expect(
      stripe.paymentIntents.confirm(declined.id, { payment_method: 'pm_card_chargeDeclined' }),
    ).rejects.toMatchObject({ type: 'StripeCardError' });
    for (const pi of [unpaid, declined])
      await expect(stripe.refunds.create({ payment_intent: pi.id })).rejects.toMatchObject({
        statusCode: 400,
        type: 'StripeInvalidRequestError',
        code: undefined,
        param: 'payment_intent',
        message: `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`,
      });
    // a paid one refunds
    const paid = await stripe.paymentIntents.create({
      amount: 800,
      currency: 'usd',
      confirm: true,
      payment_method: 'pm_card_visa',
    });
    expect(await stripe.refunds.create({ payment_intent: paid.id })).toMatchObject({
      object: 'refund',
      amount: 800,
      payment_intent: paid.id,
    });
  });

  it('an unknown id is 404 when the URL names it, 400 naming the parameter when a parameter does', async () => {
    const missing = (statusCode: number, param: string, message: string) => ({
      statusCode,
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
      param,
      message,
    });
    const customer = await stripe.customers.create({ email: 'missing@example.com' });
    // the object the URL names
    await expect(stripe.customers.retrieve('cus_missing')).rejects.toMatchObject(
      missing(404, 'id', "No such customer: 'cus_missing'"),
    );
    await expect(stripe.customers.listPaymentMethods('cus_missing')).rejects.toMatchObject(
      missing(404, 'id', "No such customer: 'cus_missing'"),
    );
    await expect(
      stripe.paymentMethods.attach('pm_nope', { customer: customer.id }),
    ).rejects.toMatchObject(missing(404, 'id', "No such PaymentMethod: 'pm_nope'"));
    // an id a parameter names: Stripe's 400, as for `No such price` on line_items[0][price]
    await expect(
      stripe.paymentIntents.create({ amount: 900, currency: 'usd', customer: 'cus_missing' }),
    ).rejects.toMatchObject(missing(400, 'customer', "No such customer: 'cus_missing'"));
    await expect(
      stripe.paymentIntents.create({
        amount: 900,
        currency: 'usd',
        payment_method: 'pm_nope',
        confirm: true,
      }),
    ).rejects.toMatchObject(missing(400, 'payment_method', "No such PaymentMethod: 'pm_nope'"));
    await expect(
      stripe.paymentMethods.attach('pm_card_visa', { customer: 'cus_missing' }),
    ).rejects.toMatchObject(missing(400, 'customer', "No such customer: 'cus_missing'"));
    await expect(
      stripe.checkout.sessions.create({
        mode: 'payment',
        success_url: 'http://127.0.0.1:9/ok',
        line_items: [{ price: 'price_missing', quantity: 1 }],
      }),
    ).rejects.toMatchObject(missing(400, 'line_items[0][price]', "No such price: 'price_missing'"));
    await expect(
      stripe.subscriptions.create({ customer: customer.id, items: [{ price: 'price_missing' }] }),
    ).rejects.toMatchObject(missing(400, 'items[0][price]', "No such price: 'price_missing'"));
    await expect(stripe.refunds.create({ payment_intent: 'pi_missing' })).rejects.toMatchObject(
      missing(400, 'payment_intent', "No such payment_intent: 'pi_missing'"),
    );
    await expect(stripe.customers.list({ starting_after: 'cus_missing' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'starting_after',
    });
  });

  it('a required parameter left out is parameter_missing naming it', async () => {
    const missingParam = (param: string) => ({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      code: 'parameter_missing',
      param,
      message: `Missing required param: ${param}.`,
    });
    // what a caller without the SDK's types (plain JavaScript) can send
    type Intent = Stripe.PaymentIntentCreateParams;
    await expect(stripe.paymentIntents.create({ currency: 'usd' } as Intent)).rejects.toMatchObject(
      missingParam('amount'),
    );
    await expect(stripe.paymentIntents.create({ amount: 500 } as Intent)).rejects.toMatchObject(
      missingParam('currency'),
    );
    await expect(
      stripe.products.create({ description: 'no name' } as Stripe.ProductCreateParams),
    ).rejects.toMatchObject(missingParam('name'));
    const product = await stripe.products.create({ name: 'Needs a currency' });
    await expect(
      stripe.prices.create({ product: product.id, unit_amount: 100 } as Stripe.PriceCreateParams),
    ).rejects.toMatchObject(missingParam('currency'));
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 100,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    const customer = await stripe.customers.create({ email: 'required@example.com' });
    await expect(
      stripe.subscriptions.create({
        items: [{ price: price.id }],
      } as Stripe.SubscriptionCreateParams),
    ).rejects.toMatchObject(missingParam('customer'));
    await expect(
      stripe.subscriptions.create({ customer: customer.id } as Stripe.SubscriptionCreateParams),
    ).rejects.toMatchObject(missingParam('items'));
    await expect(
      stripe.paymentMethods.attach('pm_card_visa', {} as Stripe.PaymentMethodAttachParams),
    ).rejects.toMatchObject(missingParam('customer'));
    await expect(
      stripe.webhookEndpoints.create({
        enabled_events: ['*'],
      } as Stripe.WebhookEndpointCreateParams),
    ).rejects.toMatchObject(missingParam('url'));
    await expect(
      stripe.webhookEndpoints.create({
        url: 'http://127.0.0.1:9/hooks',
      } as Stripe.WebhookEndpointCreateParams),
    ).rejects.toMatchObject(missingParam('enabled_events'));
  });

  it('search routes the twin does not serve are unrecognized URLs, not a retrieve of id "search"', async () => {
    for (const search of [
      () => stripe.prices.search({ query: "active:'true'" }),
      () => stripe.products.search({ query: "active:'true'" }),
      () => stripe.paymentIntents.search({ query: "status:'succeeded'" }),
      () => stripe.charges.search({ query: "status:'succeeded'" }),
      () => stripe.subscriptions.search({ query: "status:'active'" }),
      () => stripe.invoices.search({ query: "status:'paid'" }),
    ])
      await expect(search()).rejects.toMatchObject({
        statusCode: 404,
        type: 'StripeInvalidRequestError',
        message: expect.stringMatching(/^Unrecognized request URL \(GET: \/v1\/\w+\/search\)/),
      });
  });
});
