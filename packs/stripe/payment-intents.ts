// PaymentIntents: a lifecycle with state. Created in requires_payment_method; confirming with a
// payment method either succeeds or fails (back to requires_payment_method with
// last_payment_error); cancel ends it. Every confirmation makes a charge, written beside the
// intent in the same commit, so charge.* and payment_intent.* events name the same request.
// decide refuses any other transition with Stripe's payment_intent_unexpected_state, so an
// invalid transition never reaches the log.
import {
  commit,
  skip,
  type JsonObject,
  type ReadView,
  type Twin,
  type Write,
} from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import { declineCodeFor, TEST_CARDS } from './cards.js';
import { chargeObject, chargeWrite, type StripeCharge } from './charges.js';
import { asJson, liveFields, unixNow, withRequest } from './common.js';
import { unexpectedState, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, type Metadata } from './metadata.js';
import { resolvePaymentMethod, type StripePaymentMethod } from './payment-methods.js';
import { recordKind } from '../../src/index.js';
import { customerKind } from './customers.js';

export type PaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

export type LastPaymentError = {
  charge: string;
  code: string;
  decline_code: string;
  doc_url: string;
  message: string;
  payment_method: StripePaymentMethod;
  type: 'card_error';
};

export interface NewPaymentIntent {
  readonly amount: number;
  readonly currency: string;
  readonly customer: string | null;
  readonly description: string | null;
  readonly metadata: Metadata;
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
    automatic_payment_methods: null,
    canceled_at: null as number | null,
    cancellation_reason: null as
      'duplicate' | 'fraudulent' | 'requested_by_customer' | 'abandoned' | null,
    capture_method: 'automatic_async' as const,
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
    next_action: null,
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

export interface CreatePaymentIntentInput {
  amount: number;
  currency: string;
  customer?: string;
  description?: string;
  metadata?: Record<string, string>;
}

export interface ConfirmPaymentIntentInput {
  /** A pm_… id, or a Stripe test token: pm_card_visa succeeds; pm_card_chargeDeclined (and friends) fail. */
  payment_method?: string;
}

/** Test payment methods that decline, with the decline code Stripe reports for each. */
export const DECLINING_TEST_METHODS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(TEST_CARDS)
    .filter(([, card]) => card.declineCode !== undefined)
    .map(([token, card]) => [token, card.declineCode!]),
);

const CONFIRMABLE: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
];
const CANCELABLE: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'requires_capture',
  'processing',
];
const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'];
const CREATE_KEYS = ['amount', 'currency', 'customer', 'description', 'metadata'] as const;

const check = checker('stripe');

function live(view: ReadView, id: string): StripePaymentIntent {
  return liveFields(view, paymentIntentKind, id);
}

export function getPaymentIntent(twin: Twin, id: string): Promise<StripePaymentIntent> {
  return twin.read((view) => live(view, id));
}

export async function createPaymentIntent(
  twin: Twin,
  input: CreatePaymentIntentInput,
  options: RequestOptions = {},
): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(CREATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, CREATE_KEYS);
  const amount = check.integer(input?.amount, 'amount', 1);
  const currency = checkCurrency(input.currency);
  const customer = check.optionalString(input.customer, 'customer');
  const description = check.optionalString(input.description, 'description');
  const metadata = mergeMetadata(
    {},
    input.metadata === undefined ? undefined : check.object(input.metadata, 'metadata'),
  );
  const params: JsonObject = { amount, currency, customer, description, metadata };
  const call: RequestCall = { method: 'POST', path: '/v1/payment_intents', params };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(live(view, prior.id));
      if (customer !== null) liveFields(view, customerKind, customer, 'customer');
      const id = stripeIds.paymentIntent(twin.world.ids);
      const intent = paymentIntentObject(twin, id, {
        amount,
        currency,
        customer,
        description,
        metadata,
      });
      return commit(
        {
          operation: 'payment_intent.create',
          subjectType: 'payment_intent',
          subjectId: id,
          fields: asJson(intent),
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'payment_intent', id })],
          },
        },
        intent,
      );
    })
  ).result;
}

export function checkCurrency(value: unknown): string {
  const currency = check.string(value, 'currency');
  if (!/^[a-z]{3}$/.test(currency))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'currency must be a three-letter lowercase ISO code such as "usd"',
      { path: 'currency' },
    );
  return currency;
}

export interface PaymentAttempt {
  /** The charge write (and the payment method a token made), then the intent's. */
  readonly writes: Write[];
  readonly intent: StripePaymentIntent;
  readonly charge: StripeCharge;
  readonly ok: boolean;
}

/**
 * Inside decide: charges `methodRef` for `intent` — a succeeded or failed charge and the intent's
 * next state — as writes for one commit. Whether it declines follows the card (cards.ts).
 */
export function attemptPayment(
  twin: Twin,
  view: ReadView,
  intent: StripePaymentIntent,
  methodRef: string,
  path = 'payment_method',
): PaymentAttempt {
  const { method, created } = resolvePaymentMethod(twin, view, methodRef, intent.customer, path);
  const chargeId = stripeIds.charge(twin.world.ids);
  const declineCode = declineCodeFor(method.card.last4);
  const failure =
    declineCode === undefined
      ? null
      : { code: 'card_declined', declineCode, message: 'Your card was declined.' };
  const charge = chargeObject(twin, {
    id: chargeId,
    amount: intent.amount,
    currency: intent.currency,
    customer: intent.customer,
    description: intent.description,
    paymentIntent: intent.id,
    method,
    failure,
  });
  const fields =
    failure === null
      ? {
          status: 'succeeded' as PaymentIntentStatus,
          amount_received: intent.amount,
          payment_method: method.id,
          latest_charge: chargeId,
          last_payment_error: null,
        }
      : {
          status: 'requires_payment_method' as PaymentIntentStatus,
          payment_method: null,
          latest_charge: chargeId,
          last_payment_error: {
            charge: chargeId,
            code: failure.code,
            decline_code: failure.declineCode,
            doc_url: 'https://stripe.com/docs/error-codes/card-declined',
            message: failure.message,
            payment_method: method,
            type: 'card_error' as const,
          },
        };
  const write = chargeWrite(charge);
  const withMethod: Write = created
    ? {
        ...write,
        projection: {
          creates: [{ type: 'payment_method', id: method.id, fields: asJson(method) }],
        },
      }
    : write;
  return {
    writes: [
      withMethod,
      {
        operation: failure === null ? 'payment_intent.succeed' : 'payment_intent.fail',
        subjectType: 'payment_intent',
        subjectId: intent.id,
        fields: asJson(fields),
      },
    ],
    intent: { ...intent, ...fields },
    charge,
    ok: failure === null,
  };
}

/** Confirms with a payment method: charge.succeeded + payment_intent.succeeded, or charge.failed + payment_intent.payment_failed. */
export async function confirmPaymentIntent(
  twin: Twin,
  id: string,
  input: ConfirmPaymentIntentInput = {},
  options: RequestOptions = {},
): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  const method =
    input.payment_method === undefined
      ? 'pm_card_visa'
      : check.string(input.payment_method, 'payment_method');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_intents/${id}/confirm`,
    params: { payment_method: method },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(live(view, prior.id));
      const intent = live(view, id);
      if (!CONFIRMABLE.includes(intent.status))
        throw unexpectedState(id, 'confirm', intent.status, CONFIRMABLE);
      const attempt = attemptPayment(twin, view, intent, method);
      return commit(
        withRequest(
          attempt.writes,
          requestProjection(twin, call, options, { type: 'payment_intent', id }),
        ),
        attempt.intent,
      );
    })
  ).result;
}

export async function cancelPaymentIntent(
  twin: Twin,
  id: string,
  input: { cancellation_reason?: string } = {},
  options: RequestOptions = {},
): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  const reason = check.optionalString(input.cancellation_reason, 'cancellation_reason');
  if (reason !== null && !CANCELLATION_REASONS.includes(reason)) {
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `cancellation_reason must be one of: ${CANCELLATION_REASONS.join(', ')}`,
      { path: 'cancellation_reason' },
    );
  }
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_intents/${id}/cancel`,
    params: { cancellation_reason: reason },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(live(view, prior.id));
      const intent = live(view, id);
      if (!CANCELABLE.includes(intent.status))
        throw unexpectedState(id, 'cancel', intent.status, CANCELABLE);
      const fields: JsonObject = {
        status: 'canceled',
        canceled_at: unixNow(twin),
        cancellation_reason: reason,
      };
      return commit(
        {
          operation: 'payment_intent.cancel',
          subjectType: 'payment_intent',
          subjectId: id,
          fields,
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'payment_intent', id })],
          },
        },
        { ...intent, ...fields } as StripePaymentIntent,
      );
    })
  ).result;
}
