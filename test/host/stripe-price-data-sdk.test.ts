// Checkout with inline prices, as the unmodified stripe package sends them: `line_items[].price_data`
// (with `product_data`, or an existing `product`) makes an archived price that the session's line
// items, its payment and the subscription it starts use like a catalog price, that prices.list
// leaves out and no other call may reuse; the refusals are Stripe's own.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_priceDataConformance';

describe('stripe-node checkout with price_data against the Stripe surface', () => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;

  beforeAll(async () => {
    const fresh = homes[0]!.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'price-data', Date.parse('2026-06-01T00:00:00Z'));
    stripe = new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  const pay = async (session: Stripe.Checkout.Session): Promise<void> => {
    await stripe.rawRequest('POST', new URL(session.url!).pathname, {});
  };

  const allPrices = async (params: Stripe.PriceListParams = {}): Promise<string[]> =>
    (await stripe.prices.list({ limit: 100, ...params }).autoPagingToArray({ limit: 1000 })).map(
      (p) => p.id,
    );

  it('payment mode with product_data: an archived inline price and product, paid like a catalog price', async () => {
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          price_data: {
            currency: 'usd',
            unit_amount: 1500,
            product_data: {
              name: 'Custom engraving',
              description: 'One line',
              metadata: { k: 'v' },
            },
          },
          quantity: 2,
        },
      ],
      success_url: 'https://app.example/success',
      customer_email: 'buyer@example.com',
    });
    expect(session).toMatchObject({ status: 'open', amount_total: 3000, currency: 'usd' });
    const lines = await stripe.checkout.sessions.listLineItems(session.id, {
      expand: ['data.price.product'],
    });
    expect(lines.data).toHaveLength(1);
    const line = lines.data[0]!;
    expect(line).toMatchObject({
      amount_subtotal: 3000,
      amount_total: 3000,
      currency: 'usd',
      description: 'Custom engraving',
      quantity: 2,
    });
    const price = line.price!;
    expect(price).toMatchObject({
      object: 'price',
      active: false,
      unit_amount: 1500,
      currency: 'usd',
      type: 'one_time',
      recurring: null,
      tax_behavior: 'unspecified',
    });
    // the SDK reads unit_amount_decimal into its Decimal
    expect(String(price.unit_amount_decimal)).toBe('1500');
    const product = price.product as Stripe.Product;
    expect(product).toMatchObject({
      object: 'product',
      active: false,
      name: 'Custom engraving',
      description: 'One line',
      metadata: { k: 'v' },
    });
    // retrievable by id, as any price and product
    expect(await stripe.prices.retrieve(price.id)).toMatchObject({ id: price.id, active: false });
    expect(await stripe.products.retrieve(product.id)).toMatchObject({ id: product.id });
    // the session's own expand shows the same line
    const expanded = await stripe.checkout.sessions.retrieve(session.id, {
      expand: ['line_items'],
    });
    expect(expanded.line_items!.data[0]!.price!.id).toBe(price.id);
    // left out of the lists
    expect(await allPrices()).not.toContain(price.id);
    expect(await allPrices({ active: false })).not.toContain(price.id);
    expect(await allPrices({ product: product.id })).toEqual([]);
    const products = await stripe.products.list({ limit: 100 }).autoPagingToArray({ limit: 1000 });
    expect(products.map((p) => p.id)).not.toContain(product.id);
    // paid as for a catalog price
    await pay(session);
    const paid = await stripe.checkout.sessions.retrieve(session.id, {
      expand: ['payment_intent'],
    });
    expect(paid).toMatchObject({ status: 'complete', payment_status: 'paid' });
    expect(paid.payment_intent).toMatchObject({ amount: 3000, status: 'succeeded' });
  });

  it('payment mode with an existing product: the inline price is that product’s, yet not listed under it', async () => {
    const product = await stripe.products.create({ name: 'Poster' });
    const catalog = await stripe.prices.create({
      product: product.id,
      unit_amount: 900,
      currency: 'usd',
    });
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        { price: catalog.id, quantity: 1 },
        {
          price_data: {
            currency: 'usd',
            unit_amount_decimal: Stripe.Decimal.from('2500'),
            product: product.id,
          },
          quantity: 1,
        },
      ],
      success_url: 'https://app.example/success',
    });
    expect(session.amount_total).toBe(3400);
    const lines = await stripe.checkout.sessions.listLineItems(session.id);
    const inline = lines.data[1]!.price!;
    expect(inline).toMatchObject({ product: product.id, unit_amount: 2500, active: false });
    expect(lines.data[1]!.description).toBe('Poster');
    expect(await allPrices({ product: product.id })).toEqual([catalog.id]);
    expect(await allPrices()).not.toContain(inline.id);
    await pay(session);
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
    });
  });

  it('subscription mode: the subscription the session starts, and its invoice, use the inline recurring price', async () => {
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [
        {
          price_data: {
            currency: 'usd',
            unit_amount: 1200,
            recurring: { interval: 'month', interval_count: 3 },
            product_data: { name: 'Quarterly plan' },
            tax_behavior: 'exclusive',
          },
          quantity: 1,
        },
      ],
      success_url: 'https://app.example/success',
      customer_email: 'sub@example.com',
    });
    const price = (await stripe.checkout.sessions.listLineItems(session.id)).data[0]!.price!;
    expect(price).toMatchObject({
      active: false,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 3 },
      tax_behavior: 'exclusive',
    });
    await pay(session);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    expect(done).toMatchObject({ status: 'complete', payment_status: 'paid' });
    const sub = await stripe.subscriptions.retrieve(done.subscription as string);
    expect(sub.status).toBe('active');
    expect(sub.items.data[0]!.price.id).toBe(price.id);
    const invoice = await stripe.invoices.retrieve(sub.latest_invoice as string);
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: 1200 });
    expect(invoice.lines.data[0]!.pricing?.price_details?.price).toBe(price.id);
    expect(await allPrices()).not.toContain(price.id);
    // archived and the session's own: no other subscription may use it
    const customer = await stripe.customers.create({ email: 'other@example.com' });
    await expect(
      stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError' });
    // nor another session
    await expect(
      stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: price.id, quantity: 1 }],
        success_url: 'https://app.example/success',
      }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', param: 'line_items[0][price]' });
  });

  it('refuses as Stripe does: both price and price_data, neither, unknown keys, recurring in payment mode', async () => {
    const product = await stripe.products.create({ name: 'Mug' });
    const catalog = await stripe.prices.create({
      product: product.id,
      unit_amount: 700,
      currency: 'usd',
    });
    const create = (line: Record<string, unknown>, mode: 'payment' | 'subscription' = 'payment') =>
      stripe.checkout.sessions.create({
        mode,
        line_items: [line as Stripe.Checkout.SessionCreateParams.LineItem],
        success_url: 'https://app.example/success',
      });
    const before = (await stripe.checkout.sessions.list({ limit: 100 })).data.length;
    await expect(
      create({
        price: catalog.id,
        price_data: { currency: 'usd', unit_amount: 100, product: product.id },
        quantity: 1,
      }),
    ).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      message: 'You may only specify one of these parameters: price, price_data.',
    });
    await expect(create({ quantity: 1 })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      message: 'You must provide either price or price_data for each line item when using prices.',
    });
    await expect(
      create({
        price_data: { currency: 'usd', unit_amount: 100, product: product.id, foo: 'x' },
        quantity: 1,
      }),
    ).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'parameter_unknown',
      param: 'line_items[0][price_data][foo]',
    });
    await expect(
      create({
        price_data: { currency: 'usd', unit_amount: 100, product_data: { name: 'x', foo: 'y' } },
        quantity: 1,
      }),
    ).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'line_items[0][price_data][product_data][foo]',
    });
    await expect(
      create({
        price_data: {
          currency: 'usd',
          unit_amount: 100,
          product: product.id,
          recurring: { interval: 'month' },
        },
        quantity: 1,
      }),
    ).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      message:
        'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
    });
    await expect(
      create({
        price_data: {
          currency: 'usd',
          unit_amount: 100,
          product: product.id,
          product_data: { name: 'x' },
        },
        quantity: 1,
      }),
    ).rejects.toMatchObject({
      message: 'You may only specify one of these parameters: product, product_data.',
    });
    await expect(
      create({ price_data: { currency: 'usd', product: product.id }, quantity: 1 }),
    ).rejects.toMatchObject({
      code: 'parameter_missing',
      param: 'line_items[0][price_data][unit_amount]',
    });
    await expect(
      create({ price_data: { unit_amount: 100, product: product.id }, quantity: 1 }),
    ).rejects.toMatchObject({
      code: 'parameter_missing',
      param: 'line_items[0][price_data][currency]',
    });
    await expect(
      create({ price_data: { currency: 'usd', unit_amount: 100 }, quantity: 1 }),
    ).rejects.toMatchObject({ code: 'parameter_missing' });
    await expect(
      create({
        price_data: { currency: 'usd', unit_amount: 100, product: 'prod_nope' },
        quantity: 1,
      }),
    ).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'line_items[0][price_data][product]',
    });
    // nothing was made by any refusal: no session, no inline price
    expect((await stripe.checkout.sessions.list({ limit: 100 })).data).toHaveLength(before);
  });
});
