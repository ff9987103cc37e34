// An invoice follows its payment intent: when the intent a finalized invoice made is confirmed by
// the app (paymentIntents.confirm, or Stripe.js with the invoice's confirmation_secret) rather than
// charged by Stripe, the invoice is settled in the same commit as the charge — paid (invoice.paid +
// invoice.payment_succeeded) and its incomplete or past_due subscription active, or the decline
// recorded (invoice.payment_failed). A subscription whose payment_settings say on_subscription
// takes the method that paid as its default_payment_method, whoever started the payment.
import type { ReadView, Write } from '../../src/index.js';
import { asJson } from './common.js';
import { invoiceKind, invoicePaymentKind } from './invoice-objects.js';
import type { PaymentAttempt } from './payment-attempt.js';
import { subscriptionKind, type StripeSubscription } from './subscription-objects.js';

/** invoice_payment records by the payment intent they name: from an intent back to its invoice. */
export const INVOICE_PAYMENT_BY_INTENT = 'payment_intent';

/**
 * The subscription's write once one of its invoices is paid with `method` (null: nothing was
 * charged, a $0 invoice): an incomplete or past_due subscription becomes active, and with
 * save_default_payment_method on_subscription the method becomes its default. Undefined when
 * nothing changes, so no customer.subscription.updated is sent for nothing.
 */
export function subscriptionPaidWrite(
  sub: StripeSubscription,
  method: string | null,
): Write | undefined {
  const saves =
    method !== null &&
    sub.payment_settings.save_default_payment_method === 'on_subscription' &&
    sub.default_payment_method !== method;
  const activates = sub.status === 'incomplete' || sub.status === 'past_due';
  if (!activates && !saves) return undefined;
  return {
    operation: activates ? 'subscription.activate' : 'subscription.update',
    subjectType: 'subscription',
    subjectId: sub.id,
    fields: {
      ...(activates ? { status: 'active' } : {}),
      ...(saves ? { default_payment_method: method } : {}),
    },
  };
}

/**
 * Inside the decide of a confirmation: the writes that settle the invoice whose payment intent
 * `attempt` charged, to commit after the attempt's own. None when the intent is no invoice's, the
 * invoice is neither open nor uncollectible, or the card asked for 3-D Secure first (nothing was
 * charged yet).
 */
export function invoiceFollowsIntent(
  view: ReadView,
  attempt: PaymentAttempt,
  nowSec: number,
): Write[] {
  if (attempt.charge === null) return [];
  const [payment] = invoicePaymentKind.lookup(view, INVOICE_PAYMENT_BY_INTENT, attempt.intent.id);
  const invoice = payment === undefined ? undefined : invoiceKind.fieldsAt(view, payment.invoice);
  // An uncollectible invoice can still be paid (Stripe's status table: uncollectible → paid).
  if (
    payment === undefined ||
    invoice === undefined ||
    (invoice.status !== 'open' && invoice.status !== 'uncollectible')
  )
    return [];
  const attempts = invoice.attempt_count + 1;
  if (!attempt.ok)
    return [
      {
        operation: 'invoice.payment_fail',
        subjectType: 'invoice',
        subjectId: invoice.id,
        fields: { attempted: true, attempt_count: attempts },
      },
    ];
  const writes: Write[] = [
    {
      operation: 'invoice.pay',
      subjectType: 'invoice',
      subjectId: invoice.id,
      fields: asJson({
        status: 'paid',
        amount_paid: invoice.amount_due,
        amount_remaining: 0,
        attempted: true,
        attempt_count: attempts,
        next_payment_attempt: null,
        status_transitions: { ...invoice.status_transitions, paid_at: nowSec },
      }),
      projection: {
        updates: [
          {
            type: 'invoice_payment',
            id: payment.id,
            fields: asJson({
              amount_paid: invoice.amount_due,
              status: 'paid',
              status_transitions: { canceled_at: null, paid_at: nowSec },
            }),
          },
        ],
      },
    },
  ];
  const sub = subscriptionKind.fieldsAt(view, invoice.parent.subscription_details.subscription);
  const after =
    sub === undefined ? undefined : subscriptionPaidWrite(sub, attempt.intent.payment_method);
  if (after !== undefined) writes.push(after);
  return writes;
}
