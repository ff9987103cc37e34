// Changing a payment intent after it was made: update (description and metadata in any status;
// amount, currency and customer only while it still waits for a payment) and capture (a manual-capture intent that was
// authorized: the charge is captured — charge.captured — and the intent succeeds). Each is one
// atomic action; a call in the wrong state is refused with payment_intent_unexpected_state.
import { commit, skip, type JsonObject, type Twin, type Write } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import { chargeKind } from './charges.js';
import { checkChargeAmount } from './currencies.js';
import { liveFields, withRequest } from './common.js';
import { customerKind } from './customers.js';
import { unexpectedState, unknownParameter } from './errors.js';
import { mergeMetadata, metadataInput } from './metadata.js';
import {
  checkCurrency,
  paymentIntentKind,
  type PaymentIntentStatus,
  type StripePaymentIntent,
} from './payment-intents.js';

const check = checker('stripe');

const UPDATABLE: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
];
const UPDATE_KEYS = ['amount', 'currency', 'customer', 'description', 'metadata'] as const;
/** What the payment is for: fixed once the intent stops waiting for one (Stripe). */
const PAYMENT_KEYS = ['amount', 'currency', 'customer'] as const;

/** Stripe's refusal of a payment field on an intent that no longer waits for a payment. */
function notUpdatable(id: string, field: string, status: PaymentIntentStatus): VendorError {
  return new VendorError(
    'stripe',
    'invalid_state',
    'payment_intent_unexpected_state',
    `This PaymentIntent's ${field} could not be updated because it has a status of ${status}. You may only update the ${field} of a PaymentIntent with one of the following statuses: ${UPDATABLE.join(', ')}.`,
    { path: field, details: { id, status, allowed: [...UPDATABLE] } },
  );
}

export interface UpdatePaymentIntentInput {
  amount?: number;
  currency?: string;
  customer?: string;
  description?: string | null;
  /** Merged key by key; a key set to "" is removed, and null removes every key. */
  metadata?: Record<string, string> | null;
}

/**
 * POST /v1/payment_intents/{id}: changes what will be charged (while it waits for a payment) or what
 * the intent says about itself (description, metadata: any time); sends no event (Stripe sends none).
 */
export async function updatePaymentIntent(
  twin: Twin,
  id: string,
  input: UpdatePaymentIntentInput,
  options: RequestOptions = {},
): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(UPDATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, UPDATE_KEYS);
  const patch: JsonObject = {};
  // Judged against the intent's currency once it is read (a minimum is per currency).
  if (input.amount !== undefined) patch.amount = check.integer(input.amount, 'amount', 0);
  if (input.currency !== undefined) patch.currency = checkCurrency(input.currency);
  if (input.customer !== undefined) patch.customer = check.string(input.customer, 'customer');
  if (input.description !== undefined)
    patch.description = check.optionalString(input.description, 'description');
  const metadata = metadataInput(input.metadata);
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_intents/${id}`,
    params: { ...patch, ...(metadata === undefined ? {} : { metadata }) },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(liveFields(view, paymentIntentKind, prior.id));
      const intent = liveFields(view, paymentIntentKind, id);
      // Description and metadata change in any status (an order id added once paid); what is
      // charged only while nothing has been.
      if (!UPDATABLE.includes(intent.status))
        for (const field of PAYMENT_KEYS)
          if (patch[field] !== undefined) throw notUpdatable(id, field, intent.status);
      if (patch.amount !== undefined || patch.currency !== undefined)
        checkChargeAmount(patch.amount ?? intent.amount, String(patch.currency ?? intent.currency));
      if (typeof patch.customer === 'string')
        liveFields(view, customerKind, patch.customer, 'customer');
      const fields: JsonObject = {
        ...patch,
        ...(metadata === undefined ? {} : { metadata: mergeMetadata(intent.metadata, metadata) }),
      };
      return commit(
        paymentIntentKind.write('payment_intent.update', id, paymentIntentKind.from(fields), {
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'payment_intent', id })],
          },
        }),
        { ...intent, ...paymentIntentKind.from(fields) },
      );
    })
  ).result;
}

export interface CapturePaymentIntentInput {
  /** At most what was authorized (amount_capturable); all of it by default. */
  amount_to_capture?: number;
}

/** POST /v1/payment_intents/{id}/capture: charge.captured, then payment_intent.succeeded. */
export async function capturePaymentIntent(
  twin: Twin,
  id: string,
  input: CapturePaymentIntentInput = {},
  options: RequestOptions = {},
): Promise<StripePaymentIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (key !== 'amount_to_capture') throw unknownParameter(key, ['amount_to_capture']);
  const wanted =
    input.amount_to_capture === undefined
      ? null
      : check.integer(input.amount_to_capture, 'amount_to_capture', 1);
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_intents/${id}/capture`,
    params: { amount_to_capture: wanted },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(liveFields(view, paymentIntentKind, prior.id));
      const intent = liveFields(view, paymentIntentKind, id);
      if (intent.status !== 'requires_capture')
        throw unexpectedState(id, 'capture', intent.status, ['requires_capture']);
      const amount = wanted ?? intent.amount_capturable;
      if (amount > intent.amount_capturable)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'amount_too_large',
          `amount_to_capture (${amount}) is more than the ${intent.amount_capturable} authorized`,
          { path: 'amount_to_capture' },
        );
      const charge = liveFields(view, chargeKind, intent.latest_charge!, 'latest_charge');
      const chargeFields = {
        captured: true,
        // The rest of the authorization is released with no Refund and no amount_refunded (Stripe
        // since 2025-03-31.basil): what can be refunded later is what was captured.
        amount_captured: amount,
      };
      const intentFields = {
        status: 'succeeded' as PaymentIntentStatus,
        amount_capturable: 0,
        amount_received: amount,
      };
      const writes: Write[] = [
        chargeKind.write('charge.capture', charge.id, chargeFields),
        paymentIntentKind.write('payment_intent.capture', id, intentFields),
      ];
      return commit(
        withRequest(writes, requestProjection(twin, call, options, { type: 'payment_intent', id })),
        { ...intent, ...intentFields },
      );
    })
  ).result;
}
