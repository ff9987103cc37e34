// Checkout and the test-clock month, as the unmodified stripe package drives them, on SQLite and
// PostgreSQL: a session completed headlessly sends checkout.session.completed; a subscription on
// a test clock advanced one month renews with invoice.created, .finalized, .paid and
// customer.subscription.updated, every packet verifying with the endpoint's secret.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeSdk, type StripeSdk, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_billingConformance';

describe.each(homes)('stripe-node billing against the Stripe surface ($name)', (home) => {
  let sdk: StripeSdk;
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    sdk = await startStripeSdk(fresh.spec, 'billing', '2026-06-01T00:00:00Z', KEY);
    ({ twin, stripe } = sdk);
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('Checkout: created, completed headlessly, checkout.session.completed delivered', async () => {
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
      customer_email: 'buyer@example.com',
    });
    expect(session).toMatchObject({
      object: 'checkout.session',
      status: 'open',
      amount_total: 3000,
    });
    const lines = await stripe.checkout.sessions.listLineItems(session.id);
    expect(lines.data).toHaveLength(1);
    // the hosted page is on the twin's own origin, in every answer that carries the session
    const page = new URL(session.url!);
    expect(page.origin).toBe(twin.host.origin);
    expect((await stripe.checkout.sessions.list({ limit: 1 })).data[0]!.url).toBe(session.url);
    const shown = (await stripe.rawRequest('GET', page.pathname, {})) as unknown as {
      session: { id: string };
      line_items: unknown[];
    };
    expect(shown.session.id).toBe(session.id);
    expect(shown.line_items).toHaveLength(1);
    // paying on it headlessly, as the customer would
    await stripe.rawRequest('POST', page.pathname, {});
    expect(await stripe.checkout.sessions.retrieve(session.id)).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      url: null,
    });
    // the older completion path answers a completed session's refusal in Stripe's envelope
    await expect(
      stripe.rawRequest('POST', `/v1/_twinworld/checkout/sessions/${session.id}/complete`, {}),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError' });
    await twin.host.idle();
    const types = (await sdk.delivered()).map((e) => e.type);
    expect(types).toContain('checkout.session.completed');
    const completed = (await sdk.delivered()).find((e) => e.type === 'checkout.session.completed')!;
    expect((completed.data.object as { id: string }).id).toBe(session.id);
    // expiring a completed session is refused, with nothing appended
    await expect(stripe.checkout.sessions.expire(session.id)).rejects.toBeInstanceOf(
      Stripe.errors.StripeInvalidRequestError,
    );
  });

  it('a subscription on a test clock advanced one month: customer.subscription.updated + invoice.created, then invoice.finalized, .paid, in order', async () => {
    const start = Math.floor(twin.world.clock.now() / 1000);
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: start, name: 'month' });
    expect(clock).toMatchObject({
      object: 'test_helpers.test_clock',
      status: 'ready',
      frozen_time: start,
    });
    const customer = await stripe.customers.create({
      email: 'sub@example.com',
      test_clock: clock.id,
    });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    await stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: pm.id },
    });
    const product = await stripe.products.create({ name: 'Plan' });
    const price = await stripe.prices.create({
      product: product.id,
      unit_amount: 900,
      currency: 'usd',
      recurring: { interval: 'month' },
    });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
    });
    expect(sub.status).toBe('active');
    await twin.host.idle();
    const before = twin.receiver.requests.length;

    // milliseconds taken for seconds, or more than two years at once: refused, the clock unmoved
    const worldBefore = twin.world.clock.now();
    for (const frozen_time of [start * 1000, start + 3 * 365 * 86_400])
      await expect(
        stripe.testHelpers.testClocks.advance(clock.id, { frozen_time }),
      ).rejects.toMatchObject({ statusCode: 400, code: 'parameter_invalid', param: 'frozen_time' });
    await expect(
      stripe.testHelpers.testClocks.create({ frozen_time: start * 1000 }),
    ).rejects.toMatchObject({
      statusCode: 400,
      param: 'frozen_time',
      message: expect.stringContaining('looks like milliseconds'),
    });
    expect(twin.world.clock.now()).toBe(worldBefore);
    const advanced = await stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: start + 32 * 86_400,
    });
    expect(advanced.status).toBe('advancing');
    expect((await stripe.testHelpers.testClocks.retrieve(clock.id)).status).toBe('ready');
    await twin.host.idle();
    const after = (await sdk.delivered()).slice(before);
    const types = after.map((e) => e.type);
    const want = [
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'customer.subscription.updated',
    ];
    for (const t of want) expect(types).toContain(t);
    // in order: events.list (the log's order, newest first) read oldest first; deliveries run
    // concurrently, so arrival order is not the order Stripe promises either
    const listed = await stripe.events.list({ limit: 100 });
    const inLog = listed.data.filter((e) => after.some((a) => a.id === e.id)).reverse();
    expect(inLog.map((e) => e.created)).toEqual(inLog.map((e) => e.created).sort((a, b) => a - b));
    // The renewal, exactly: at the period's end the subscription moves to its new period and its
    // draft invoice is made (one commit: subscription.updated, then invoice.created, one instant);
    // an hour later the draft is finalized and paid (docs/stripe-surface.md).
    const renewal = inLog.filter((e) => [...want, 'invoice.payment_succeeded'].includes(e.type));
    expect(renewal.map((e) => e.type)).toEqual([
      'customer.subscription.updated',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
    const [updated, created, finalized, paid] = renewal;
    expect(created!.created).toBe(updated!.created);
    expect(finalized!.created - created!.created).toBe(3600);
    expect(paid!.created).toBe(finalized!.created);
    const renewed = updated!.data.object as Stripe.Subscription;
    expect(renewed.latest_invoice).toBe((created!.data.object as Stripe.Invoice).id);
    expect(renewed.items.data[0]!.current_period_start).toBe(updated!.created);
    const invoices = await stripe.invoices.list({ subscription: sub.id });
    expect(invoices.data.length).toBeGreaterThanOrEqual(2);
    expect(invoices.data[0]).toMatchObject({ status: 'paid' });
    // the world clock moved with the test clock
    expect(Math.floor(twin.world.clock.now() / 1000)).toBe(start + 32 * 86_400);
  });
});
