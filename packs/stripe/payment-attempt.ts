// One attempt to pay a payment intent with a payment method, decided inside an atomic action: the
// card's number says what happens, as in Stripe test mode — it succeeds (captured, or only
// authorized when the intent captures manually), it declines (a failed charge, the intent back in
// requires_payment_method with last_payment_error), or it asks for 3-D Secure first (no charge;
// the intent waits in requires_action). The writes come back for the caller to commit.
import type { ReadView, Twin, Write } from '../../src/index.js';
import { declineFor, errorDocUrl, requiresActionFor } from './cards.js';
import { chargeObject, chargeWrite, type StripeCharge } from './charges.js';
import { asJson } from './common.js';
import { stripeIds } from './ids.js';
import type {
  NextAction,
  PaymentIntentStatus,
  StripePaymentIntent,
} from './payment-intent-objects.js';
import { resolvePaymentMethod, type StripePaymentMethod } from './payment-methods.js';

export interface PaymentAttempt {
  /** The charge write (and the payment method a token made), then the intent's. */
  readonly writes: Write[];
  readonly intent: StripePaymentIntent;
  /** Null when the card asked for authentication first: nothing was charged. */
  readonly charge: StripeCharge | null;
  /** Paid, or authorized for a manual capture. */
  readonly ok: boolean;
}

/** What Stripe shows for a card that needs 3-D Secure: Stripe.js finishes it in the browser. */
export const THREE_D_SECURE: NextAction = {
  type: 'use_stripe_sdk',
  use_stripe_sdk: { type: 'three_d_secure_redirect' },
};

/** The payment method a token made travels with the first write of the attempt. */
function withCreated(write: Write, method: StripePaymentMethod, created: boolean): Write {
  if (!created) return write;
  return {
    ...write,
    projection: {
      ...(write.projection ?? {}),
      creates: [
        ...(write.projection?.creates ?? []),
        { type: 'payment_method', id: method.id, fields: asJson(method) },
      ],
    },
  };
}

function actionRequired(
  intent: StripePaymentIntent,
  method: StripePaymentMethod,
  created: boolean,
): PaymentAttempt {
  const fields = {
    status: 'requires_action' as PaymentIntentStatus,
    payment_method: method.id,
    next_action: THREE_D_SECURE,
    last_payment_error: null,
  };
  const write: Write = {
    operation: 'payment_intent.require_action',
    subjectType: 'payment_intent',
    subjectId: intent.id,
    fields: asJson(fields),
  };
  return {
    writes: [withCreated(write, method, created)],
    intent: { ...intent, ...fields },
    charge: null,
    ok: false,
  };
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
  if (requiresActionFor(method.card.last4)) return actionRequired(intent, method, created);
  const chargeId = stripeIds.charge(twin.world.ids);
  const failure = declineFor(method.card.last4) ?? null;
  const manual = intent.capture_method === 'manual';
  const charge = chargeObject(twin, {
    id: chargeId,
    amount: intent.amount,
    currency: intent.currency,
    customer: intent.customer,
    description: intent.description,
    paymentIntent: intent.id,
    method,
    failure,
    ...(manual ? { uncaptured: true } : {}),
  });
  // Only an attempt after a requires_action clears next_action: earlier intents never had one,
  // and their writes keep the fields they always had.
  const cleared = intent.next_action === null ? {} : { next_action: null };
  const fields =
    failure !== null
      ? {
          status: 'requires_payment_method' as PaymentIntentStatus,
          payment_method: null,
          latest_charge: chargeId,
          ...cleared,
          last_payment_error: {
            charge: chargeId,
            code: failure.code,
            decline_code: failure.declineCode,
            doc_url: errorDocUrl(failure.code),
            message: failure.message,
            payment_method: method,
            type: 'card_error' as const,
          },
        }
      : manual
        ? {
            status: 'requires_capture' as PaymentIntentStatus,
            amount_capturable: intent.amount,
            payment_method: method.id,
            latest_charge: chargeId,
            ...cleared,
            last_payment_error: null,
          }
        : {
            status: 'succeeded' as PaymentIntentStatus,
            amount_received: intent.amount,
            payment_method: method.id,
            latest_charge: chargeId,
            ...cleared,
            last_payment_error: null,
          };
  const operation =
    failure !== null
      ? 'payment_intent.fail'
      : manual
        ? 'payment_intent.authorize'
        : 'payment_intent.succeed';
  return {
    writes: [
      withCreated(chargeWrite(charge), method, created),
      {
        operation,
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
