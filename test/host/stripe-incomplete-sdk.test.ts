// A subscription's first payment as stripe-node drives it, on SQLite and PostgreSQL:
// payment_behavior (Stripe's Elements integration, default_incomplete: the first invoice's payment
// intent confirmed by the app; allow_incomplete: a decline or 3-D Secure leaves it incomplete, and
// confirming that invoice's intent later pays it; error_if_incomplete: a decline refuses the call
// and writes nothing), payment_settings.save_default_payment_method, the refusals in Stripe's
// words, and an incomplete subscription expiring 23 hours on. Every webhook verifies.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeSdk, type StripeSdk, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_incompleteConformance';

/** The payment intent a client secret belongs to, as Stripe.js reads it. */
const intentOf = (secret: string) => secret.slice(0, secret.indexOf('_secret_'));

describe.each(homes)('stripe-node: a subscription first payment ($name)', (home) => {
  let sdk: StripeSdk;
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;
  let price: Stripe.Price;
  const eventsAbout = (...ids: string[]) => sdk.eventsAbout(...ids);
  const newCustomer = (email: string) => stripe.customers.create({ email });
  const withDefault = async (customer: Stripe.Customer, token: string) => {
    const pm = await stripe.paymentMethods.attach(token, { customer: customer.id });
    await stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: pm.id },
    });
    return pm;
  };

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    sdk = await startStripeSdk(fresh.spec, 'incomplete', '2026-09-01T00:00:00Z', KEY);
    ({ twin, stripe } = sdk);
    const product = await stripe.products.create({ name: 'Elements plan' });
    price = await stripe.prices.create({
      product: product.id,
      unit_amount: 1500,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('default_incomplete: nothing charged; confirming the invoice intent pays it, activates the subscription and saves the method', async () => {
    const customer = await newCustomer('elements@example.com');
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      expand: ['latest_invoice.confirmation_secret'],
    });
    expect(sub).toMatchObject({
      status: 'incomplete',
      default_payment_method: null,
      payment_settings: { save_default_payment_method: 'on_subscription' },
    });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({
      status: 'open',
      amount_due: 1500,
      amount_paid: 0,
      attempted: false,
      attempt_count: 0,
      billing_reason: 'subscription_create',
    });
    const clientSecret = invoice.confirmation_secret!.client_secret;
    const pending = await stripe.paymentIntents.retrieve(intentOf(clientSecret));
    expect(pending).toMatchObject({
      status: 'requires_payment_method',
      client_secret: clientSecret,
      amount: 1500,
      customer: customer.id,
      latest_charge: null,
    });
    expect((await stripe.charges.list({ customer: customer.id })).data).toEqual([]);
    const created = (await eventsAbout(sub.id, invoice.id, pending.id)).map((e) => e.type);
    expect(created).toEqual([
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'payment_intent.created',
    ]);

    // what Stripe.js does with the client secret and the card the customer typed
    const paid = await stripe.paymentIntents.confirm(pending.id, {
      payment_method: 'pm_card_visa',
    });
    expect(paid.status).toBe('succeeded');
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({
      status: 'paid',
      amount_paid: 1500,
      amount_remaining: 0,
      attempt_count: 1,
    });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active.status).toBe('active');
    expect(active.default_payment_method).toBe(paid.payment_method);
    expect(paid.payment_method).toMatch(/^pm_/);

    const events = await eventsAbout(sub.id, invoice.id, pending.id, paid.latest_charge as string);
    expect(events.slice(created.length).map((e) => e.type)).toEqual([
      'charge.succeeded',
      'payment_intent.succeeded',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
    ]);
    const updated = events.at(-1)!;
    expect((updated.data.object as Stripe.Subscription).status).toBe('active');
    expect(updated.data.previous_attributes).toEqual({
      status: 'incomplete',
      default_payment_method: null,
    });
    // one confirmation, one request: every event it caused names it
    const requests = new Set(events.slice(created.length).map((e) => e.request?.id));
    expect(requests.size).toBe(1);
    await expect(
      stripe.paymentIntents.confirm(pending.id, { payment_method: 'pm_card_visa' }),
    ).rejects.toMatchObject({ code: 'payment_intent_unexpected_state' });
  });

  it('default_incomplete: a declined confirmation is the invoice failed attempt; 3-D Secure charges nothing; another card pays', async () => {
    const customer = await newCustomer('retry@example.com');
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      expand: ['latest_invoice.confirmation_secret'],
    });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    const pi = intentOf(invoice.confirmation_secret!.client_secret);
    const declined = await stripe.paymentIntents
      .confirm(pi, { payment_method: 'pm_card_chargeCustomerFail' })
      .catch((e: unknown) => e);
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' });
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({
      status: 'open',
      attempted: true,
      attempt_count: 1,
    });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe('incomplete');

    const challenged = await stripe.paymentIntents.confirm(pi, {
      payment_method: 'pm_card_authenticationRequired',
    });
    expect(challenged.status).toBe('requires_action');
    // nothing was charged: the invoice waits, no attempt counted
    expect((await stripe.invoices.retrieve(invoice.id)).attempt_count).toBe(1);
    // the customer gives up on that card and pays with another
    expect(
      (await stripe.paymentIntents.confirm(pi, { payment_method: 'pm_card_visa' })).status,
    ).toBe('succeeded');
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({
      status: 'paid',
      attempt_count: 2,
    });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active.status).toBe('active');
    // save_default_payment_method was left off: nothing saved
    expect(active.default_payment_method).toBeNull();
    const types = (await eventsAbout(sub.id, invoice.id)).map((e) => e.type);
    expect(types).toEqual([
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_failed',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
    ]);
  });

  it('allow_incomplete (the default): a decline or 3-D Secure leaves it incomplete, and confirming that invoice intent pays it', async () => {
    const customer = await newCustomer('allow@example.com');
    await withDefault(customer, 'pm_card_chargeCustomerFail');
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'allow_incomplete',
      expand: ['latest_invoice.confirmation_secret'],
    });
    expect(sub.status).toBe('incomplete');
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ status: 'open', attempted: true, attempt_count: 1 });
    const pi = intentOf(invoice.confirmation_secret!.client_secret);
    expect((await stripe.paymentIntents.retrieve(pi)).last_payment_error).toMatchObject({
      decline_code: 'generic_decline',
    });
    const paid = await stripe.paymentIntents.confirm(pi, { payment_method: 'pm_card_visa' });
    expect(paid.status).toBe('succeeded');
    expect((await stripe.invoices.retrieve(invoice.id)).status).toBe('paid');
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe('active');

    // a card asking for 3-D Secure: nothing is paid yet, so the subscription is not active
    const strict = await newCustomer('sca@example.com');
    await withDefault(strict, 'pm_card_authenticationRequired');
    const sca = await stripe.subscriptions.create({
      customer: strict.id,
      items: [{ price: price.id }],
      expand: ['latest_invoice.confirmation_secret'],
    });
    expect(sca.status).toBe('incomplete');
    const scaIntent = intentOf(
      (sca.latest_invoice as Stripe.Invoice).confirmation_secret!.client_secret,
    );
    expect((await stripe.paymentIntents.retrieve(scaIntent)).status).toBe('requires_action');
    const other = { payment_method: 'pm_card_visa' };
    expect((await stripe.paymentIntents.confirm(scaIntent, other)).status).toBe('succeeded');
    expect((await stripe.subscriptions.retrieve(sca.id)).status).toBe('active');
  });

  it('error_if_incomplete: a decline is the card error and nothing is written; a card that pays starts it active', async () => {
    const customer = await newCustomer('strict@example.com');
    await withDefault(customer, 'pm_card_chargeCustomerFail');
    const before = (await stripe.events.list({ limit: 100 })).data.length;
    const refused = await stripe.subscriptions
      .create({
        customer: customer.id,
        items: [{ price: price.id }],
        payment_behavior: 'error_if_incomplete',
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(refused).toMatchObject({
      statusCode: 402,
      type: 'StripeCardError',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
    });
    expect(
      (await stripe.subscriptions.list({ customer: customer.id, status: 'all' })).data,
    ).toEqual([]);
    expect((await stripe.invoices.list({ customer: customer.id })).data).toEqual([]);
    expect((await stripe.charges.list({ customer: customer.id })).data).toEqual([]);
    expect((await stripe.events.list({ limit: 100 })).data.length).toBe(before);

    const sca = await newCustomer('strict-sca@example.com');
    await withDefault(sca, 'pm_card_authenticationRequired');
    await expect(
      stripe.subscriptions.create({
        customer: sca.id,
        items: [{ price: price.id }],
        payment_behavior: 'error_if_incomplete',
      }),
    ).rejects.toMatchObject({ statusCode: 402, code: 'authentication_required' });

    // a card that pays: active at once, and on_subscription saves the card that paid
    const visa = await withDefault(customer, 'pm_card_visa');
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'error_if_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      expand: ['latest_invoice'],
    });
    expect(sub).toMatchObject({ status: 'active', default_payment_method: visa.id });
    expect((sub.latest_invoice as Stripe.Invoice).status).toBe('paid');
    const saved = (await eventsAbout(sub.id)).filter(
      (e) => e.type === 'customer.subscription.updated',
    );
    expect(saved.map((e) => e.data.previous_attributes)).toEqual([
      { default_payment_method: null },
    ]);
  });

  it('refuses what it does not take in Stripe words, naming the parameter', async () => {
    const customer = await newCustomer('refusals@example.com');
    const base = { customer: customer.id, items: [{ price: price.id }] };
    const invalid = (param: string) => ({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      param,
    });
    await expect(
      stripe.subscriptions.create({ ...base, payment_behavior: 'pending_if_incomplete' }),
    ).rejects.toMatchObject({
      ...invalid('payment_behavior'),
      message: expect.stringContaining('pending_if_incomplete'),
    });
    await expect(
      stripe.subscriptions.create({
        ...base,
        payment_behavior: 'sometimes' as Stripe.SubscriptionCreateParams.PaymentBehavior,
      }),
    ).rejects.toMatchObject({ ...invalid('payment_behavior'), code: 'parameter_invalid' });
    await expect(
      stripe.subscriptions.create({
        ...base,
        payment_behavior: 'default_incomplete',
        payment_settings: {
          save_default_payment_method:
            'always' as Stripe.SubscriptionCreateParams.PaymentSettings.SaveDefaultPaymentMethod,
        },
      }),
    ).rejects.toMatchObject(invalid('payment_settings[save_default_payment_method]'));
    await expect(
      stripe.subscriptions.create({
        ...base,
        payment_behavior: 'default_incomplete',
        payment_settings: { payment_method_types: ['card'] },
      }),
    ).rejects.toMatchObject({ ...invalid('payment_settings[payment_method_types]') });
    // without a payment method, only default_incomplete can start it
    await expect(stripe.subscriptions.create(base)).rejects.toMatchObject({ statusCode: 400 });
    expect(
      (await stripe.subscriptions.list({ customer: customer.id, status: 'all' })).data,
    ).toEqual([]);
  });

  it('an incomplete subscription still unpaid 23 hours on expires: incomplete_expired, invoice void, intent canceled', async () => {
    const customer = await newCustomer('expires@example.com');
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      expand: ['latest_invoice.confirmation_secret'],
    });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    const pi = intentOf(invoice.confirmation_secret!.client_secret);
    const clock = await stripe.testHelpers.testClocks.create({
      frozen_time: Math.floor(twin.world.clock.now() / 1000),
    });
    // a minute short of 23 hours: still waiting
    await stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: sub.created + 23 * 3600 - 60,
    });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe('incomplete');
    // Its payment waits for the app: Stripe makes no attempt of its own meanwhile.
    expect(invoice.next_payment_attempt).toBeNull();
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({
      status: 'open',
      attempt_count: 0,
      attempted: false,
      next_payment_attempt: null,
    });
    expect((await eventsAbout(invoice.id)).map((e) => e.type)).not.toContain(
      'invoice.payment_failed',
    );
    await stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: sub.created + 23 * 3600 + 60,
    });
    expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({
      status: 'incomplete_expired',
      ended_at: sub.created + 23 * 3600,
    });
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({
      status: 'void',
      next_payment_attempt: null,
      status_transitions: { voided_at: sub.created + 23 * 3600 },
    });
    expect(await stripe.paymentIntents.retrieve(pi)).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'void_invoice',
    });
    await expect(
      stripe.paymentIntents.confirm(pi, { payment_method: 'pm_card_visa' }),
    ).rejects.toMatchObject({ code: 'payment_intent_unexpected_state' });
    const ended = (await eventsAbout(sub.id, pi)).slice(-2);
    expect(ended.map((e) => e.type)).toEqual([
      'payment_intent.canceled',
      'customer.subscription.deleted',
    ]);
    expect((ended[1]!.data.object as Stripe.Subscription).status).toBe('incomplete_expired');
    expect(ended[1]!.created).toBe(sub.created + 23 * 3600);
    // subscriptions paid in time are not touched; an ended one is listed as ended
    const still = await stripe.subscriptions.list({ status: 'incomplete_expired' });
    expect(still.data.map((s) => s.id)).toEqual([sub.id]);
    expect((await stripe.subscriptions.list({ status: 'ended' })).data.map((s) => s.id)).toContain(
      sub.id,
    );
  });
});
