// Stripe billing on the world clock: renewals, invoices, payments and retries derived from the
// log (a fresh world over the same files does the due work, no timer needed), idempotent steps,
// calendar periods, Checkout, refunds and disputes, and the refusals Stripe would give.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWalk, openWorld, registerPack, VirtualClock, type Twin } from '../../src/index.js';
import * as stripe from '../../packs/stripe/index.js';

const DAY = 86_400_000;
type Event = {
  type: string;
  created: number;
  data: { object: Record<string, any>; previous_attributes?: Record<string, unknown> };
  request: { id: string | null };
};

async function events(twin: Twin): Promise<Event[]> {
  return (await twin.list('webhook_delivery'))
    .sort((a, b) => a.version - b.version)
    .map((d) => JSON.parse(String(d.fields.body)) as Event);
}

async function setup(root = ':memory:', start: string | number = '2026-01-31T12:00:00Z') {
  const clock = new VirtualClock(start);
  const world = openWorld({ root, clock, seed: 'billing' });
  const twin = registerPack(world, stripe.pack);
  await stripe.createWebhookEndpoint(twin, {
    url: 'http://127.0.0.1:9/hooks',
    enabled_events: ['*'],
    secret: 'whsec_billing0123456789abcdefghijklmnop',
  });
  return { clock, world, twin };
}

async function subscriber(twin: Twin, card = 'pm_card_visa', trialDays?: number) {
  const product = await stripe.createProduct(twin, { name: 'Pro plan' });
  const price = await stripe.createPrice(twin, {
    product: product.id,
    unit_amount: 2000,
    currency: 'usd',
    recurring: { interval: 'month' },
  });
  const customer = await stripe.createCustomer(twin, { email: 'ada@example.com' });
  const pm = await stripe.attachPaymentMethod(twin, card, { customer: customer.id });
  await stripe.updateCustomer(twin, customer.id, {
    invoice_settings: { default_payment_method: pm.id },
  });
  const sub = await stripe.createSubscription(twin, {
    customer: customer.id,
    items: [{ price: price.id }],
    ...(trialDays === undefined ? {} : { trial_period_days: trialDays }),
  });
  return { product, price, customer, pm, sub };
}

describe('stripe subscriptions', () => {
  it('a new subscription is active, its first invoice finalized and paid by the default card at once', async () => {
    const { world, twin } = await setup();
    const { sub, customer, pm } = await subscriber(twin);
    expect(sub).toMatchObject({
      status: 'active',
      customer: customer.id,
      billing_cycle_anchor: Math.floor(Date.parse('2026-01-31T12:00:00Z') / 1000),
    });
    // Calendar months, clamped: Jan 31 → Feb 28.
    expect(new Date(sub.items.data[0]!.current_period_end * 1000).toISOString()).toBe(
      '2026-02-28T12:00:00.000Z',
    );
    const invoice = await stripe.getInvoice(twin, sub.latest_invoice);
    expect(invoice).toMatchObject({
      status: 'paid',
      billing_reason: 'subscription_create',
      amount_due: 2000,
      amount_paid: 2000,
      amount_remaining: 0,
      attempt_count: 1,
      number: `${customer.invoice_prefix}-0001`,
    });
    expect(invoice.lines.data[0]).toMatchObject({
      amount: 2000,
      description: '1 × Pro plan (at $20.00 / month)',
      period: { start: sub.start_date, end: sub.items.data[0]!.current_period_end },
    });
    const [payment] = (await twin.list('invoice_payment')).map((r) => r.fields as any);
    const charge = (await twin.list('charge'))[0]!.fields as any;
    expect(payment).toMatchObject({ invoice: invoice.id, status: 'paid', amount_paid: 2000 });
    expect(charge).toMatchObject({
      amount: 2000,
      status: 'succeeded',
      payment_intent: payment.payment.payment_intent,
      payment_method: pm.id,
      customer: customer.id,
    });
    expect((await events(twin)).map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'customer.subscription.created',
        'invoice.created',
        'invoice.finalized',
        'payment_intent.created',
        'charge.succeeded',
        'payment_intent.succeeded',
        'invoice.paid',
        'invoice.payment_succeeded',
      ]),
    );
    await world.close();
  });

  it('renews on the world clock: advanceBilling does what fell due, once, in order; periods follow the calendar', async () => {
    const { clock, world, twin } = await setup();
    const { sub } = await subscriber(twin);
    const before = (await events(twin)).length;
    expect(await stripe.billingDueAt(twin)).toBe(Date.parse('2026-02-25T12:00:00Z')); // invoice.upcoming, 3 days ahead
    await clock.advance(60 * DAY);
    const done = await stripe.advanceBilling(twin);
    expect(done.map((d) => d.step)).toEqual([
      'invoice_upcoming',
      'renew',
      'finalize',
      'collect',
      'invoice_upcoming',
      'renew',
      'finalize',
      'collect',
    ]);
    expect(await stripe.advanceBilling(twin)).toEqual([]); // nothing twice
    const renewed = await stripe.getSubscription(twin, sub.id);
    expect(new Date(renewed.items.data[0]!.current_period_start * 1000).toISOString()).toBe(
      '2026-03-31T12:00:00.000Z',
    );
    expect(new Date(renewed.items.data[0]!.current_period_end * 1000).toISOString()).toBe(
      '2026-04-30T12:00:00.000Z',
    );
    const later = (await events(twin)).slice(before);
    const update = later.find((e) => e.type === 'customer.subscription.updated')!;
    expect(update.request.id).toBeNull(); // automatic, not an API call
    expect(Object.keys(update.data.previous_attributes!).sort()).toEqual([
      'items',
      'latest_invoice',
    ]);
    const invoices = (await twin.list('invoice'))
      .map((r) => r.fields as any)
      .filter((i) => i.billing_reason === 'subscription_cycle');
    expect(
      invoices.map((i) => [
        i.status,
        i.amount_paid,
        i.number.endsWith('-0002') || i.number.endsWith('-0003'),
      ]),
    ).toEqual([
      ['paid', 2000, true],
      ['paid', 2000, true],
    ]);
    // A renewal invoice closes the period that ended; its line bills the one that began.
    const feb = invoices.find(
      (i) => i.period_end === Math.floor(Date.parse('2026-02-28T12:00:00Z') / 1000),
    )!;
    expect(feb.lines.data[0].period.start).toBe(feb.period_end);
    await expect(stripe.advanceBilling(twin, clock.now() + 1)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'now',
    });
    await world.close();
  });

  it('due work is derived from the log: a world reopened over the same files renews without any timer', async () => {
    const root = mkdtempSync(join(tmpdir(), 'stripe-billing-'));
    try {
      const first = await setup(root);
      const { sub } = await subscriber(first.twin);
      const start = first.clock.now();
      await first.world.close();
      const second = await setup(root, start + 40 * DAY);
      const done = await stripe.advanceBilling(second.twin);
      expect(done.filter((d) => d.step === 'renew')).toEqual([
        {
          at: (await stripe.getSubscription(second.twin, sub.id)).items.data[0]!
            .current_period_start,
          step: 'renew',
          id: sub.id,
        },
      ]);
      expect(
        (
          await stripe.getInvoice(
            second.twin,
            (await stripe.getSubscription(second.twin, sub.id)).latest_invoice,
          )
        ).status,
      ).toBe('paid');
      await second.world.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a declining card: trial ends, the renewal fails, past_due, retried after 3, 5, 7 days, then canceled', async () => {
    const walk = await openWalk({
      seed: 'billing-walk',
      start: '2026-03-02T09:00:00Z',
      packs: [stripe.pack],
    });
    const twin = walk.twin('stripe');
    await stripe.createWebhookEndpoint(twin, {
      url: walk.receiver('app').url,
      enabled_events: ['*'],
      secret: 'whsec_billing0123456789abcdefghijklmnop',
    });
    const { sub } = await subscriber(twin, 'pm_card_chargeCustomerFail', 7);
    expect(sub.status).toBe('trialing');
    await stripe.advanceWithBilling(walk, twin, 30 * DAY);
    const mine = (await events(twin)).filter(
      (e) =>
        [
          e.data.object.id,
          e.data.object.customer,
          e.data.object.parent?.subscription_details?.subscription,
        ].includes(sub.id) || e.type.startsWith('invoice.payment_failed'),
    );
    const at = (type: string) =>
      mine.filter((e) => e.type === type).map((e) => new Date(e.created * 1000).toISOString());
    expect(at('customer.subscription.trial_will_end')).toEqual(['2026-03-06T09:00:00.000Z']);
    expect(at('invoice.payment_failed')).toEqual([
      '2026-03-09T10:00:00.000Z',
      '2026-03-12T10:00:00.000Z',
      '2026-03-17T10:00:00.000Z',
      '2026-03-24T10:00:00.000Z',
    ]);
    expect(at('customer.subscription.deleted')).toEqual(['2026-03-24T10:00:00.000Z']);
    const statuses = mine
      .filter((e) => e.type.startsWith('customer.subscription.'))
      .map((e) => `${e.type}:${e.data.object.status}`);
    expect(statuses).toEqual([
      'customer.subscription.created:trialing',
      'customer.subscription.trial_will_end:trialing',
      'customer.subscription.updated:active',
      'customer.subscription.updated:past_due',
      'customer.subscription.deleted:canceled',
    ]);
    const final = await stripe.getSubscription(twin, sub.id);
    expect(final).toMatchObject({
      status: 'canceled',
      cancellation_details: { reason: 'payment_failed' },
    });
    expect((await twin.list('charge')).filter((c) => c.fields.status === 'failed')).toHaveLength(4);
    await walk.close();
  });

  it('cancel_at_period_end ends it when the period does (customer.subscription.deleted, no new invoice)', async () => {
    const { clock, world, twin } = await setup();
    const { sub } = await subscriber(twin);
    const updated = await stripe.updateSubscription(twin, sub.id, { cancel_at_period_end: true });
    expect(updated).toMatchObject({
      cancel_at_period_end: true,
      cancel_at: sub.items.data[0]!.current_period_end,
    });
    expect(
      await stripe.updateSubscription(twin, sub.id, { cancel_at_period_end: true }),
    ).toMatchObject({ cancel_at_period_end: true }); // no change, no event
    await clock.advance(31 * DAY);
    await stripe.advanceBilling(twin);
    expect(await stripe.getSubscription(twin, sub.id)).toMatchObject({
      status: 'canceled',
      ended_at: sub.items.data[0]!.current_period_end,
    });
    expect(await twin.list('invoice')).toHaveLength(1);
    expect(
      (await events(twin)).filter((e) => e.type === 'customer.subscription.updated'),
    ).toHaveLength(1);
    expect(await twin.list('upcoming_invoice')).toHaveLength(0); // not renewing: no invoice.upcoming
    await world.close();
  });

  it('refuses what Stripe refuses, before anything is written', async () => {
    const { world, twin } = await setup();
    const product = await stripe.createProduct(twin, { name: 'Pro' });
    const oneTime = await stripe.createPrice(twin, {
      product: product.id,
      unit_amount: 500,
      currency: 'usd',
    });
    const monthly = await stripe.createPrice(twin, {
      product: product.id,
      unit_amount: 500,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    const customer = await stripe.createCustomer(twin, {});
    const head = await twin.head();
    await expect(
      stripe.createSubscription(twin, { customer: customer.id, items: [{ price: monthly.id }] }),
    ).rejects.toMatchObject({ vendorCode: 'resource_missing', path: 'default_payment_method' });
    await expect(
      stripe.createSubscription(twin, {
        customer: customer.id,
        items: [{ price: oneTime.id }],
        trial_period_days: 3,
      }),
    ).rejects.toMatchObject({ vendorCode: 'parameter_invalid', path: 'items[0].price' });
    await expect(
      stripe.createSubscription(twin, { customer: customer.id, items: [] }),
    ).rejects.toMatchObject({ path: 'items' });
    await expect(
      stripe.createPrice(twin, {
        product: product.id,
        unit_amount: 1,
        currency: 'usd',
        recurring: { interval: 'month', interval_count: 13 },
      }),
    ).rejects.toMatchObject({ path: 'recurring.interval_count' });
    await expect(
      stripe.attachPaymentMethod(twin, 'pm_card_chargeDeclined', { customer: customer.id }),
    ).rejects.toMatchObject({ vendorCode: 'card_declined' });
    await expect(
      stripe.attachPaymentMethod(twin, 'pm_nope', { customer: customer.id }),
    ).rejects.toMatchObject({ kind: 'not_found', path: 'id' });
    await expect(
      (async () =>
        stripe.updateCustomer(twin, customer.id, {
          invoice_settings: { default_payment_method: 'pm_missing' },
        }))(),
    ).rejects.toMatchObject({ path: 'invoice_settings.default_payment_method' });
    await expect(
      stripe.updateSubscription(twin, 'sub_missing', { bogus: 1 } as never),
    ).rejects.toMatchObject({ vendorCode: 'parameter_unknown', path: 'bogus' });
    expect(await twin.head()).toBe(head);
    await world.close();
  });
});

describe('stripe checkout, refunds and disputes', () => {
  async function price(twin: Twin, mode: 'payment' | 'subscription' = 'payment') {
    const product = await stripe.createProduct(twin, { name: 'Analytical Engine' });
    return stripe.createPrice(twin, {
      product: product.id,
      unit_amount: 4200,
      currency: 'usd',
      ...(mode === 'subscription' ? { recurring: { interval: 'month' as const } } : {}),
    });
  }

  async function session(twin: Twin, mode: 'payment' | 'subscription' = 'payment') {
    const sold = await price(twin, mode);
    return stripe.createCheckoutSession(twin, {
      mode,
      line_items: [{ price: sold.id, quantity: 2 }],
      success_url: 'https://example.com/ok',
      customer_email: 'ada@example.com',
    });
  }

  it('refuses a customer_email not shaped like an address, as Stripe does, and makes no session', async () => {
    const { world, twin } = await setup();
    const sold = await price(twin);
    const head = await twin.head();
    // a domain without its top level, as a typo leaves it
    await expect(
      stripe.createCheckoutSession(twin, {
        mode: 'payment',
        line_items: [{ price: sold.id, quantity: 1 }],
        success_url: 'https://example.com/ok',
        customer_email: 'ada@gmail',
      }),
    ).rejects.toMatchObject({
      vendorCode: 'email_invalid',
      path: 'customer_email',
      message: 'stripe: Invalid email address: ada@gmail',
    });
    expect(await twin.list('checkout_session')).toEqual([]);
    expect(await twin.head()).toBe(head);
    await world.close();
  });

  it('payment mode: a declined card leaves the session open; a good one completes it, paid', async () => {
    const { world, twin } = await setup();
    const cs = await session(twin);
    expect(cs).toMatchObject({
      status: 'open',
      amount_total: 8400,
      url: `https://checkout.stripe.com/c/pay/${cs.id}`,
    });
    expect(
      await stripe.completeCheckoutSession(twin, cs.id, {
        payment_method: 'pm_card_chargeDeclined',
      }),
    ).toMatchObject({ status: 'open' });
    const done = await stripe.completeCheckoutSession(twin, cs.id, {
      payment_method: 'pm_card_visa',
      name: 'Ada',
    });
    expect(done).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      url: null,
      customer_details: { email: 'ada@example.com', name: 'Ada' },
    });
    expect(
      (await events(twin))
        .map((e) => e.type)
        .filter((t) => !t.startsWith('product.') && !t.startsWith('price.')),
    ).toEqual([
      'payment_intent.created',
      'charge.failed',
      'payment_intent.payment_failed',
      'charge.succeeded',
      'payment_intent.succeeded',
      'checkout.session.completed',
    ]);
    expect((await events(twin)).at(-1)!.data.object.payment_intent).toBe(
      (await events(twin)).find((e) => e.type === 'payment_intent.succeeded')!.data.object.id,
    );
    await expect(stripe.completeCheckoutSession(twin, cs.id)).rejects.toMatchObject({
      vendorCode: 'checkout_session_unexpected_state',
    });
    await world.close();
  });

  it('subscription mode makes the customer, attaches the card, starts the subscription', async () => {
    const { world, twin } = await setup();
    const cs = await session(twin, 'subscription');
    const done = await stripe.completeCheckoutSession(twin, cs.id, {
      payment_method: 'pm_card_visa',
    });
    const sub = await stripe.getSubscription(twin, done.subscription!);
    expect(done).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      invoice: sub.latest_invoice,
      customer: sub.customer,
    });
    expect(sub.status).toBe('active');
    expect((await stripe.getInvoice(twin, sub.latest_invoice)).amount_paid).toBe(8400);
    await world.close();
  });

  it('a bank debit completes unpaid, then settles either way; open sessions expire on the clock', async () => {
    const { clock, world, twin } = await setup();
    const a = await session(twin);
    expect(
      await stripe.completeCheckoutSession(twin, a.id, { payment_method: 'us_bank_account' }),
    ).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    expect(
      (await stripe.settleCheckoutSession(twin, a.id, { outcome: 'succeeded' })).payment_status,
    ).toBe('paid');
    await expect(
      stripe.settleCheckoutSession(twin, a.id, { outcome: 'failed' }),
    ).rejects.toMatchObject({ vendorCode: 'checkout_session_unexpected_state' });
    const b = await session(twin);
    await stripe.completeCheckoutSession(twin, b.id, { payment_method: 'us_bank_account' });
    expect(
      (await stripe.settleCheckoutSession(twin, b.id, { outcome: 'failed' })).payment_status,
    ).toBe('unpaid');
    const c = await session(twin);
    await clock.advance(DAY + 1000);
    expect((await stripe.advanceBilling(twin)).map((d) => d.step)).toEqual(['expire_checkout']);
    expect(await stripe.getCheckoutSession(twin, c.id)).toMatchObject({
      status: 'expired',
      url: null,
    });
    const types = (await events(twin)).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('checkout.'))).toEqual([
      'checkout.session.completed',
      'checkout.session.async_payment_succeeded',
      'checkout.session.completed',
      'checkout.session.async_payment_failed',
      'checkout.session.expired',
    ]);
    await world.close();
  });

  it('refunds add up on the charge (charge.refunded each time); a dispute marks it disputed, once', async () => {
    const { world, twin } = await setup();
    const pi = await stripe.createPaymentIntent(twin, { amount: 1000, currency: 'usd' });
    const charge = (
      await stripe.confirmPaymentIntent(twin, pi.id, { payment_method: 'pm_card_visa' })
    ).latest_charge!;
    await stripe.refundCharge(twin, charge, { amount: 400 });
    await expect(stripe.refundCharge(twin, charge, { amount: 700 })).rejects.toMatchObject({
      vendorCode: 'amount_too_large',
      path: 'amount',
    });
    await stripe.refundCharge(twin, charge);
    await expect(stripe.refundCharge(twin, charge)).rejects.toMatchObject({
      vendorCode: 'charge_already_refunded',
    });
    const refunded = (await events(twin))
      .filter((e) => e.type === 'charge.refunded')
      .map((e) => [e.data.object.amount_refunded, e.data.object.refunded]);
    expect(refunded).toEqual([
      [400, false],
      [1000, true],
    ]);
    const dispute = await stripe.disputeCharge(twin, charge, { reason: 'fraudulent' });
    expect(dispute).toMatchObject({
      charge,
      amount: 1000,
      status: 'needs_response',
      reason: 'fraudulent',
    });
    expect((await twin.get('charge', charge))!.fields.disputed).toBe(true);
    await expect(stripe.disputeCharge(twin, charge)).rejects.toMatchObject({
      vendorCode: 'charge_disputed',
    });
    await world.close();
  });
});
