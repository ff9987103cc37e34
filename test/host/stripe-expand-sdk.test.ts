// `expand[]` as stripe-node sends it, against a real host on loopback: every level of a dotted
// path expanded (retrieve, a write's answer, a list's `data.` items), includable fields added, and
// every path Stripe cannot expand refused in Stripe's words — never answered 200 with nothing done.
// None depends on how the store keeps rows, so SQLite is enough.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_expandConformance';
const sqlite = homes.filter((h) => h.name === 'sqlite');

const cannotExpand = (path: string, hint = '') => ({
  statusCode: 400,
  type: 'StripeInvalidRequestError',
  message: `This property cannot be expanded (${path}).${hint}`,
});

describe.each(sqlite)('stripe-node expands nested paths as Stripe does ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;
  let customer: Stripe.Customer;
  let subscription: Stripe.Subscription;
  let paid: Stripe.PaymentIntent;

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'expand', Date.parse('2026-07-01T00:00:00Z'));
    stripe = new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
    customer = await stripe.customers.create({ email: 'nested@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const product = await stripe.products.create({ name: 'Nested plan' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 1200,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    subscription = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      default_payment_method: pm.id,
    });
    paid = await stripe.paymentIntents.create({
      amount: 800,
      currency: 'usd',
      customer: customer.id,
      payment_method: 'pm_card_visa',
      confirm: true,
    });
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('every level of a path is expanded: retrieve, a list, and an includable field', async () => {
    const sub = await stripe.subscriptions.retrieve(subscription.id, {
      expand: ['latest_invoice.confirmation_secret', 'customer'],
    });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ object: 'invoice', id: subscription.latest_invoice });
    expect(invoice.confirmation_secret).toEqual({
      client_secret: expect.stringMatching(/^pi_\w+_secret_\w+$/),
      type: 'payment_intent',
    });
    expect((sub.customer as Stripe.Customer).email).toBe('nested@example.com');
    // the field is includable only: an invoice read without it does not carry it
    const plain = await stripe.invoices.retrieve(invoice.id);
    expect(plain).not.toHaveProperty('confirmation_secret');

    const charge = await stripe.charges.retrieve(paid.latest_charge as string, {
      expand: ['payment_intent.customer'],
    });
    const intent = charge.payment_intent as Stripe.PaymentIntent;
    expect(intent.id).toBe(paid.id);
    expect((intent.customer as Stripe.Customer).id).toBe(customer.id);

    const listed = await stripe.paymentIntents.list({
      customer: customer.id,
      expand: ['data.latest_charge.payment_intent'],
    });
    const item = listed.data.find((p) => p.id === paid.id)!;
    const latest = item.latest_charge as Stripe.Charge;
    expect(latest.object).toBe('charge');
    expect((latest.payment_intent as Stripe.PaymentIntent).id).toBe(paid.id);
  });

  it("a write's answer is expanded at every level too", async () => {
    const refund = await stripe.refunds.create({
      payment_intent: paid.id,
      amount: 100,
      expand: ['charge.payment_intent.customer'],
    });
    const intent = (refund.charge as Stripe.Charge).payment_intent as Stripe.PaymentIntent;
    expect((intent.customer as Stripe.Customer).email).toBe('nested@example.com');
    const updated = await stripe.customers.update(customer.id, {
      name: 'Ada',
      expand: ['invoice_settings.default_payment_method'],
    });
    expect(updated.invoice_settings.default_payment_method).toBeNull();
  });

  it('a path Stripe cannot expand is refused, naming the path up to the part it could not expand', async () => {
    const refused = (p: Promise<unknown>) => expect(p).rejects;
    // basil took payment_intent off the invoice: its confirmation_secret says it now
    await refused(
      stripe.subscriptions.retrieve(subscription.id, {
        expand: ['latest_invoice.payment_intent'],
      }),
    ).toMatchObject(cannotExpand('latest_invoice.payment_intent'));
    await refused(
      stripe.paymentIntents.retrieve(paid.id, { expand: ['customer.nonsense'] }),
    ).toMatchObject(cannotExpand('customer.nonsense'));
    await refused(
      stripe.paymentIntents.retrieve(paid.id, { expand: ['nonsense.deeper'] }),
    ).toMatchObject(cannotExpand('nonsense'));
    await refused(
      stripe.paymentIntents.list({ expand: ['data.latest_charge.nonsense'] }),
    ).toMatchObject(cannotExpand('data.latest_charge.nonsense'));
    // fields that hold no reference: a plain string, a hash, a number
    await refused(stripe.customers.retrieve(customer.id, { expand: ['email'] })).toMatchObject(
      cannotExpand('email'),
    );
    await refused(stripe.customers.retrieve(customer.id, { expand: ['metadata'] })).toMatchObject(
      cannotExpand('metadata'),
    );
    await refused(
      stripe.paymentIntents.retrieve(paid.id, { expand: ['latest_charge.amount'] }),
    ).toMatchObject(cannotExpand('latest_charge.amount'));
    await refused(
      stripe.customers.update(customer.id, { expand: ['invoice_settings.nonsense'] }),
    ).toMatchObject(cannotExpand('invoice_settings.nonsense'));
    // a list's items are under data: Stripe says so
    await refused(stripe.paymentIntents.list({ expand: ['customer'] })).toMatchObject(
      cannotExpand('customer', " You may want to try expanding 'data.customer' instead."),
    );
    // a prototype's name is no field
    await refused(
      stripe.paymentIntents.retrieve(paid.id, { expand: ['constructor'] }),
    ).toMatchObject(cannotExpand('constructor'));
  });

  it('more than four levels is refused as Stripe does; four are fine, data counting as one', async () => {
    const five = 'data.latest_charge.payment_intent.customer.default_source';
    await expect(stripe.paymentIntents.list({ expand: [five] })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      code: 'property_expansion_max_depth',
      message: `You cannot expand more than 4 levels of a property. Property: ${five}`,
    });
    const four = await stripe.paymentIntents.list({
      customer: customer.id,
      expand: ['data.latest_charge.payment_intent.customer'],
    });
    const deep = four.data.find((p) => p.id === paid.id)!.latest_charge as Stripe.Charge;
    const pi = deep.payment_intent as Stripe.PaymentIntent;
    expect((pi.customer as Stripe.Customer).id).toBe(customer.id);
  });

  it('a level holding null has nothing to expand: the rest of the path is not looked at', async () => {
    const bare = await stripe.paymentIntents.create({ amount: 900, currency: 'usd' });
    const got = await stripe.paymentIntents.retrieve(bare.id, {
      expand: ['customer.anything', 'latest_charge'],
    });
    expect(got).toMatchObject({ customer: null, latest_charge: null });
  });

  it("a Checkout Session's line items are Stripe's item objects, listed or expanded", async () => {
    const product = await stripe.products.create({ name: 'Poster' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 1500,
      currency: 'usd',
    });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [{ price: price.id, quantity: 2 }],
      success_url: 'https://app.example/success',
    });
    const item = {
      id: expect.stringMatching(/^li_\w{24}$/),
      object: 'item',
      amount_discount: 0,
      amount_subtotal: 3000,
      amount_tax: 0,
      amount_total: 3000,
      currency: 'usd',
      description: 'Poster',
      price: { id: price.id, object: 'price', unit_amount: 1500, product: product.id },
      quantity: 2,
    };
    const listed = await stripe.checkout.sessions.listLineItems(session.id);
    expect(listed).toMatchObject({
      object: 'list',
      data: [item],
      has_more: false,
      url: `/v1/checkout/sessions/${session.id}/line_items`,
    });
    // the same item, the same id, on every read
    const again = await stripe.checkout.sessions.listLineItems(session.id);
    expect(again.data[0]!.id).toBe(listed.data[0]!.id);
    // includable on the session: absent unless asked for
    expect(await stripe.checkout.sessions.retrieve(session.id)).not.toHaveProperty('line_items');
    const expanded = await stripe.checkout.sessions.retrieve(session.id, {
      expand: ['line_items.data.price.product'],
    });
    expect(expanded.line_items).toMatchObject({
      object: 'list',
      data: [{ ...item, price: { id: price.id } }],
    });
    expect(expanded.line_items!.data[0]!.id).toBe(listed.data[0]!.id);
    expect((expanded.line_items!.data[0]!.price!.product as Stripe.Product).name).toBe('Poster');
  });
});
