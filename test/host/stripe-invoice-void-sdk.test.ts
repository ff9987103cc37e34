// Closing an unpaid invoice as stripe-node drives it, on every backend: invoices.voidInvoice (an
// open or uncollectible invoice void, its payment intent canceled, invoice.voided) and
// invoices.markUncollectible (an open invoice uncollectible, still owed, invoice.marked_uncollectible),
// the statuses Stripe refuses in its own words with nothing written, and an incomplete subscription
// expiring now sending invoice.voided for its first invoice. Every webhook verifies.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeSdk, type StripeSdk, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_invoiceVoidConformance';
const NOT_OPEN = "You can only pass in open invoices. This invoice isn't open.";

/** The payment intent a client secret belongs to, as Stripe.js reads it. */
const intentOf = (secret: string) => secret.slice(0, secret.indexOf('_secret_'));

describe.each(homes)('stripe-node: voiding and writing off invoices ($name)', (home) => {
  let sdk: StripeSdk;
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;
  let price: Stripe.Price;
  const nowSec = () => Math.floor(twin.world.clock.now() / 1000);
  const eventsAbout = (...ids: string[]) => sdk.eventsAbout(...ids);
  /** The events about `ids` from `from` on (a count `eventsAbout` gave before the call). */
  const eventsSince = async (from: number, ...ids: string[]) =>
    (await eventsAbout(...ids)).slice(from);
  /** stripe-node reads *_decimal fields of an answer as Decimals, not of a webhook: compare as JSON. */
  const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
  /** A subscription left incomplete: its first invoice open, its payment intent unconfirmed. */
  const openInvoice = async (email: string) => {
    const customer = await stripe.customers.create({ email });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      expand: ['latest_invoice.confirmation_secret'],
    });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice.status).toBe('open');
    return { sub, invoice, pi: intentOf(invoice.confirmation_secret!.client_secret) };
  };
  /** `call` refused as Stripe refuses a status it does not take, the invoice and log untouched. */
  const refusedNotOpen = async (id: string, call: () => Promise<unknown>) => {
    const before = await stripe.invoices.retrieve(id);
    const events = (await stripe.events.list({ limit: 100 })).data.length;
    const refused = await call().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 400, message: NOT_OPEN });
    expect((refused as Stripe.errors.StripeError).code).toBeUndefined();
    expect(await stripe.invoices.retrieve(id)).toEqual(before);
    expect((await stripe.events.list({ limit: 100 })).data.length).toBe(events);
  };

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    sdk = await startStripeSdk(fresh.spec, 'invoice-void', '2026-09-01T00:00:00Z', KEY);
    ({ twin, stripe } = sdk);
    const product = await stripe.products.create({ name: 'Void plan' });
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

  it('voidInvoice: an open invoice is void, nothing left owed, its payment intent canceled; invoice.voided', async () => {
    const { invoice, pi } = await openInvoice('void@example.com');
    const seen = (await eventsAbout(invoice.id, pi)).length;
    const at = nowSec();
    const voided = await stripe.invoices.voidInvoice(invoice.id);
    expect(voided).toMatchObject({
      id: invoice.id,
      status: 'void',
      amount_due: 1500,
      amount_paid: 0,
      amount_remaining: 0,
      auto_advance: false,
      next_payment_attempt: null,
      status_transitions: {
        finalized_at: invoice.status_transitions.finalized_at,
        voided_at: at,
        marked_uncollectible_at: null,
        paid_at: null,
      },
    });
    expect(await stripe.invoices.retrieve(invoice.id)).toEqual(voided);
    expect(await stripe.paymentIntents.retrieve(pi)).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'void_invoice',
      canceled_at: at,
    });
    const events = await eventsSince(seen, invoice.id, pi);
    expect(events.map((e) => e.type)).toEqual(['invoice.voided', 'payment_intent.canceled']);
    expect(json(events[0]!.data.object)).toEqual(json(voided));
    expect(events[0]!.data.previous_attributes).toBeUndefined();
    // one call, one request: both events name it
    expect(new Set(events.map((e) => e.request?.id)).size).toBe(1);
    expect(events[0]!.request?.id).toMatch(/^req_/);
    // a void invoice cannot be paid any more, by its intent or by invoices.pay
    await expect(
      stripe.paymentIntents.confirm(pi, { payment_method: 'pm_card_visa' }),
    ).rejects.toMatchObject({ code: 'payment_intent_unexpected_state' });
    await expect(stripe.invoices.pay(invoice.id)).rejects.toMatchObject({ statusCode: 400 });
    // void is terminal: a second void or a write-off is refused, and writes nothing
    await refusedNotOpen(invoice.id, () => stripe.invoices.voidInvoice(invoice.id));
    await refusedNotOpen(invoice.id, () => stripe.invoices.markUncollectible(invoice.id));
  });

  it('markUncollectible: an open invoice is uncollectible, still owed, its intent kept; then it can be voided', async () => {
    const { invoice, pi } = await openInvoice('writeoff@example.com');
    const seen = (await eventsAbout(invoice.id, pi)).length;
    const at = nowSec();
    const written = await stripe.invoices.markUncollectible(invoice.id);
    expect(written).toMatchObject({
      status: 'uncollectible',
      amount_due: 1500,
      amount_remaining: 1500,
      auto_advance: false,
      next_payment_attempt: null,
      status_transitions: { marked_uncollectible_at: at, voided_at: null, paid_at: null },
    });
    expect((await stripe.paymentIntents.retrieve(pi)).status).toBe('requires_payment_method');
    const marked = await eventsSince(seen, invoice.id, pi);
    expect(marked.map((e) => e.type)).toEqual(['invoice.marked_uncollectible']);
    expect(json(marked[0]!.data.object)).toEqual(json(written));
    // only an open invoice can be written off
    await refusedNotOpen(invoice.id, () => stripe.invoices.markUncollectible(invoice.id));

    // Stripe's status table: an uncollectible invoice may still be voided, or paid (below)
    const voided = await stripe.invoices.voidInvoice(invoice.id);
    expect(voided).toMatchObject({
      status: 'void',
      amount_remaining: 0,
      status_transitions: { marked_uncollectible_at: at, voided_at: nowSec() },
    });
    expect((await stripe.paymentIntents.retrieve(pi)).status).toBe('canceled');
    const all = await eventsSince(seen, invoice.id, pi);
    expect(all.map((e) => e.type)).toEqual([
      'invoice.marked_uncollectible',
      'invoice.voided',
      'payment_intent.canceled',
    ]);
  });

  it('an uncollectible invoice can still be paid through its payment intent', async () => {
    const { sub, invoice, pi } = await openInvoice('latepayer@example.com');
    await stripe.invoices.markUncollectible(invoice.id);
    const seen = (await eventsAbout(invoice.id)).length;
    expect(
      (await stripe.paymentIntents.confirm(pi, { payment_method: 'pm_card_visa' })).status,
    ).toBe('succeeded');
    expect(await stripe.invoices.retrieve(invoice.id)).toMatchObject({
      status: 'paid',
      amount_paid: 1500,
      amount_remaining: 0,
      status_transitions: { marked_uncollectible_at: expect.any(Number), paid_at: nowSec() },
    });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe('active');
    expect((await eventsSince(seen, invoice.id)).map((e) => e.type)).toEqual([
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
    await refusedNotOpen(invoice.id, () => stripe.invoices.voidInvoice(invoice.id));
  });

  it('a paid invoice is neither voided nor written off; an unknown one is resource_missing', async () => {
    const customer = await stripe.customers.create({ email: 'paid@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      default_payment_method: pm.id,
    });
    const paid = sub.latest_invoice as string;
    expect((await stripe.invoices.retrieve(paid)).status).toBe('paid');
    await refusedNotOpen(paid, () => stripe.invoices.voidInvoice(paid));
    await refusedNotOpen(paid, () => stripe.invoices.markUncollectible(paid));
    for (const call of [
      () => stripe.invoices.voidInvoice('in_nothingHere'),
      () => stripe.invoices.markUncollectible('in_nothingHere'),
    ])
      await expect(call()).rejects.toMatchObject({
        statusCode: 404,
        code: 'resource_missing',
        message: "No such invoice: 'in_nothingHere'",
      });
  });

  // The two tests below move the world's clock: they run last.
  it('an incomplete subscription expiring voids its first invoice with invoice.voided', async () => {
    const { sub, invoice, pi } = await openInvoice('expires@example.com');
    const seen = (await eventsAbout(sub.id, invoice.id, pi)).length;
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: nowSec() });
    const due = sub.created + 23 * 3600;
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: due + 60 });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe('incomplete_expired');
    const voided = await stripe.invoices.retrieve(invoice.id);
    expect(voided).toMatchObject({
      status: 'void',
      amount_remaining: 0,
      status_transitions: { voided_at: due },
    });
    // (the clock's own attempt at the open invoice, before it expires, is not this test's subject)
    const ended = (await eventsSince(seen, sub.id, invoice.id, pi)).filter(
      (e) => e.created === due,
    );
    expect(ended.map((e) => e.type)).toEqual([
      'invoice.voided',
      'payment_intent.canceled',
      'customer.subscription.deleted',
    ]);
    expect(json(ended[0]!.data.object)).toEqual(json(voided));
  });

  it('a draft invoice is refused: it is not open yet', async () => {
    const customer = await stripe.customers.create({ email: 'draft@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      default_payment_method: pm.id,
    });
    const end = sub.items.data[0]!.current_period_end;
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: nowSec() });
    // a minute past the period's end: the renewal is drafted, and finalized only an hour on
    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: end + 60 });
    const [draft] = (await stripe.invoices.list({ subscription: sub.id, status: 'draft' })).data;
    expect(draft?.status).toBe('draft');
    await refusedNotOpen(draft!.id, () => stripe.invoices.voidInvoice(draft!.id));
    await refusedNotOpen(draft!.id, () => stripe.invoices.markUncollectible(draft!.id));
  });
});
