// A subscription month, as a walk step: a catalog price, customers with cards, their
// subscriptions, then the world clock moved a month with billing done at each instant it falls
// due — renewals, invoices, charges, retries, notices — the way a Stripe test clock advances.
import type { Twin } from '../../src/index.js';
import { advanceWithBilling, type BillingWalk, type DueWork } from './billing-clock.js';
import { createPrice, createProduct } from './catalog.js';
import { createCustomer, updateCustomer } from './customers.js';
import { attachPaymentMethod } from './payment-methods.js';
import { DAYS } from './periods.js';
import { createSubscription } from './subscriptions.js';
import type { StripeSubscription } from './subscription-objects.js';

export interface SubscriptionMonthOptions {
  /** Subscribers: an email, the card their renewals charge, and an optional trial. */
  readonly customers?: readonly {
    email: string;
    name?: string;
    card?: string;
    trialDays?: number;
  }[];
  /** Price of the monthly plan, in cents. */
  readonly unitAmount?: number;
  readonly currency?: string;
  /** How long to run the clock; a month and a day by default, so the first renewal is paid. */
  readonly days?: number;
}

export interface SubscriptionMonthResult {
  readonly subscriptions: StripeSubscription[];
  /** Every billing step the month ran, in order. */
  readonly billing: DueWork[];
}

const DEFAULT_SUBSCRIBERS: NonNullable<SubscriptionMonthOptions['customers']> = [
  { email: 'ada@example.com', name: 'Ada Lovelace', card: 'pm_card_visa' },
  // Attaches fine, declines when charged: past_due after the trial, retried on the schedule.
  {
    email: 'grace@example.com',
    name: 'Grace Hopper',
    card: 'pm_card_chargeCustomerFail',
    trialDays: 7,
  },
];

export async function subscriptionMonth(
  walk: BillingWalk,
  twin: Twin,
  options: SubscriptionMonthOptions = {},
): Promise<SubscriptionMonthResult> {
  const product = await createProduct(twin, {
    name: 'Pro plan',
    description: 'Everything, billed monthly',
  });
  const price = await createPrice(twin, {
    product: product.id,
    unit_amount: options.unitAmount ?? 2000,
    currency: options.currency ?? 'usd',
    recurring: { interval: 'month' },
    nickname: 'Pro monthly',
  });
  const subscriptions: StripeSubscription[] = [];
  for (const who of options.customers ?? DEFAULT_SUBSCRIBERS) {
    const customer = await createCustomer(twin, { email: who.email, name: who.name ?? null });
    const pm = await attachPaymentMethod(twin, who.card ?? 'pm_card_visa', {
      customer: customer.id,
    });
    await updateCustomer(twin, customer.id, {
      invoice_settings: { default_payment_method: pm.id },
    });
    subscriptions.push(
      await createSubscription(twin, {
        customer: customer.id,
        items: [{ price: price.id }],
        ...(who.trialDays === undefined ? {} : { trial_period_days: who.trialDays }),
      }),
    );
    await walk.settle();
  }
  const billing = await advanceWithBilling(walk, twin, DAYS(options.days ?? 32) * 1000);
  return { subscriptions, billing };
}
