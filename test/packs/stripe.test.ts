// Stripe pack: Event objects as Stripe renders them, endpoint filters and status, the payment
// intent lifecycle with refused transitions, idempotency keys, and a retried attempt over real
// HTTP that stripe-node verifies both times.
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import { isVendorError } from '../../packs/kit/errors.js';
import * as stripe from '../../packs/stripe/index.js';
import { collect } from '../support/backends.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { secrets, virtualWorld } from './support.js';
import { stripeVerifier } from './verifiers.js';

type StripeEvent = {
  id: string;
  type: string;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
};

function setup() {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-03-01T00:00:00Z'),
    seed: 'stripe',
  });
  const twin = registerPack(world, stripe.pack);
  const events = async (endpointId?: string): Promise<StripeEvent[]> =>
    (await twin.list('webhook_delivery'))
      .filter((d) => endpointId === undefined || d.fields.endpointId === endpointId)
      .sort((a, b) => a.version - b.version)
      .map((d) => JSON.parse(String(d.fields.body)) as StripeEvent);
  return { world, twin, events };
}

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

describe('stripe customers', () => {
  it('create/update/delete send customer.* Events; previous_attributes only on updates', async () => {
    const s = setup();
    const ep = await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://example.com/hooks',
      enabled_events: ['*'],
    });
    const c = await stripe.createCustomer(s.twin, {
      email: 'ada@example.com',
      metadata: { tier: 'free' },
    });
    expect(c.id).toMatch(/^cus_[0-9A-Za-z]{14}$/);
    await stripe.updateCustomer(s.twin, c.id, {
      name: 'Ada',
      metadata: { tier: 'pro', region: 'eu' },
    });
    await stripe.deleteCustomer(s.twin, c.id);
    const [created, updated, deleted] = await s.events(ep.id);
    expect(created).toMatchObject({
      object: 'event',
      api_version: stripe.STRIPE_API_VERSION,
      livemode: false,
      pending_webhooks: 1,
      type: 'customer.created',
    });
    expect(Object.keys(created!)).toEqual([
      'id',
      'object',
      'api_version',
      'created',
      'data',
      'livemode',
      'pending_webhooks',
      'request',
      'type',
    ]);
    expect(created!.data.previous_attributes).toBeUndefined();
    expect(Object.keys(created!.data.object).slice(0, 2)).toEqual(['id', 'object']);
    expect(created!.data.object).toMatchObject({
      id: c.id,
      object: 'customer',
      email: 'ada@example.com',
      metadata: { tier: 'free' },
    });
    expect(created!.request.id).toMatch(/^req_/);
    expect(updated!.type).toBe('customer.updated');
    expect(updated!.data.object).toMatchObject({
      name: 'Ada',
      metadata: { tier: 'pro', region: 'eu' },
    });
    expect(updated!.data.previous_attributes).toEqual({
      name: null,
      metadata: { tier: 'free', region: null },
    });
    expect(deleted).toMatchObject({
      type: 'customer.deleted',
      data: { object: { id: c.id, object: 'customer' } },
    });
    expect(deleted!.data.previous_attributes).toBeUndefined();
    await expect(stripe.updateCustomer(s.twin, c.id, { name: 'x' })).rejects.toThrow(
      /No such customer/,
    );
  });

  it('an update that changes nothing writes nothing and sends nothing', async () => {
    const s = setup();
    await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://example.com/hooks',
      enabled_events: ['customer.updated'],
    });
    const c = await stripe.createCustomer(s.twin, { email: 'a@example.com' });
    const head = await s.twin.head();
    await stripe.updateCustomer(s.twin, c.id, { email: 'a@example.com' });
    expect(await s.twin.head()).toBe(head);
    expect(await s.events()).toHaveLength(0);
  });

  it('refuses unknown parameters and non-string metadata with typed errors', async () => {
    const s = setup();
    await expect(stripe.createCustomer(s.twin, { emial: 'x' } as never)).rejects.toThrow(
      expect.objectContaining({ vendorCode: 'parameter_unknown', path: 'emial' }),
    );
    await expect(stripe.createCustomer(s.twin, { metadata: { n: 1 } } as never)).rejects.toThrow(
      expect.objectContaining({ vendorCode: 'parameter_invalid' }),
    );
    await expect(stripe.getCustomer(s.twin, 'cus_nope')).rejects.toThrow(
      expect.objectContaining({ kind: 'not_found', vendorCode: 'resource_missing' }),
    );
  });

  it('refuses an email not shaped like an address, on create and update, and writes nothing', async () => {
    const s = setup();
    const c = await stripe.createCustomer(s.twin, { email: 'ada@example.com' });
    const head = await s.twin.head();
    for (const email of [
      '42',
      'ada',
      'ada@',
      '@example.com',
      'ada@example',
      'a da@example.com',
      'a@b@example.com',
      'ada@example..com',
    ]) {
      await expect(stripe.createCustomer(s.twin, { email }), email).rejects.toThrow(
        expect.objectContaining({
          kind: 'invalid_input',
          vendorCode: 'email_invalid',
          path: 'email',
          message: `stripe: Invalid email address: ${email}`,
        }),
      );
      await expect(stripe.updateCustomer(s.twin, c.id, { email }), email).rejects.toThrow(
        expect.objectContaining({ vendorCode: 'email_invalid', path: 'email' }),
      );
    }
    expect(await s.twin.head()).toBe(head);
    // what Stripe takes: any address of that shape, and null to clear it
    for (const email of ['a@b.co', 'ada.lovelace+test@mail.example.org', "o'brien@example.ie"])
      expect((await stripe.updateCustomer(s.twin, c.id, { email })).email).toBe(email);
    expect((await stripe.updateCustomer(s.twin, c.id, { email: null })).email).toBeNull();
  });

  it('idempotency keys answer the first result; reused with other parameters they are refused', async () => {
    const s = setup();
    await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://example.com/hooks',
      enabled_events: ['customer.created'],
    });
    const a = await stripe.createCustomer(
      s.twin,
      { email: 'a@example.com' },
      { idempotencyKey: 'key-1' },
    );
    const b = await stripe.createCustomer(
      s.twin,
      { email: 'a@example.com' },
      { idempotencyKey: 'key-1' },
    );
    expect(b.id).toBe(a.id);
    expect(await s.twin.list('customer')).toHaveLength(1);
    expect(await s.events()).toHaveLength(1);
    expect((await s.events())[0]!.request.idempotency_key).toBe('key-1');
    await expect(
      stripe.createCustomer(s.twin, { email: 'b@example.com' }, { idempotencyKey: 'key-1' }),
    ).rejects.toThrow(
      expect.objectContaining({ kind: 'conflict', vendorCode: 'idempotency_key_in_use' }),
    );
  });
});

describe('stripe webhook endpoints', () => {
  it('enabled_events: "*" takes everything, exact types only theirs, disabled endpoints nothing; pending_webhooks counts takers', async () => {
    const s = setup();
    const all = await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://a.example.com',
      enabled_events: ['*'],
    });
    const some = await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://b.example.com',
      enabled_events: ['payment_intent.succeeded'],
    });
    const off = await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://c.example.com',
      enabled_events: ['*'],
    });
    await stripe.updateWebhookEndpoint(s.twin, off.id, { disabled: true });
    const pi = await stripe.createPaymentIntent(s.twin, { amount: 500, currency: 'eur' });
    await stripe.confirmPaymentIntent(s.twin, pi.id, { payment_method: 'pm_card_visa' });
    // A confirmation is a charge and the intent's change: charge.succeeded, then payment_intent.succeeded.
    expect((await s.events(all.id)).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.succeeded',
    ]);
    expect((await s.events(some.id)).map((e) => e.type)).toEqual(['payment_intent.succeeded']);
    expect(await s.events(off.id)).toEqual([]);
    expect((await s.events(some.id))[0]!.pending_webhooks).toBe(2);
  });

  it('returns the whsec_ secret once; the log keeps only a reference; world.secrets holds it', async () => {
    const s = setup();
    const ep = await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://example.com/hooks',
      enabled_events: ['*'],
    });
    expect(ep.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect((await s.twin.get('webhook_endpoint', ep.id))!.fields).not.toHaveProperty('secret');
    expect(s.world.secrets.resolve(ep.secret_ref, s.world.clock.now())).toEqual([ep.secret]);
    expect((await collect(s.twin.exportLines())).join('\n')).not.toContain(ep.secret);
    await stripe.deleteWebhookEndpoint(s.twin, ep.id);
    expect(s.world.secrets.resolve(ep.secret_ref, s.world.clock.now())).toEqual([]);
  });

  it('refuses event types it does not send and non-HTTP URLs', async () => {
    const s = setup();
    await expect(
      stripe.createWebhookEndpoint(s.twin, {
        url: 'https://x.example.com',
        enabled_events: ['invoice.sent'],
      }),
    ).rejects.toThrow(/invoice.sent/);
    await expect(
      stripe.createWebhookEndpoint(s.twin, { url: 'ftp://x', enabled_events: ['*'] }),
    ).rejects.toThrow(expect.objectContaining({ path: 'url' }));
  });
});

describe('stripe payment intents', () => {
  it('created → payment_failed → succeeded, with a charge per attempt', async () => {
    const s = setup();
    const ep = await stripe.createWebhookEndpoint(s.twin, {
      url: 'https://example.com/hooks',
      enabled_events: ['*'],
    });
    const c = await stripe.createCustomer(s.twin, {});
    const pi = await stripe.createPaymentIntent(s.twin, {
      amount: 2000,
      currency: 'usd',
      customer: c.id,
    });
    expect(pi).toMatchObject({
      object: 'payment_intent',
      status: 'requires_payment_method',
      amount_received: 0,
    });
    const failed = await stripe.confirmPaymentIntent(s.twin, pi.id, {
      payment_method: 'pm_card_chargeDeclinedInsufficientFunds',
    });
    expect(failed).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    const ok = await stripe.confirmPaymentIntent(s.twin, pi.id, { payment_method: 'pm_card_visa' });
    expect(ok).toMatchObject({
      status: 'succeeded',
      amount_received: 2000,
      last_payment_error: null,
    });
    expect(ok.payment_method).toMatch(/^pm_/);
    const types = (await s.events(ep.id)).map((e) => e.type);
    expect(types).toEqual([
      'customer.created',
      'payment_intent.created',
      'charge.failed',
      'payment_intent.payment_failed',
      'charge.succeeded',
      'payment_intent.succeeded',
    ]);
    expect((await s.events(ep.id))[5]!.data.previous_attributes).toBeUndefined();
    expect((await s.twin.list('charge')).map((ch) => ch.fields.status).sort()).toEqual([
      'failed',
      'succeeded',
    ]);
    // Each charge event carries the charge, naming the intent and the request that confirmed it.
    const [failedCharge, , okCharge, okIntent] = (await s.events(ep.id)).slice(2);
    expect(failedCharge!.data.object).toMatchObject({
      object: 'charge',
      status: 'failed',
      paid: false,
      payment_intent: pi.id,
      failure_code: 'card_declined',
      outcome: { reason: 'insufficient_funds' },
    });
    expect(okCharge!.data.object).toMatchObject({
      object: 'charge',
      status: 'succeeded',
      paid: true,
      captured: true,
      amount: 2000,
      payment_intent: pi.id,
      customer: c.id,
      payment_method: ok.payment_method,
    });
    expect(okIntent!.data.object).toMatchObject({
      latest_charge: okCharge!.data.object.id,
      client_secret: expect.stringMatching(new RegExp(`^${pi.id}_secret_`)),
    });
    expect(okCharge!.request.id).toBe(okIntent!.request.id);
    expect(okCharge!.request.id).toMatch(/^req_/);
  });

  it('decide refuses invalid transitions with payment_intent_unexpected_state and appends nothing', async () => {
    const s = setup();
    const pi = await stripe.createPaymentIntent(s.twin, { amount: 100, currency: 'usd' });
    await stripe.confirmPaymentIntent(s.twin, pi.id, { payment_method: 'pm_card_visa' });
    const head = await s.twin.head();
    let caught: unknown;
    try {
      await stripe.confirmPaymentIntent(s.twin, pi.id, { payment_method: 'pm_card_visa' });
    } catch (error) {
      caught = error;
    }
    expect(isVendorError(caught, 'invalid_state')).toBe(true);
    expect(caught).toMatchObject({
      code: 'INVALID_ARGUMENT',
      vendorCode: 'payment_intent_unexpected_state',
      details: { status: 'succeeded' },
    });
    await expect(stripe.cancelPaymentIntent(s.twin, pi.id)).rejects.toThrow(/status of succeeded/);
    expect(await s.twin.head()).toBe(head);

    const other = await stripe.createPaymentIntent(s.twin, { amount: 100, currency: 'usd' });
    // nothing to charge: no method given and none on the intent (no Visa made up for it)
    const beforeBare = await s.twin.head();
    await expect(stripe.confirmPaymentIntent(s.twin, other.id)).rejects.toThrow(
      expect.objectContaining({
        vendorCode: 'payment_intent_unexpected_state',
        message: expect.stringContaining("because it's missing a payment method"),
      }),
    );
    expect(await s.twin.head()).toBe(beforeBare);
    expect(
      await stripe.cancelPaymentIntent(s.twin, other.id, { cancellation_reason: 'abandoned' }),
    ).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    await expect(stripe.confirmPaymentIntent(s.twin, other.id)).rejects.toThrow(
      expect.objectContaining({ vendorCode: 'payment_intent_unexpected_state' }),
    );
  });

  it('validates amounts, currencies and customers', async () => {
    const s = setup();
    const refused = (input: { amount: number; currency: string }, code: string, path: string) =>
      expect(stripe.createPaymentIntent(s.twin, input)).rejects.toThrow(
        expect.objectContaining({ vendorCode: code, path }),
      );
    // Stripe's minimum charge in US dollars is 50 cents; its maximum eight digits anywhere
    await refused({ amount: 0, currency: 'usd' }, 'amount_too_small', 'amount');
    await refused({ amount: 49, currency: 'usd' }, 'amount_too_small', 'amount');
    await refused({ amount: 100_000_000, currency: 'usd' }, 'amount_too_large', 'amount');
    await refused({ amount: 100_000_000, currency: 'jpy' }, 'amount_too_large', 'amount');
    await refused({ amount: 0, currency: 'jpy' }, 'parameter_invalid', 'amount');
    // a currency Stripe does not know is refused; any case of one it knows is answered lowercase
    await refused({ amount: 100, currency: 'zzz' }, 'invalid_request_error', 'currency');
    await expect(
      stripe.createPaymentIntent(s.twin, { amount: 100, currency: 'zzz' }),
    ).rejects.toThrow(/Invalid currency: zzz\. Stripe currently supports these currencies: usd, /);
    expect(await stripe.createPaymentIntent(s.twin, { amount: 50, currency: 'USD' })).toMatchObject(
      { amount: 50, currency: 'usd' },
    );
    expect(
      await stripe.createPaymentIntent(s.twin, { amount: 99_999_999, currency: 'Eur' }),
    ).toMatchObject({ currency: 'eur' });
    // an update is judged in the intent's currency
    const pi = await stripe.createPaymentIntent(s.twin, { amount: 20, currency: 'jpy' });
    await expect(stripe.updatePaymentIntent(s.twin, pi.id, { currency: 'usd' })).rejects.toThrow(
      expect.objectContaining({ vendorCode: 'amount_too_small' }),
    );
    await expect(
      stripe.updatePaymentIntent(s.twin, pi.id, { amount: 100_000_000 }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'amount_too_large' }));
    await expect(
      stripe.createPaymentIntent(s.twin, { amount: 100, currency: 'usd', customer: 'cus_missing' }),
    ).rejects.toThrow(/No such customer/);
  });
});

describe('stripe delivery over HTTP', () => {
  it('retries a failed delivery on the test-mode schedule; both attempts verify with stripe-node', async () => {
    const statuses = [500, 200];
    const receiver = await startReceiver(() => statuses.shift() ?? 200);
    receivers.push(receiver);
    const { clock, world, twin, dispatcher } = virtualWorld(stripe.pack);
    const secret = secrets.stripe();
    await stripe.createWebhookEndpoint(twin, {
      url: `${receiver.url}/stripe`,
      enabled_events: ['customer.created'],
      secret,
    });
    await stripe.createCustomer(twin, { email: 'retry@example.com' });
    await dispatcher.idle();
    const record = (await twin.list('webhook_delivery'))[0]!;
    expect(record.fields).toMatchObject({ state: 'retrying', attempts: 1, lastStatus: 500 });
    const due = Date.parse(String(record.fields.nextAttemptAt)) - clock.now();
    expect(due).toBeGreaterThanOrEqual(15 * 60_000 * 0.9);
    expect(due).toBeLessThanOrEqual(15 * 60_000 * 1.1);
    await clock.advance(20 * 60_000);
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(2);
    const [first, second] = receiver.requests;
    expect(second!.body).toBe(first!.body);
    for (const req of receiver.requests)
      expect((await stripeVerifier.verify(req, secret)).type).toBe('customer.created');
    await expect(stripeVerifier.verify(second!, secrets.stripe())).rejects.toThrow();
    expect((await twin.get('webhook_delivery', record.id))!.fields).toMatchObject({
      state: 'succeeded',
      attempts: 2,
    });
    expect(
      (await twin.list('webhook_delivery_attempt')).map((a) => [
        a.fields.number,
        a.fields.kind,
        a.fields.status,
      ]),
    ).toEqual([
      [1, 'first', 500],
      [2, 'retry', 200],
    ]);
    await world.close();
  });

  it('gives up after three retries (four attempts)', async () => {
    const receiver = await startReceiver(() => 503);
    receivers.push(receiver);
    const { clock, world, twin, dispatcher } = virtualWorld(stripe.pack);
    await stripe.createWebhookEndpoint(twin, {
      url: receiver.url,
      enabled_events: ['*'],
      secret: secrets.stripe(),
    });
    await stripe.createCustomer(twin, {});
    await dispatcher.idle();
    await clock.advance(3 * 24 * 3600_000);
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(4);
    expect((await twin.list('webhook_delivery'))[0]!.fields).toMatchObject({
      state: 'failed',
      attempts: 4,
      nextAttemptAt: null,
    });
    await world.close();
  });
});
