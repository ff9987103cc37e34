// `twinworld send stripe <type>`: for each event type, build what it needs, subscribe the
// target endpoint to exactly that type, then perform the write that causes it. `--data` is
// merged into the causing call's input.
import type { JsonObject, Twin } from '../../src/index.js';
import { withData } from '../kit/input.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../kit/vendor-pack.js';
import { advanceBilling } from './billing-clock.js';
import {
  createPrice,
  createProduct,
  type CreatePriceInput,
  type CreateProductInput,
} from './catalog.js';
import {
  completeCheckoutSession,
  createCheckoutSession,
  expireCheckoutSession,
  settleCheckoutSession,
} from './checkout-sessions.js';
import { createCustomer, deleteCustomer, updateCustomer, type CustomerInput } from './customers.js';
import {
  cancelPaymentIntent,
  confirmPaymentIntent,
  createPaymentIntent,
  type CreatePaymentIntentInput,
} from './payment-intents.js';
import { attachPaymentMethod } from './payment-methods.js';
import { disputeCharge, refundCharge } from './refunds-disputes.js';
import {
  cancelSubscription,
  createSubscription,
  updateSubscription,
  type CreateSubscriptionInput,
} from './subscriptions.js';
import { createWebhookEndpoint } from './webhook-endpoints.js';

async function subscribe(ctx: ScenarioContext, type: string): Promise<ScenarioResult> {
  const endpoint = await createWebhookEndpoint(ctx.twin, {
    url: ctx.target.url,
    enabled_events: [type],
    secret: ctx.target.secret,
    description: `twinworld send ${type}`,
  });
  return { endpointKind: 'webhook_endpoint', endpointId: endpoint.id };
}

const customer = (data?: JsonObject) =>
  withData({ email: 'ada@example.com', name: 'Ada Lovelace' }, data) as CustomerInput;
const intent = (data?: JsonObject, customerId?: string) =>
  withData(
    { amount: 2000, currency: 'usd', ...(customerId ? { customer: customerId } : {}) },
    data,
  ) as unknown as CreatePaymentIntentInput;

/** A customer whose invoices charge `card` (pm_card_visa, or pm_card_chargeCustomerFail to decline). */
async function customerWithCard(twin: Twin, card = 'pm_card_visa') {
  const c = await createCustomer(twin, customer());
  const pm = await attachPaymentMethod(twin, card, { customer: c.id });
  await updateCustomer(twin, c.id, { invoice_settings: { default_payment_method: pm.id } });
  return { customer: c, paymentMethod: pm };
}

async function plan(twin: Twin, recurring = true) {
  const product = await createProduct(twin, { name: 'Pro plan' });
  const price = await createPrice(twin, {
    product: product.id,
    unit_amount: 2000,
    currency: 'usd',
    ...(recurring ? { recurring: { interval: 'month' as const } } : {}),
  });
  return { product, price };
}

async function succeededCharge(ctx: ScenarioContext) {
  const c = await createCustomer(ctx.twin, customer());
  const pi = await createPaymentIntent(ctx.twin, intent(undefined, c.id));
  return (await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_visa' }))
    .latest_charge!;
}

/** Subscribes, then creates a subscription (`data` merged into its input): the first invoice's events. */
function onNewSubscription(
  type: string,
  options: { card?: string; trialDays?: number; thenBilling?: boolean } = {},
): Scenario {
  return async (ctx) => {
    const { customer: c } = await customerWithCard(ctx.twin, options.card);
    const { price } = await plan(ctx.twin);
    const sub = await subscribe(ctx, type);
    const input = withData(
      {
        customer: c.id,
        items: [{ price: price.id }],
        ...(options.trialDays === undefined ? {} : { trial_period_days: options.trialDays }),
      } as JsonObject,
      ctx.data,
    );
    await createSubscription(ctx.twin, input as unknown as CreateSubscriptionInput);
    if (options.thenBilling === true) await advanceBilling(ctx.twin);
    return sub;
  };
}

async function activeSubscription(ctx: ScenarioContext) {
  const { customer: c } = await customerWithCard(ctx.twin);
  const { price } = await plan(ctx.twin);
  return createSubscription(ctx.twin, { customer: c.id, items: [{ price: price.id }] });
}

async function openSession(ctx: ScenarioContext, mode: 'payment' | 'subscription' = 'payment') {
  const { price } = await plan(ctx.twin, mode === 'subscription');
  return createCheckoutSession(ctx.twin, {
    mode,
    line_items: [{ price: price.id, quantity: 1 }],
    success_url: 'https://example.com/success',
    cancel_url: 'https://example.com/cancel',
    customer_email: 'ada@example.com',
  });
}

export const scenarios: Readonly<Record<string, Scenario>> = {
  'customer.created': async (ctx) => {
    const sub = await subscribe(ctx, 'customer.created');
    await createCustomer(ctx.twin, customer(ctx.data));
    return sub;
  },
  'customer.updated': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const sub = await subscribe(ctx, 'customer.updated');
    await updateCustomer(
      ctx.twin,
      c.id,
      withData(
        { email: 'ada.lovelace@example.com', metadata: { plan: 'pro' } },
        ctx.data,
      ) as CustomerInput,
    );
    return sub;
  },
  'customer.deleted': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer(ctx.data));
    const sub = await subscribe(ctx, 'customer.deleted');
    await deleteCustomer(ctx.twin, c.id);
    return sub;
  },
  'payment_intent.created': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const sub = await subscribe(ctx, 'payment_intent.created');
    await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    return sub;
  },
  'payment_intent.succeeded': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = await subscribe(ctx, 'payment_intent.succeeded');
    await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_visa' });
    return sub;
  },
  'payment_intent.payment_failed': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = await subscribe(ctx, 'payment_intent.payment_failed');
    await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_chargeDeclined' });
    return sub;
  },
  'payment_intent.canceled': async (ctx) => {
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data));
    const sub = await subscribe(ctx, 'payment_intent.canceled');
    await cancelPaymentIntent(ctx.twin, pi.id, { cancellation_reason: 'requested_by_customer' });
    return sub;
  },
  'charge.succeeded': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = await subscribe(ctx, 'charge.succeeded');
    await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_visa' });
    return sub;
  },
  'charge.failed': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = await subscribe(ctx, 'charge.failed');
    await confirmPaymentIntent(ctx.twin, pi.id, {
      payment_method: 'pm_card_chargeDeclinedInsufficientFunds',
    });
    return sub;
  },
  'charge.refunded': async (ctx) => {
    const charge = await succeededCharge(ctx);
    const sub = await subscribe(ctx, 'charge.refunded');
    await refundCharge(
      ctx.twin,
      charge,
      withData({ reason: 'requested_by_customer' }, ctx.data) as JsonObject,
    );
    return sub;
  },
  'charge.dispute.created': async (ctx) => {
    const charge = await succeededCharge(ctx);
    const sub = await subscribe(ctx, 'charge.dispute.created');
    await disputeCharge(
      ctx.twin,
      charge,
      withData({ reason: 'fraudulent' }, ctx.data) as JsonObject,
    );
    return sub;
  },
  'payment_method.attached': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const sub = await subscribe(ctx, 'payment_method.attached');
    await attachPaymentMethod(
      ctx.twin,
      typeof ctx.data?.payment_method === 'string' ? ctx.data.payment_method : 'pm_card_visa',
      { customer: c.id },
    );
    return sub;
  },
  'product.created': async (ctx) => {
    const sub = await subscribe(ctx, 'product.created');
    await createProduct(
      ctx.twin,
      withData(
        { name: 'Pro plan', description: 'Everything, monthly' },
        ctx.data,
      ) as unknown as CreateProductInput,
    );
    return sub;
  },
  'price.created': async (ctx) => {
    const product = await createProduct(ctx.twin, { name: 'Pro plan' });
    const sub = await subscribe(ctx, 'price.created');
    await createPrice(
      ctx.twin,
      withData(
        {
          product: product.id,
          unit_amount: 2000,
          currency: 'usd',
          recurring: { interval: 'month' },
        } as JsonObject,
        ctx.data,
      ) as unknown as CreatePriceInput,
    );
    return sub;
  },
  'customer.subscription.created': onNewSubscription('customer.subscription.created'),
  'customer.subscription.updated': async (ctx) => {
    const s = await activeSubscription(ctx);
    const sub = await subscribe(ctx, 'customer.subscription.updated');
    await updateSubscription(
      ctx.twin,
      s.id,
      withData({ cancel_at_period_end: true }, ctx.data) as JsonObject,
    );
    return sub;
  },
  'customer.subscription.deleted': async (ctx) => {
    const s = await activeSubscription(ctx);
    const sub = await subscribe(ctx, 'customer.subscription.deleted');
    await cancelSubscription(ctx.twin, s.id);
    return sub;
  },
  // A trial shorter than the three-day notice: the notice falls due at once.
  'customer.subscription.trial_will_end': onNewSubscription(
    'customer.subscription.trial_will_end',
    { trialDays: 2, thenBilling: true },
  ),
  'invoice.created': onNewSubscription('invoice.created'),
  'invoice.finalized': onNewSubscription('invoice.finalized'),
  'invoice.paid': onNewSubscription('invoice.paid'),
  'invoice.payment_succeeded': onNewSubscription('invoice.payment_succeeded'),
  'invoice.payment_failed': onNewSubscription('invoice.payment_failed', {
    card: 'pm_card_chargeCustomerFail',
  }),
  'invoice.upcoming': onNewSubscription('invoice.upcoming', { trialDays: 2, thenBilling: true }),
  'checkout.session.completed': async (ctx) => {
    const session = await openSession(ctx);
    const sub = await subscribe(ctx, 'checkout.session.completed');
    await completeCheckoutSession(
      ctx.twin,
      session.id,
      withData({ payment_method: 'pm_card_visa', name: 'Ada Lovelace' }, ctx.data) as JsonObject,
    );
    return sub;
  },
  'checkout.session.expired': async (ctx) => {
    const session = await openSession(ctx);
    const sub = await subscribe(ctx, 'checkout.session.expired');
    await expireCheckoutSession(ctx.twin, session.id);
    return sub;
  },
  'checkout.session.async_payment_succeeded': async (ctx) => {
    const session = await openSession(ctx);
    await completeCheckoutSession(ctx.twin, session.id, {
      payment_method: 'us_bank_account',
      name: 'Ada Lovelace',
    });
    const sub = await subscribe(ctx, 'checkout.session.async_payment_succeeded');
    await settleCheckoutSession(ctx.twin, session.id, { outcome: 'succeeded' });
    return sub;
  },
  'checkout.session.async_payment_failed': async (ctx) => {
    const session = await openSession(ctx);
    await completeCheckoutSession(ctx.twin, session.id, {
      payment_method: 'us_bank_account',
      name: 'Ada Lovelace',
    });
    const sub = await subscribe(ctx, 'checkout.session.async_payment_failed');
    await settleCheckoutSession(ctx.twin, session.id, { outcome: 'failed' });
    return sub;
  },
};
