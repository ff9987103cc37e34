// The Checkout Session object (cs_test_…) as Stripe renders it, its record kind and line items,
// and the reads every Checkout operation shares: a live session, an open one, and the fields a
// completed session takes.
import { recordKind, type ReadView, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { emptyAddress, liveFields, unixNow } from './common.js';
import type { Metadata } from './metadata.js';

export type CheckoutMode = 'payment' | 'subscription';

interface SessionSpec {
  readonly id: string;
  readonly mode: CheckoutMode;
  readonly amount: number;
  readonly currency: string;
  readonly customer: string | null;
  readonly customerEmail: string | null;
  readonly clientReferenceId: string | null;
  readonly successUrl: string;
  readonly cancelUrl: string | null;
  readonly expiresAt: number;
  readonly metadata: Metadata;
}

export function checkoutSessionObject(twin: Twin, spec: SessionSpec) {
  return {
    id: spec.id,
    object: 'checkout.session' as const,
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: spec.amount,
    amount_total: spec.amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: spec.cancelUrl,
    client_reference_id: spec.clientReferenceId,
    client_secret: null,
    collected_information: null as {
      business_name: null;
      individual_name: null;
      shipping_details: null;
    } | null,
    consent: null,
    consent_collection: null,
    created: unixNow(twin),
    currency: spec.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer: spec.customer,
    customer_account: null,
    customer_creation:
      spec.mode === 'payment' && spec.customer === null ? ('if_required' as const) : null,
    customer_details: null as null | {
      address: ReturnType<typeof emptyAddress>;
      business_name: null;
      email: string | null;
      individual_name: null;
      name: string | null;
      phone: null;
      tax_exempt: 'none';
      tax_ids: [];
    },
    customer_email: spec.customerEmail,
    discounts: [],
    expires_at: spec.expiresAt,
    integration_identifier: null,
    invoice: null as string | null,
    invoice_creation:
      spec.mode === 'payment'
        ? {
            enabled: false,
            invoice_data: {
              account_tax_ids: null,
              custom_fields: null,
              description: null,
              footer: null,
              issuer: null,
              metadata: {},
              rendering_options: null,
            },
          }
        : null,
    livemode: false as const,
    locale: null,
    managed_payments: null,
    metadata: spec.metadata,
    mode: spec.mode,
    origin_context: null,
    payment_intent: null as string | null,
    payment_link: null,
    payment_method_collection:
      spec.mode === 'subscription' ? ('always' as const) : ('if_required' as const),
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' as const } },
    payment_method_types: ['card', 'us_bank_account'],
    payment_status: 'unpaid' as 'paid' | 'unpaid' | 'no_payment_required',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open' as 'open' | 'complete' | 'expired',
    submit_type: null,
    subscription: null as string | null,
    success_url: spec.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted' as const,
    url: `https://checkout.stripe.com/c/pay/${spec.id}` as string | null,
    wallet_options: null,
  };
}

export type StripeCheckoutSession = ReturnType<typeof checkoutSessionObject>;

/** The checkout_session records of the twin, typed (src/state/record-kind.ts). */
export const checkoutSessionKind = recordKind<StripeCheckoutSession>({ type: 'checkout_session' });

/** The session's line items, kept beside it (Stripe returns them only when expanded). */
export const LINE_ITEMS = 'checkout_line_items';

/** What a session keeps of each line item: the price and how many. */
export interface KeptLineItem {
  readonly price: string;
  readonly quantity: number;
}

/** The line items records of the twin, typed (one per session, under the session's id). */
export const lineItemsKind = recordKind<{ data: KeptLineItem[] }>({ type: LINE_ITEMS });

export function live(view: ReadView, id: string): StripeCheckoutSession {
  return liveFields(view, checkoutSessionKind, id);
}

export async function getCheckoutSession(twin: Twin, id: string): Promise<StripeCheckoutSession> {
  return await twin.read((view) => live(view, id));
}

export function openSession(view: ReadView, id: string): StripeCheckoutSession {
  const session = live(view, id);
  if (session.status !== 'open') {
    throw new VendorError(
      'stripe',
      'invalid_state',
      'checkout_session_unexpected_state',
      `Checkout Session ${id} is ${session.status}; only an open session can be paid or expired`,
      { path: 'id', details: { status: session.status } },
    );
  }
  return session;
}

export function completedFields(
  session: StripeCheckoutSession,
  email: string | null,
  name: string | null,
  customer: string | null,
  paid: boolean,
) {
  return {
    status: 'complete' as const,
    payment_status: paid ? ('paid' as const) : ('unpaid' as const),
    url: null,
    customer,
    collected_information: { business_name: null, individual_name: null, shipping_details: null },
    customer_details: {
      address: emptyAddress(),
      business_name: null,
      email: email ?? session.customer_email,
      individual_name: null,
      name,
      phone: null,
      tax_exempt: 'none' as const,
      tax_ids: [] as [],
    },
  };
}
