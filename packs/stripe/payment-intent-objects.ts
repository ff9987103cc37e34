// The PaymentIntent object as Stripe renders it, its statuses and its record kind: what the
// operations (payment-intents.ts), payment attempts and invoices build and read.
import { recordKind, type Twin } from '../../src/index.js';
import { unixNow } from './common.js';
import { stripeIds } from './ids.js';
import type { Metadata } from './metadata.js';
import type { StripePaymentMethod } from './payment-methods.js';

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

type LastPaymentError = {
  charge: string;
  code: string;
  decline_code: string;
  doc_url: string;
  message: string;
  payment_method: StripePaymentMethod;
  type: 'card_error';
};

export type CaptureMethod = 'automatic' | 'automatic_async' | 'manual';

/** What a card asking for 3-D Secure leaves the intent waiting on (Stripe.js would handle it). */
export type NextAction = { type: 'use_stripe_sdk'; use_stripe_sdk: { type: string } };

export interface NewPaymentIntent {
  readonly amount: number;
  readonly currency: string;
  readonly customer: string | null;
  readonly description: string | null;
  readonly metadata: Metadata;
  /** Stripe's default (automatic_async) unless the caller asked for manual capture. */
  readonly captureMethod?: CaptureMethod;
  /** As the caller set it (allow_redirects defaulted); null when not given. */
  readonly automaticPaymentMethods?: AutomaticPaymentMethods;
}

export type AllowRedirects = 'always' | 'never';

/** A PaymentIntent's `automatic_payment_methods` as Stripe shows it. */
export interface AutomaticPaymentMethods {
  readonly enabled: boolean;
  readonly allow_redirects?: AllowRedirects;
}

export function paymentIntentObject(twin: Twin, id: string, input: NewPaymentIntent) {
  return {
    id,
    object: 'payment_intent' as const,
    allowed_payment_method_types: null,
    amount: input.amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: (input.automaticPaymentMethods ??
      null) as AutomaticPaymentMethods | null,
    canceled_at: null as number | null,
    cancellation_reason: null as
      'duplicate' | 'fraudulent' | 'requested_by_customer' | 'abandoned' | null,
    capture_method: input.captureMethod ?? ('automatic_async' as CaptureMethod),
    client_secret: `${id}_${stripeIds.clientSecretTail(twin.world.ids)}`,
    confirmation_method: 'automatic' as const,
    created: unixNow(twin),
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    description: input.description,
    excluded_payment_method_types: null,
    last_payment_error: null as LastPaymentError | null,
    latest_charge: null as string | null,
    livemode: false as const,
    managed_payments: null,
    metadata: input.metadata,
    next_action: null as NextAction | null,
    on_behalf_of: null,
    payment_method: null as string | null,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: {
        installments: null,
        mandate_options: null,
        network: null,
        request_three_d_secure: 'automatic' as const,
      },
    },
    payment_method_types: ['card'],
    payment_record: null,
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: 'requires_payment_method' as PaymentIntentStatus,
    transfer_group: null,
  };
}

export type StripePaymentIntent = ReturnType<typeof paymentIntentObject>;

/** The payment_intent records of the twin, typed (src/state/record-kind.ts). */
export const paymentIntentKind = recordKind<StripePaymentIntent>({ type: 'payment_intent' });
