// PaymentIntents: a lifecycle with state. Created in requires_payment_method; confirming with a
// test payment method either succeeds or fails (back to requires_payment_method with
// last_payment_error); cancel ends it. decide refuses any other transition with Stripe's
// payment_intent_unexpected_state, so an invalid transition never reaches the log.
import { commit, skip, type JsonObject, type ProjectedResource, type ReadView, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { priorRequest, requestProjection, type RequestCall, type RequestOptions } from './api-requests.js';
import { noSuch, unexpectedState, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, type Metadata } from './metadata.js';

export type PaymentIntentStatus = 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'requires_capture' | 'canceled' | 'succeeded';

export type LastPaymentError = { charge: string; code: string; decline_code: string; doc_url: string; message: string; type: 'card_error' };

export type StripePaymentIntent = {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: 'automatic_async';
  confirmation_method: 'automatic';
  created: number;
  currency: string;
  customer: string | null;
  description: string | null;
  last_payment_error: LastPaymentError | null;
  latest_charge: string | null;
  livemode: false;
  metadata: Metadata;
  payment_method: string | null;
  payment_method_types: string[];
  status: PaymentIntentStatus;
};

export interface CreatePaymentIntentInput {
  amount: number;
  currency: string;
  customer?: string;
  description?: string;
  metadata?: Record<string, string>;
}

export interface ConfirmPaymentIntentInput {
  /** A Stripe test payment method: pm_card_visa succeeds; pm_card_chargeDeclined (and friends) fail. */
  payment_method?: string;
}

/** Test payment methods that decline, with the decline code Stripe reports for each. */
export const DECLINING_TEST_METHODS: Readonly<Record<string, string>> = {
  pm_card_chargeDeclined: 'generic_decline',
  pm_card_visa_chargeDeclined: 'generic_decline',
  pm_card_chargeDeclinedInsufficientFunds: 'insufficient_funds',
  pm_card_chargeDeclinedLostCard: 'lost_card',
  pm_card_chargeDeclinedExpiredCard: 'expired_card',
};

const CONFIRMABLE: readonly PaymentIntentStatus[] = ['requires_payment_method', 'requires_confirmation'];
const CANCELABLE: readonly PaymentIntentStatus[] = ['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture', 'processing'];
const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'];
const CREATE_KEYS = ['amount', 'currency', 'customer', 'description', 'metadata'] as const;

const check = checker('stripe');

function live(view: ReadView, id: string): StripePaymentIntent {
  const r = view.get('payment_intent', id);
  if (r === undefined || r.deleted) throw noSuch('payment_intent', id);
  return r.fields as unknown as StripePaymentIntent;
}

export function getPaymentIntent(twin: Twin, id: string): Promise<StripePaymentIntent> {
  return twin.read((view) => live(view, id));
}

export async function createPaymentIntent(twin: Twin, input: CreatePaymentIntentInput, options: RequestOptions = {}): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {})) if (!(CREATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, CREATE_KEYS);
  const amount = check.integer(input?.amount, 'amount', 1);
  const currency = check.string(input.currency, 'currency');
  if (!/^[a-z]{3}$/.test(currency)) throw new VendorError('stripe', 'invalid_input', 'parameter_invalid', 'currency must be a three-letter lowercase ISO code such as "usd"', { path: 'currency' });
  const customer = check.optionalString(input.customer, 'customer');
  const description = check.optionalString(input.description, 'description');
  const metadata = mergeMetadata({}, input.metadata === undefined ? undefined : check.object(input.metadata, 'metadata'));
  const params: JsonObject = { amount, currency, customer, description, metadata };
  const call: RequestCall = { method: 'POST', path: '/v1/payment_intents', params };
  return (await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(live(view, prior.id));
    if (customer !== null) {
      const c = view.get('customer', customer);
      if (c === undefined || c.deleted) throw noSuch('customer', customer, 'customer');
    }
    const id = stripeIds.paymentIntent(twin.world.ids);
    const intent: StripePaymentIntent = {
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic_async',
      confirmation_method: 'automatic',
      created: Math.floor(twin.world.clock.now() / 1000),
      currency,
      customer,
      description,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata,
      payment_method: null,
      payment_method_types: ['card'],
      status: 'requires_payment_method',
    };
    return commit(
      { operation: 'payment_intent.create', subjectType: 'payment_intent', subjectId: id, fields: intent, projection: { creates: [requestProjection(twin, call, options, { type: 'payment_intent', id })] } },
      intent,
    );
  })).result;
}

function charge(twin: Twin, intent: StripePaymentIntent, id: string, paymentMethod: string, failure: LastPaymentError | null): ProjectedResource {
  return {
    type: 'charge',
    id,
    fields: {
      id,
      object: 'charge',
      amount: intent.amount,
      amount_captured: failure === null ? intent.amount : 0,
      created: Math.floor(twin.world.clock.now() / 1000),
      currency: intent.currency,
      customer: intent.customer,
      failure_code: failure?.code ?? null,
      failure_message: failure?.message ?? null,
      livemode: false,
      paid: failure === null,
      payment_intent: intent.id,
      payment_method: paymentMethod,
      status: failure === null ? 'succeeded' : 'failed',
    },
  };
}

/** Confirms with a test payment method: payment_intent.succeeded, or payment_intent.payment_failed. */
export async function confirmPaymentIntent(twin: Twin, id: string, input: ConfirmPaymentIntentInput = {}, options: RequestOptions = {}): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  const method = input.payment_method === undefined ? 'pm_card_visa' : check.string(input.payment_method, 'payment_method');
  const call: RequestCall = { method: 'POST', path: `/v1/payment_intents/${id}/confirm`, params: { payment_method: method } };
  return (await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(live(view, prior.id));
    const intent = live(view, id);
    if (!CONFIRMABLE.includes(intent.status)) throw unexpectedState(id, 'confirm', intent.status, CONFIRMABLE);
    const ids = twin.world.ids;
    // A pm_card_* test token becomes a real-looking pm_… id, as in Stripe test mode.
    const paymentMethod = method.startsWith('pm_card_') ? stripeIds.paymentMethod(ids) : method;
    const chargeId = stripeIds.charge(ids);
    const declineCode = DECLINING_TEST_METHODS[method];
    const failure: LastPaymentError | null =
      declineCode === undefined
        ? null
        : { charge: chargeId, code: 'card_declined', decline_code: declineCode, doc_url: 'https://stripe.com/docs/error-codes/card-declined', message: 'Your card was declined.', type: 'card_error' };
    const fields: JsonObject =
      failure === null
        ? { status: 'succeeded', amount_received: intent.amount, payment_method: paymentMethod, latest_charge: chargeId, last_payment_error: null }
        : { status: 'requires_payment_method', payment_method: null, latest_charge: chargeId, last_payment_error: failure };
    const next = { ...intent, ...fields } as StripePaymentIntent;
    return commit(
      {
        operation: failure === null ? 'payment_intent.succeed' : 'payment_intent.fail',
        subjectType: 'payment_intent',
        subjectId: id,
        fields,
        projection: { creates: [charge(twin, intent, chargeId, paymentMethod, failure), requestProjection(twin, call, options, { type: 'payment_intent', id })] },
      },
      next,
    );
  })).result;
}

export async function cancelPaymentIntent(twin: Twin, id: string, input: { cancellation_reason?: string } = {}, options: RequestOptions = {}): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  const reason = check.optionalString(input.cancellation_reason, 'cancellation_reason');
  if (reason !== null && !CANCELLATION_REASONS.includes(reason)) {
    throw new VendorError('stripe', 'invalid_input', 'parameter_invalid', `cancellation_reason must be one of: ${CANCELLATION_REASONS.join(', ')}`, { path: 'cancellation_reason' });
  }
  const call: RequestCall = { method: 'POST', path: `/v1/payment_intents/${id}/cancel`, params: { cancellation_reason: reason } };
  return (await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(live(view, prior.id));
    const intent = live(view, id);
    if (!CANCELABLE.includes(intent.status)) throw unexpectedState(id, 'cancel', intent.status, CANCELABLE);
    const fields: JsonObject = { status: 'canceled', canceled_at: Math.floor(twin.world.clock.now() / 1000), cancellation_reason: reason };
    return commit(
      { operation: 'payment_intent.cancel', subjectType: 'payment_intent', subjectId: id, fields, projection: { creates: [requestProjection(twin, call, options, { type: 'payment_intent', id })] } },
      { ...intent, ...fields } as StripePaymentIntent,
    );
  })).result;
}
