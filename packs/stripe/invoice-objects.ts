// The Invoice object (in_…) and its line items (il_…) for subscription billing, as Stripe renders
// them for the API version the twin writes: the subscription is named under `parent`, each line
// under `parent.subscription_item_details`, and the payment under an invoice_payment (inpay_…).
import type { Twin } from '../../src/index.js';
import type { StripeProduct } from './catalog.js';
import { list, unixNow } from './common.js';
import type { StripeCustomer } from './customers.js';
import type { Metadata } from './metadata.js';
import { formatAmount } from './money.js';
import type { Period, StripeSubscription, StripeSubscriptionItem } from './subscription-objects.js';
import { recordKind } from '../../src/index.js';

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
export type BillingReason =
  'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'upcoming' | 'manual';

export function lineItemObject(
  id: string,
  invoice: string | null,
  sub: StripeSubscription,
  item: StripeSubscriptionItem,
  product: StripeProduct,
  period: Period,
  trial: boolean,
) {
  const unit = trial ? 0 : (item.price.unit_amount ?? 0);
  const amount = unit * item.quantity;
  const interval = item.price.recurring?.interval ?? 'month';
  return {
    id,
    object: 'line_item' as const,
    amount,
    currency: item.price.currency,
    description: trial
      ? `Trial period for ${product.name}`
      : `${item.quantity} × ${product.name} (at ${formatAmount(item.price.unit_amount ?? 0, item.price.currency)} / ${interval})`,
    discount_amounts: [],
    discountable: true,
    discounts: [] as string[],
    invoice,
    livemode: false as const,
    metadata: {} as Metadata,
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: sub.id,
        subscription_item: item.id,
      },
      type: 'subscription_item_details' as const,
    },
    period: { end: period.end, start: period.start },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: item.price.id, product: product.id },
      type: 'price_details' as const,
      unit_amount_decimal: String(unit),
    },
    quantity: item.quantity,
    quantity_decimal: String(item.quantity),
    subscription: sub.id,
    subtotal: amount,
    taxes: [],
  };
}

export type StripeLineItem = ReturnType<typeof lineItemObject>;

export interface InvoiceSpec {
  readonly id: string;
  readonly customer: StripeCustomer;
  readonly subscription: StripeSubscription;
  readonly lines: StripeLineItem[];
  readonly billingReason: BillingReason;
  /** The period the invoice closes (Stripe: the previous one for a renewal, or the creation instant). */
  readonly period: Period;
  readonly finalizesAt: number | null;
}

export function invoiceObject(twin: Twin, spec: InvoiceSpec) {
  const total = spec.lines.reduce((sum, l) => sum + l.amount, 0);
  return {
    id: spec.id,
    object: 'invoice' as const,
    account_country: 'US',
    account_name: 'Twinworld',
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: {
      disabled_reason: null,
      enabled: false,
      liability: null,
      provider: null,
      status: null,
    },
    automatically_finalizes_at: spec.finalizesAt,
    billing_reason: spec.billingReason,
    collection_method: 'charge_automatically' as const,
    created: unixNow(twin),
    currency: spec.subscription.currency,
    custom_fields: null,
    customer: spec.customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: spec.customer.email,
    customer_name: spec.customer.name,
    customer_phone: spec.customer.phone,
    customer_shipping: null,
    customer_tax_exempt: spec.customer.tax_exempt,
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [] as string[],
    due_date: null,
    effective_at: null as number | null,
    ending_balance: null as number | null,
    footer: spec.customer.invoice_settings.footer,
    from_invoice: null,
    hosted_invoice_url: null as string | null,
    invoice_pdf: null as string | null,
    issuer: { type: 'self' as const },
    last_finalization_error: null,
    latest_revision: null,
    lines: list(spec.lines, `/v1/invoices/${spec.id}/lines`),
    livemode: false as const,
    metadata: {} as Metadata,
    next_payment_attempt: null as number | null,
    number: null as string | null,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: {
        metadata: spec.subscription.metadata,
        subscription: spec.subscription.id,
      },
      type: 'subscription_details' as const,
    },
    payment_settings: {
      default_mandate: null,
      payment_method_options: null,
      payment_method_types: null,
    },
    period_end: spec.period.end,
    period_start: spec.period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: 'draft' as InvoiceStatus,
    status_transitions: {
      finalized_at: null as number | null,
      marked_uncollectible_at: null,
      paid_at: null as number | null,
      voided_at: null,
    },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
  };
}

export type StripeInvoice = ReturnType<typeof invoiceObject>;

/** The invoice records of the twin, typed (src/state/record-kind.ts). */
export const invoiceKind = recordKind<StripeInvoice>({ type: 'invoice' });

export function invoicePaymentObject(
  twin: Twin,
  id: string,
  invoice: StripeInvoice,
  paymentIntent: string,
) {
  return {
    id,
    object: 'invoice_payment' as const,
    amount_paid: null as number | null,
    amount_requested: invoice.amount_due,
    created: unixNow(twin),
    currency: invoice.currency,
    invoice: invoice.id,
    is_default: true,
    livemode: false as const,
    payment: { payment_intent: paymentIntent, type: 'payment_intent' as const },
    status: 'open',
    status_transitions: { canceled_at: null, paid_at: null as number | null },
  };
}

export type StripeInvoicePayment = ReturnType<typeof invoicePaymentObject>;

/** The invoice_payment records of the twin, typed (src/state/record-kind.ts). */
export const invoicePaymentKind = recordKind<StripeInvoicePayment>({ type: 'invoice_payment' });
