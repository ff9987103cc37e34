// The Subscription object (sub_…) and its items (si_…), as Stripe renders them for the API version
// the twin writes: each item carries its own current period (current_period_start/_end moved from
// the subscription to its items), a copy of its price, and the legacy plan view of that price.
import type { Twin } from '../../src/index.js';
import { planOf, type StripePrice } from './catalog.js';
import { list } from './common.js';
import type { Metadata } from './metadata.js';
import { recordKind } from '../../src/index.js';

export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

export interface Period {
  readonly start: number;
  readonly end: number;
}

export function subscriptionItemObject(
  id: string,
  subscription: string,
  price: StripePrice,
  quantity: number,
  created: number,
  period: Period,
) {
  return {
    id,
    object: 'subscription_item' as const,
    billing_thresholds: null,
    created,
    current_period_end: period.end,
    current_period_start: period.start,
    current_trial: null,
    discounts: [] as string[],
    metadata: {} as Metadata,
    plan: planOf(price),
    price,
    quantity,
    subscription,
    tax_rates: [],
  };
}

export type StripeSubscriptionItem = ReturnType<typeof subscriptionItemObject>;

export interface SubscriptionSpec {
  readonly id: string;
  readonly customer: string;
  readonly items: StripeSubscriptionItem[];
  readonly currency: string;
  readonly status: SubscriptionStatus;
  readonly anchor: number;
  readonly trial: Period | null;
  readonly defaultPaymentMethod: string | null;
  readonly description: string | null;
  readonly metadata: Metadata;
  readonly latestInvoice: string;
  /** payment_settings.save_default_payment_method; Stripe's default is off. */
  readonly saveDefaultPaymentMethod?: SaveDefaultPaymentMethod;
}

/** Whether a successful payment of the subscription's invoices becomes its default_payment_method. */
export type SaveDefaultPaymentMethod = 'off' | 'on_subscription';

export function subscriptionObject(twin: Twin, spec: SubscriptionSpec, created: number) {
  void twin;
  return {
    id: spec.id,
    object: 'subscription' as const,
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: spec.anchor,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' as const },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null as number | null,
    cancel_at_period_end: false,
    canceled_at: null as number | null,
    cancellation_details: {
      comment: null,
      feedback: null,
      feedback_option: null,
      reason: null as 'cancellation_requested' | 'payment_failed' | null,
    },
    collection_method: 'charge_automatically' as const,
    created,
    currency: spec.currency,
    customer: spec.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: spec.defaultPaymentMethod,
    default_source: null,
    default_tax_rates: [],
    description: spec.description,
    discounts: [] as string[],
    ended_at: null as number | null,
    invoice_settings: {
      account_tax_ids: null,
      custom_fields: null,
      description: null,
      footer: null,
      issuer: { type: 'self' as const },
    },
    items: list(spec.items, `/v1/subscription_items?subscription=${spec.id}`),
    latest_invoice: spec.latestInvoice,
    livemode: false as const,
    managed_payments: null,
    metadata: spec.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: {
      payment_method_options: null,
      payment_method_types: null,
      save_default_payment_method:
        spec.saveDefaultPaymentMethod ?? ('off' as SaveDefaultPaymentMethod),
    },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: created,
    status: spec.status,
    test_clock: null,
    transfer_data: null,
    trial_end: spec.trial?.end ?? null,
    trial_settings: {
      end_behavior: {
        billing_cycle_anchor: null,
        missing_payment_method: 'create_invoice' as const,
      },
    },
    trial_start: spec.trial?.start ?? null,
  };
}

export type StripeSubscription = ReturnType<typeof subscriptionObject>;

/** The subscription records of the twin, typed (src/state/record-kind.ts). */
export const subscriptionKind = recordKind<StripeSubscription>({ type: 'subscription' });

/** The period every item shares (the twin bills all items of a subscription on one interval). */
export function currentPeriod(sub: StripeSubscription): Period {
  const item = sub.items.data[0]!;
  return { start: item.current_period_start, end: item.current_period_end };
}

/** Statuses a subscription renews from when its period ends. */
export const RENEWING: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due'];
