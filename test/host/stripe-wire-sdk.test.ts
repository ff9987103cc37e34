// What a request carries besides its parameters, as the unmodified stripe package sends it to a
// real host on loopback: the Connect `Stripe-Account` header (the twin serves no Connect, and says
// so as Stripe does for an account the key cannot reach) and a body over the host's 1 MiB cap
// (refused in Stripe's envelope); and parameters the twin keeps on the object as Stripe shows them
// (`automatic_payment_methods`). None depends on how the store keeps rows, so SQLite is enough.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/index.js';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_wireConformance';
const sqlite = homes.filter((h) => h.name === 'sqlite');

describe.each(sqlite)('stripe-node meets Stripe on the wire ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;
  const client = (options: Stripe.StripeConfig = {}) =>
    new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http', ...options });

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'wire', Date.parse('2026-07-01T00:00:00Z'));
    stripe = client();
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('Stripe-Account naming another account is refused as Stripe refuses an unreachable one', async () => {
    const customers = async () => (await stripe.customers.list({ limit: 100 })).data.length;
    const mine = await stripe.customers.create({ email: 'platform@example.com' });
    const before = await customers();
    const unreachable = {
      statusCode: 403,
      type: 'StripePermissionError',
      code: 'account_invalid',
      message:
        "The provided key 'sk_test_***********ance' does not have access to account " +
        "'acct_1Connected' (or that account does not exist). Application access may have been revoked.",
    };
    // per request, as stripe-node sends it, on a write and on reads
    await expect(
      stripe.customers.create(
        { email: 'connected@example.com' },
        { stripeAccount: 'acct_1Connected' },
      ),
    ).rejects.toMatchObject(unreachable);
    await expect(
      stripe.customers.retrieve(mine.id, {}, { stripeAccount: 'acct_1Connected' }),
    ).rejects.toMatchObject(unreachable);
    // or for every call of a client
    const connected = client({ stripeAccount: 'acct_1Connected' });
    await expect(connected.customers.list()).rejects.toMatchObject(unreachable);
    await expect(
      connected.paymentIntents.create({ amount: 500, currency: 'usd' }),
    ).rejects.toMatchObject(unreachable);
    // nothing was written on the platform's own account
    expect(await customers()).toBe(before);
  });

  it("Stripe-Account naming the key's own account is that account", async () => {
    const own = `acct_${sha256Hex(`twinworld stripe account\n${KEY}`).slice(0, 16)}`;
    const made = await client({ stripeAccount: own }).customers.create({
      email: 'own@example.com',
    });
    expect((await stripe.customers.retrieve(made.id)).id).toBe(made.id);
  });

  it('a body over 1 MiB is a StripeInvalidRequestError naming the limit, and nothing is written', async () => {
    const customers = async () => (await stripe.customers.list({ limit: 100 })).data.length;
    const before = await customers();
    await expect(
      stripe.customers.create({ description: 'x'.repeat(1024 * 1024 + 1) }),
    ).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      rawType: 'invalid_request_error',
      message:
        'The request body is larger than 1048576 bytes (1 MiB), the most this twin reads; send less.',
    });
    expect(await customers()).toBe(before);
  });

  it('automatic_payment_methods is kept on the intent as Stripe shows it, allow_redirects defaulted', async () => {
    const auto = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
    });
    expect(auto.automatic_payment_methods).toEqual({ allow_redirects: 'always', enabled: true });
    expect((await stripe.paymentIntents.retrieve(auto.id)).automatic_payment_methods).toEqual({
      allow_redirects: 'always',
      enabled: true,
    });
    const never = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    });
    expect(never.automatic_payment_methods).toEqual({ allow_redirects: 'never', enabled: true });
    // not asked for: null, as before
    const plain = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd' });
    expect(plain.automatic_payment_methods).toBeNull();
    // a card still pays an intent with automatic payment methods
    const paid = await stripe.paymentIntents.confirm(auto.id, { payment_method: 'pm_card_visa' });
    expect(paid).toMatchObject({
      status: 'succeeded',
      automatic_payment_methods: { allow_redirects: 'always', enabled: true },
    });
  });

  it('automatic_payment_methods refusals: enabled required, allow_redirects always|never, not with payment_method_types', async () => {
    const intents = async () => (await stripe.paymentIntents.list({ limit: 100 })).data.length;
    const before = await intents();
    const create = (extra: Record<string, unknown>) =>
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', ...extra });
    await expect(
      create({ automatic_payment_methods: { allow_redirects: 'never' } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_missing',
      param: 'automatic_payment_methods[enabled]',
      message: 'Missing required param: automatic_payment_methods[enabled].',
    });
    await expect(
      create({ automatic_payment_methods: { enabled: true, allow_redirects: 'sometimes' } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_invalid',
      param: 'automatic_payment_methods[allow_redirects]',
      message: 'Invalid automatic_payment_methods[allow_redirects]: must be one of always or never',
    });
    await expect(
      create({ automatic_payment_methods: { enabled: true }, payment_method_types: ['card'] }),
    ).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      message:
        'You may only specify one of these parameters: automatic_payment_methods, payment_method_types.',
    });
    expect(await intents()).toBe(before);
  });
});
