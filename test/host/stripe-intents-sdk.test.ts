// Payment intents updated and captured, 3-D Secure test cards, payment methods detached, setup
// intents, and invoices finalized, paid and previewed, as the unmodified stripe package drives them
// against a real host on loopback, on SQLite and PostgreSQL: every packet verifies with the
// endpoint's secret, and events.retrieve answers exactly what was delivered.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeSdk, type StripeSdk, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_intentsConformance';

describe.each(homes)('stripe-node intents and invoices against the surface ($name)', (home) => {
  let sdk: StripeSdk;
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;

  /** Every event delivered so far whose object is `id`, each verified with the endpoint's secret. */
  const eventsOf = async (id: string) =>
    (await sdk.delivered()).filter((e) => (e.data.object as { id?: string }).id === id);

  /** The event types on `id`, in the order the log holds them (events.list, read oldest first). */
  const loggedTypes = async (id: string) => (await sdk.eventsAbout(id)).map((e) => e.type);

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    sdk = await startStripeSdk(fresh.spec, 'intents', '2026-07-01T00:00:00Z', KEY);
    ({ twin, stripe } = sdk);
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('a manual-capture intent: updated, authorized, captured; events verify and equal events.retrieve', async () => {
    const customer = await stripe.customers.create({ email: 'capture@example.com' });
    const pi = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      customer: customer.id,
      capture_method: 'manual',
    });
    expect(pi.capture_method).toBe('manual');
    const updated = await stripe.paymentIntents.update(pi.id, {
      amount: 1500,
      metadata: { order: '42' },
    });
    expect(updated).toMatchObject({ amount: 1500, metadata: { order: '42' } });
    const authorized = await stripe.paymentIntents.confirm(pi.id, {
      payment_method: 'pm_card_visa',
    });
    expect(authorized).toMatchObject({
      status: 'requires_capture',
      amount_capturable: 1500,
      amount_received: 0,
    });
    const uncaptured = await stripe.charges.retrieve(authorized.latest_charge as string);
    expect(uncaptured).toMatchObject({ captured: false, amount_captured: 0, paid: true });
    // an authorized intent cannot be updated or captured for more than it holds
    await expect(stripe.paymentIntents.update(pi.id, { amount: 10 })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'payment_intent_unexpected_state',
    });
    await expect(
      stripe.paymentIntents.capture(pi.id, { amount_to_capture: 9999 }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', param: 'amount_to_capture' });
    const captured = await stripe.paymentIntents.capture(pi.id, { amount_to_capture: 1200 });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 1200 });
    expect(await stripe.charges.retrieve(captured.latest_charge as string)).toMatchObject({
      captured: true,
      amount_captured: 1200,
      amount_refunded: 0,
    });
    await expect(stripe.paymentIntents.capture(pi.id)).rejects.toMatchObject({
      code: 'payment_intent_unexpected_state',
    });

    expect(await loggedTypes(pi.id)).toEqual([
      'payment_intent.created',
      'payment_intent.amount_capturable_updated',
      'payment_intent.succeeded',
    ]);
    const chargeId = captured.latest_charge as string;
    expect(await loggedTypes(chargeId)).toEqual(['charge.succeeded', 'charge.captured']);
    const capturedEvent = (await eventsOf(chargeId)).find((e) => e.type === 'charge.captured')!;
    const delivered = twin.receiver.requests.find(
      (p) => JSON.parse(p.body).id === capturedEvent.id,
    )!;
    const { lastResponse: _r, ...body } = (await stripe.events.retrieve(
      capturedEvent.id,
    )) as Stripe.Event & { lastResponse: unknown };
    expect(body).toEqual(JSON.parse(delivered.body));
  });

  it('canceling an authorized intent releases the hold: nothing capturable, the charge not refunded', async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 1800,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    expect(pi).toMatchObject({ status: 'requires_capture', amount_capturable: 1800 });
    const canceled = await stripe.paymentIntents.cancel(pi.id, {
      cancellation_reason: 'abandoned',
    });
    expect(canceled).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'abandoned',
      amount_capturable: 0,
      amount_received: 0,
    });
    expect(await stripe.paymentIntents.retrieve(pi.id)).toMatchObject({ amount_capturable: 0 });
    expect(await stripe.charges.retrieve(pi.latest_charge as string)).toMatchObject({
      captured: false,
      amount_captured: 0,
      amount_refunded: 0,
      refunded: false,
    });
    await expect(stripe.paymentIntents.capture(pi.id)).rejects.toMatchObject({
      code: 'payment_intent_unexpected_state',
    });
    expect(await loggedTypes(pi.id)).toEqual([
      'payment_intent.created',
      'payment_intent.amount_capturable_updated',
      'payment_intent.canceled',
    ]);
  });

  it('pm_card_authenticationRequired waits in requires_action; another card then succeeds', async () => {
    const pi = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    const waiting = await stripe.paymentIntents.confirm(pi.id, {
      payment_method: 'pm_card_authenticationRequired',
    });
    expect(waiting.status).toBe('requires_action');
    expect(waiting.next_action?.type).toBe('use_stripe_sdk');
    expect(waiting.latest_charge).toBeNull();
    const paid = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
    expect(paid).toMatchObject({ status: 'succeeded', next_action: null });
    expect(await loggedTypes(pi.id)).toEqual([
      'payment_intent.created',
      'payment_intent.requires_action',
      'payment_intent.succeeded',
    ]);
  });

  it('a refusal after a write ran is saved under its key; one before it runs leaves nothing behind', async () => {
    const customers = async () => (await stripe.customers.list({ limit: 100 })).data.length;
    const intents = async () => (await stripe.paymentIntents.list({ limit: 100 })).data.length;
    // an expansion the answer cannot make: the customer is made once, and the retry replays the 400
    const before = await customers();
    const once = { idempotencyKey: 'expand-after-write' };
    const first = await stripe.customers
      .create({ email: 'x@example.com', expand: ['nope'] }, once)
      .catch((e: unknown) => e);
    const again = await stripe.customers
      .create({ email: 'x@example.com', expand: ['nope'] }, once)
      .catch((e: unknown) => e);
    for (const e of [first, again])
      expect(e).toMatchObject({ statusCode: 400, code: 'parameter_invalid', param: 'expand' });
    expect((again as { headers?: Record<string, string> }).headers?.['idempotent-replayed']).toBe(
      'true',
    );
    expect(await customers()).toBe(before + 1);
    // an unknown payment method with confirm=true: refused before the intent is made
    const made = await intents();
    await expect(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'usd',
        confirm: true,
        payment_method: 'pm_nope',
      }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'payment_method' });
    expect(await intents()).toBe(made);
  });

  it('payment methods detach (payment_method.detached); detaching twice is refused', async () => {
    const customer = await stripe.customers.create({ email: 'detach@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_mastercard', { customer: customer.id });
    const detached = await stripe.paymentMethods.detach(pm.id);
    expect(detached.customer).toBeNull();
    expect((await stripe.customers.listPaymentMethods(customer.id)).data).toEqual([]);
    await expect(stripe.paymentMethods.detach(pm.id)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'payment_method_unexpected_state',
    });
    await expect(stripe.paymentMethods.detach('pm_doesNotExist')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    expect(await loggedTypes(pm.id)).toEqual([
      'payment_method.attached',
      'payment_method.detached',
    ]);
  });

  it('setup intents: created, confirmed (the card attached to the customer), retrieved, canceled; a declined card is StripeCardError', async () => {
    const customer = await stripe.customers.create({ email: 'setup@example.com' });
    const si = await stripe.setupIntents.create({ customer: customer.id, usage: 'off_session' });
    expect(si).toMatchObject({
      object: 'setup_intent',
      status: 'requires_payment_method',
      customer: customer.id,
    });
    const done = await stripe.setupIntents.confirm(si.id, { payment_method: 'pm_card_visa' });
    expect(done.status).toBe('succeeded');
    const saved = await stripe.paymentMethods.retrieve(done.payment_method as string);
    expect(saved.customer).toBe(customer.id);
    expect(await stripe.setupIntents.retrieve(si.id)).toMatchObject({ status: 'succeeded' });
    expect(await loggedTypes(si.id)).toEqual(['setup_intent.created', 'setup_intent.succeeded']);
    expect(await loggedTypes(saved.id)).toEqual(['payment_method.attached']);
    await expect(stripe.setupIntents.cancel(si.id)).rejects.toMatchObject({
      code: 'setup_intent_unexpected_state',
    });

    const other = await stripe.setupIntents.create({ customer: customer.id });
    const canceled = await stripe.setupIntents.cancel(other.id, {
      cancellation_reason: 'abandoned',
    });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });

    const declined = await stripe.setupIntents.create({ customer: customer.id });
    const error = await stripe.setupIntents
      .confirm(declined.id, { payment_method: 'pm_card_chargeDeclined' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ code: 'card_declined', statusCode: 402 });
    expect((await stripe.setupIntents.retrieve(declined.id)).last_setup_error?.code).toBe(
      'card_declined',
    );
    const threeDs = await stripe.setupIntents.create({
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
    });
    expect(threeDs.status).toBe('requires_action');
    expect(await loggedTypes(threeDs.id)).toEqual([
      'setup_intent.created',
      'setup_intent.requires_action',
    ]);
    expect(await loggedTypes(declined.id)).toEqual([
      'setup_intent.created',
      'setup_intent.setup_failed',
    ]);
  });

  it('invoices: a failed first invoice paid with another card; a renewal previewed, finalized early and paid', async () => {
    const customer = await stripe.customers.create({ email: 'invoices@example.com' });
    const failing = await stripe.paymentMethods.attach('pm_card_chargeCustomerFail', {
      customer: customer.id,
    });
    await stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: failing.id },
    });
    const product = await stripe.products.create({ name: 'Invoiced plan' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 1200,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
    });
    expect(sub.status).toBe('incomplete');
    const first = (await stripe.invoices.list({ subscription: sub.id })).data[0]!;
    expect(first.status).toBe('open');
    // paying again with the failing card: a 402 StripeCardError, invoice.payment_failed
    await expect(stripe.invoices.pay(first.id)).rejects.toBeInstanceOf(
      Stripe.errors.StripeCardError,
    );
    const visa = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const paid = await stripe.invoices.pay(first.id, { payment_method: visa.id });
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 1200 });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe('active');
    await expect(stripe.invoices.pay(first.id)).rejects.toMatchObject({
      code: 'invoice_unexpected_state',
    });
    const firstTypes = await loggedTypes(first.id);
    expect(firstTypes.slice(-3)).toEqual([
      'invoice.payment_failed',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);

    await stripe.subscriptions.update(sub.id, { default_payment_method: visa.id });
    const preview = await stripe.invoices.createPreview({ subscription: sub.id });
    expect(preview).toMatchObject({ object: 'invoice', amount_due: 1200, status: 'draft' });
    expect(preview.id).toMatch(/^upcoming_in_/);
    // a preview writes nothing
    expect((await stripe.invoices.list({ subscription: sub.id })).data).toHaveLength(1);

    // the clock to the renewal: a draft invoice, finalized before Stripe would, then paid
    const periodEnd = (await stripe.subscriptions.retrieve(sub.id)).items.data[0]!
      .current_period_end;
    const clock = await stripe.testHelpers.testClocks.create({
      frozen_time: Math.floor(twin.world.clock.now() / 1000),
    });
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: periodEnd });
    const renewal = (await stripe.invoices.list({ subscription: sub.id })).data[0]!;
    expect(renewal).toMatchObject({ status: 'draft', billing_reason: 'subscription_cycle' });
    expect(renewal.total).toBe(preview.total);
    const finalized = await stripe.invoices.finalizeInvoice(renewal.id);
    expect(finalized.status).toBe('open');
    await expect(stripe.invoices.finalizeInvoice(renewal.id)).rejects.toMatchObject({
      code: 'invoice_unexpected_state',
    });
    expect((await stripe.invoices.pay(renewal.id)).status).toBe('paid');
    expect(await loggedTypes(renewal.id)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
  });
});
