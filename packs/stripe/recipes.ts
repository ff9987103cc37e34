// For each Stripe event type, the writes that produce it and what they need first: what both
// `twinworld send` (which subscribes its target endpoint at `ready()`, right before the causing
// write) and `twinworld trigger` (which sends to the endpoints already there) run. `data` is
// merged into the causing call's input; `keys` are the ones that call takes.
import type { JsonObject, Twin } from '../../src/index.js';
import { inputFor, withData } from '../kit/input.js';
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
import { intentRecipes } from './recipes-intents.js';
import { invoiceRecipes } from './recipes-invoices.js';
import type { Recipe } from './recipe.js';
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

export type { Recipe } from './recipe.js';

const CUSTOMER_KEYS = ['email', 'name', 'description', 'phone', 'metadata', 'invoice_settings'];
const INTENT_KEYS = ['amount', 'currency', 'description', 'metadata'];
const SUBSCRIPTION_KEYS = [
  'default_payment_method',
  'trial_period_days',
  'description',
  'metadata',
];
const COMPLETE_KEYS = ['payment_method', 'email', 'name'];

const customer = (data?: JsonObject) =>
  withData({ email: 'ada@example.com', name: 'Ada Lovelace' }, data) as CustomerInput;
const intent = (data?: JsonObject, customerId?: string) =>
  inputFor<CreatePaymentIntentInput>(
    { amount: 2000, currency: 'usd', ...(customerId ? { customer: customerId } : {}) },
    data,
  );

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

async function succeededCharge(twin: Twin) {
  const c = await createCustomer(twin, customer());
  const pi = await createPaymentIntent(twin, intent(undefined, c.id));
  return (await confirmPaymentIntent(twin, pi.id, { payment_method: 'pm_card_visa' }))
    .latest_charge!;
}

/** Creates a subscription (`data` merged into its input): the first invoice's events. */
function onNewSubscription(
  options: { card?: string; trialDays?: number; thenBilling?: boolean } = {},
): Recipe {
  return {
    keys: SUBSCRIPTION_KEYS,
    async run(ctx) {
      const { customer: c } = await customerWithCard(ctx.twin, options.card);
      const { price } = await plan(ctx.twin);
      await ctx.ready();
      const input = inputFor<CreateSubscriptionInput>(
        {
          customer: c.id,
          items: [{ price: price.id }],
          ...(options.trialDays === undefined ? {} : { trial_period_days: options.trialDays }),
        } as JsonObject,
        ctx.data,
      );
      await createSubscription(ctx.twin, input);
      if (options.thenBilling === true) await advanceBilling(ctx.twin);
    },
  };
}

async function activeSubscription(twin: Twin) {
  const { customer: c } = await customerWithCard(twin);
  const { price } = await plan(twin);
  return createSubscription(twin, { customer: c.id, items: [{ price: price.id }] });
}

async function openSession(twin: Twin, mode: 'payment' | 'subscription' = 'payment') {
  const { price } = await plan(twin, mode === 'subscription');
  return createCheckoutSession(twin, {
    mode,
    line_items: [{ price: price.id, quantity: 1 }],
    success_url: 'https://example.com/success',
    cancel_url: 'https://example.com/cancel',
    customer_email: 'ada@example.com',
  });
}

/** A payment intent confirmed with `card` (`data` merged into the intent). */
function confirmed(card: string): Recipe {
  return {
    keys: INTENT_KEYS,
    async run(ctx) {
      const c = await createCustomer(ctx.twin, customer());
      const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
      await ctx.ready();
      await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: card });
    },
  };
}

/** Checkout on a bank debit, then the debit settles with `outcome`. */
function settled(outcome: 'succeeded' | 'failed'): Recipe {
  return {
    keys: [],
    async run(ctx) {
      const session = await openSession(ctx.twin);
      await completeCheckoutSession(ctx.twin, session.id, {
        payment_method: 'us_bank_account',
        name: 'Ada Lovelace',
      });
      await ctx.ready();
      await settleCheckoutSession(ctx.twin, session.id, { outcome });
    },
  };
}

export const recipes: Readonly<Record<string, Recipe>> = {
  'customer.created': {
    keys: CUSTOMER_KEYS,
    async run(ctx) {
      await ctx.ready();
      await createCustomer(ctx.twin, customer(ctx.data));
    },
  },
  'customer.updated': {
    keys: CUSTOMER_KEYS,
    async run(ctx) {
      const c = await createCustomer(ctx.twin, customer());
      await ctx.ready();
      await updateCustomer(
        ctx.twin,
        c.id,
        withData(
          { email: 'ada.lovelace@example.com', metadata: { plan: 'pro' } },
          ctx.data,
        ) as CustomerInput,
      );
    },
  },
  'customer.deleted': {
    keys: CUSTOMER_KEYS,
    async run(ctx) {
      const c = await createCustomer(ctx.twin, customer(ctx.data));
      await ctx.ready();
      await deleteCustomer(ctx.twin, c.id);
    },
  },
  'payment_intent.created': {
    keys: INTENT_KEYS,
    async run(ctx) {
      const c = await createCustomer(ctx.twin, customer());
      await ctx.ready();
      await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    },
  },
  'payment_intent.succeeded': confirmed('pm_card_visa'),
  'payment_intent.payment_failed': confirmed('pm_card_chargeDeclined'),
  'payment_intent.canceled': {
    keys: INTENT_KEYS,
    async run(ctx) {
      const pi = await createPaymentIntent(ctx.twin, intent(ctx.data));
      await ctx.ready();
      await cancelPaymentIntent(ctx.twin, pi.id, { cancellation_reason: 'requested_by_customer' });
    },
  },
  'charge.succeeded': confirmed('pm_card_visa'),
  'charge.failed': confirmed('pm_card_chargeDeclinedInsufficientFunds'),
  'charge.refunded': {
    keys: ['amount', 'reason'],
    async run(ctx) {
      const charge = await succeededCharge(ctx.twin);
      await ctx.ready();
      await refundCharge(
        ctx.twin,
        charge,
        withData({ reason: 'requested_by_customer' }, ctx.data) as JsonObject,
      );
    },
  },
  'charge.dispute.created': {
    keys: ['reason'],
    async run(ctx) {
      const charge = await succeededCharge(ctx.twin);
      await ctx.ready();
      await disputeCharge(
        ctx.twin,
        charge,
        withData({ reason: 'fraudulent' }, ctx.data) as JsonObject,
      );
    },
  },
  'payment_method.attached': {
    keys: ['payment_method'],
    async run(ctx) {
      const c = await createCustomer(ctx.twin, customer());
      await ctx.ready();
      await attachPaymentMethod(
        ctx.twin,
        typeof ctx.data?.payment_method === 'string' ? ctx.data.payment_method : 'pm_card_visa',
        { customer: c.id },
      );
    },
  },
  'product.created': {
    keys: ['name', 'description', 'metadata'],
    async run(ctx) {
      await ctx.ready();
      await createProduct(
        ctx.twin,
        inputFor<CreateProductInput>(
          { name: 'Pro plan', description: 'Everything, monthly' },
          ctx.data,
        ),
      );
    },
  },
  'price.created': {
    keys: ['unit_amount', 'currency', 'recurring', 'nickname', 'lookup_key', 'metadata'],
    async run(ctx) {
      const product = await createProduct(ctx.twin, { name: 'Pro plan' });
      await ctx.ready();
      await createPrice(
        ctx.twin,
        inputFor<CreatePriceInput>(
          {
            product: product.id,
            unit_amount: 2000,
            currency: 'usd',
            recurring: { interval: 'month' },
          } as JsonObject,
          ctx.data,
        ),
      );
    },
  },
  'customer.subscription.created': onNewSubscription(),
  'customer.subscription.updated': {
    keys: ['cancel_at_period_end', 'default_payment_method', 'description', 'metadata'],
    async run(ctx) {
      const s = await activeSubscription(ctx.twin);
      await ctx.ready();
      await updateSubscription(
        ctx.twin,
        s.id,
        withData({ cancel_at_period_end: true }, ctx.data) as JsonObject,
      );
    },
  },
  'customer.subscription.deleted': {
    keys: [],
    async run(ctx) {
      const s = await activeSubscription(ctx.twin);
      await ctx.ready();
      await cancelSubscription(ctx.twin, s.id);
    },
  },
  // A trial shorter than the three-day notice: the notice falls due at once.
  'customer.subscription.trial_will_end': onNewSubscription({ trialDays: 2, thenBilling: true }),
  'invoice.created': onNewSubscription(),
  'invoice.finalized': onNewSubscription(),
  'invoice.paid': onNewSubscription(),
  'invoice.payment_succeeded': onNewSubscription(),
  'invoice.payment_failed': onNewSubscription({ card: 'pm_card_chargeCustomerFail' }),
  'invoice.upcoming': onNewSubscription({ trialDays: 2, thenBilling: true }),
  'checkout.session.completed': {
    keys: COMPLETE_KEYS,
    async run(ctx) {
      const session = await openSession(ctx.twin);
      await ctx.ready();
      await completeCheckoutSession(
        ctx.twin,
        session.id,
        withData({ payment_method: 'pm_card_visa', name: 'Ada Lovelace' }, ctx.data) as JsonObject,
      );
    },
  },
  'checkout.session.expired': {
    keys: [],
    async run(ctx) {
      const session = await openSession(ctx.twin);
      await ctx.ready();
      await expireCheckoutSession(ctx.twin, session.id);
    },
  },
  'checkout.session.async_payment_succeeded': settled('succeeded'),
  'checkout.session.async_payment_failed': settled('failed'),
  ...intentRecipes,
  ...invoiceRecipes,
};
