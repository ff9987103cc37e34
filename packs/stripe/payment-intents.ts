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
import { TEST_CARDS } from './cards.js';
import { checkChargeAmount, checkCurrency } from './currencies.js';
import { attemptPayment } from './payment-attempt.js';
import { invoiceFollowsIntent } from './invoice-intent-confirmation.js';
import { asJson, liveFields, unixNow, withRequest } from './common.js';
import {
  missingParameter,
  missingPaymentMethod,
  unexpectedState,
  unknownParameter,
} from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput, type Metadata } from './metadata.js';
import { customerKind } from './customers.js';
import {
  paymentIntentKind,
  paymentIntentObject,
  type AllowRedirects,
  type AutomaticPaymentMethods,
  type CaptureMethod,
  type PaymentIntentStatus,
  type StripePaymentIntent,
} from './payment-intent-objects.js';

export { checkCurrency } from './currencies.js';
export {
  paymentIntentKind,
  paymentIntentObject,
  type CaptureMethod,
  type PaymentIntentStatus,
  type StripePaymentIntent,
} from './payment-intent-objects.js';

export interface CreatePaymentIntentInput {
  amount: number;
  currency: string;
  customer?: string;
  description?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
  /** `manual`: a successful confirmation only authorizes (requires_capture) until captured. */
  capture_method?: CaptureMethod;
  /** Kept on the intent as Stripe shows it; the twin takes cards either way. */
  automatic_payment_methods?: { enabled: boolean; allow_redirects?: AllowRedirects };
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
  'requires_action',
];
const CANCELABLE: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'requires_capture',
  'processing',
];
const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'];
const CREATE_KEYS = [
  'amount',
  'currency',
  'customer',
  'description',
  'metadata',
  'capture_method',
  'automatic_payment_methods',
] as const;
const CAPTURE_METHODS: readonly CaptureMethod[] = ['automatic', 'automatic_async', 'manual'];

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
  const currency = checkCurrency(input?.currency);
  const amount = checkChargeAmount(input.amount, currency);
  const customer = check.optionalString(input.customer, 'customer');
  const description = check.optionalString(input.description, 'description');
  const metadata = mergeMetadata({}, metadataInput(input.metadata));
  const captureMethod =
    input.capture_method === undefined ? undefined : captureMethodOf(input.capture_method);
  const automatic =
    input.automatic_payment_methods === undefined
      ? undefined
      : automaticPaymentMethodsOf(input.automatic_payment_methods);
  // Only a given capture_method (automatic_payment_methods) joins the request's parameters, so
  // older logs hash as before.
  const params: JsonObject = {
    amount,
    currency,
    customer,
    description,
    metadata,
    ...(captureMethod === undefined ? {} : { capture_method: captureMethod }),
    ...(automatic === undefined ? {} : { automatic_payment_methods: { ...automatic } }),
  };
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
        ...(captureMethod === undefined ? {} : { captureMethod }),
        ...(automatic === undefined ? {} : { automaticPaymentMethods: automatic }),
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

/**
 * `automatic_payment_methods` as Stripe keeps it: `enabled` required, `allow_redirects` one of
 * always (Stripe's default, filled in when enabled) or never.
 */
function automaticPaymentMethodsOf(value: unknown): AutomaticPaymentMethods {
  const given = check.object(value, 'automatic_payment_methods');
  for (const key of Object.keys(given))
    if (key !== 'enabled' && key !== 'allow_redirects')
      throw unknownParameter(`automatic_payment_methods.${key}`, ['enabled', 'allow_redirects']);
  if (typeof given.enabled !== 'boolean')
    throw missingParameter('automatic_payment_methods.enabled');
  const redirects = given.allow_redirects;
  if (redirects !== undefined && redirects !== 'always' && redirects !== 'never')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'Invalid automatic_payment_methods[allow_redirects]: must be one of always or never',
      { path: 'automatic_payment_methods.allow_redirects' },
    );
  if (!given.enabled)
    return { enabled: false, ...(redirects === undefined ? {} : { allow_redirects: redirects }) };
  return { allow_redirects: redirects ?? 'always', enabled: true };
}

function captureMethodOf(value: unknown): CaptureMethod {
  const method = CAPTURE_METHODS.find((m) => m === value);
  if (method === undefined)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `capture_method must be one of: ${CAPTURE_METHODS.join(', ')}`,
      { path: 'capture_method' },
    );
  return method;
}

/**
 * Confirms with the given payment method, or the one the intent already holds (after a
 * requires_action): charge.succeeded + payment_intent.succeeded, or charge.failed +
 * payment_intent.payment_failed. Without either there is nothing to charge, and Stripe refuses.
 * An invoice's intent pays (or fails) that invoice as well: invoice-intent-confirmation.ts.
 */
export async function confirmPaymentIntent(
  twin: Twin,
  id: string,
  input: ConfirmPaymentIntentInput = {},
  options: RequestOptions = {},
): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  const given =
    input.payment_method === undefined
      ? null
      : check.string(input.payment_method, 'payment_method');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_intents/${id}/confirm`,
    params: { payment_method: given },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(live(view, prior.id));
      const intent = live(view, id);
      if (!CONFIRMABLE.includes(intent.status))
        throw unexpectedState(id, 'confirm', intent.status, CONFIRMABLE);
      // A decline leaves payment_method null, so only a method still on the intent is reused.
      const method = given ?? intent.payment_method;
      if (method === null) throw missingPaymentMethod();
      const attempt = attemptPayment(twin, view, intent, method);
      // The intent of a finalized invoice settles that invoice with it, in the same commit.
      const settles = invoiceFollowsIntent(view, attempt, unixNow(twin));
      return commit(
        withRequest(
          [...attempt.writes, ...settles],
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
      const writes: Write[] = [];
      // An authorization canceled is released: nothing is left capturable. Since API version
      // 2025-03-31.basil Stripe makes no Refund for the release and leaves the charge alone (not
      // refunded, amount_refunded unchanged, no charge.refunded): payment_intent.canceled only.
      if (intent.status === 'requires_capture') fields.amount_capturable = 0;
      writes.push({
        operation: 'payment_intent.cancel',
        subjectType: 'payment_intent',
        subjectId: id,
        fields,
      });
      return commit(
        withRequest(writes, requestProjection(twin, call, options, { type: 'payment_intent', id })),
        { ...intent, ...fields } as StripePaymentIntent,
      );
    })
  ).result;
}
