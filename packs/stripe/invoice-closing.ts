// Closing an invoice that was never paid, as Stripe closes it: voided (POST /v1/invoices/:id/void,
// or an incomplete subscription expiring) or marked uncollectible (POST …/mark_uncollectible).
// Each is one write whose operation names its event (invoice.voided, invoice.marked_uncollectible),
// so every path that voids sends the same event from the same write. A void also cancels what
// could still pay the invoice — its invoice_payment and its payment intent (payment_intent.canceled,
// cancellation_reason void_invoice) — and leaves nothing owed (amount_remaining 0). Marking it
// uncollectible keeps the amount owed and the payment intent: Stripe still lets it be paid.
import type { ReadView, Write } from '../../src/index.js';
import { asJson } from './common.js';
import { invoicePaymentKind, type StripeInvoice } from './invoice-objects.js';
import { INVOICE_PAYMENT_INDEX } from './invoice-stages.js';
import { paymentIntentKind } from './payment-intent-objects.js';

/** The writes voiding `invoice` at `at` (the caller has checked that it may be voided). */
export function voidWrites(view: ReadView, invoice: StripeInvoice, at: number): Write[] {
  const [payment] = invoicePaymentKind.lookup(view, INVOICE_PAYMENT_INDEX, invoice.id);
  const writes: Write[] = [
    {
      operation: 'invoice.void',
      subjectType: 'invoice',
      subjectId: invoice.id,
      fields: asJson({
        status: 'void',
        amount_remaining: 0,
        auto_advance: false,
        automatically_finalizes_at: null,
        next_payment_attempt: null,
        status_transitions: { ...invoice.status_transitions, voided_at: at },
      }),
      ...(payment === undefined || payment.status !== 'open'
        ? {}
        : {
            projection: {
              updates: [
                {
                  type: 'invoice_payment',
                  id: payment.id,
                  fields: asJson({
                    status: 'canceled',
                    status_transitions: { ...payment.status_transitions, canceled_at: at },
                  }),
                },
              ],
            },
          }),
    },
  ];
  const intent =
    payment === undefined
      ? undefined
      : paymentIntentKind.fieldsAt(view, payment.payment.payment_intent);
  if (intent !== undefined && intent.status !== 'succeeded' && intent.status !== 'canceled')
    writes.push({
      operation: 'payment_intent.cancel',
      subjectType: 'payment_intent',
      subjectId: intent.id,
      fields: { status: 'canceled', canceled_at: at, cancellation_reason: 'void_invoice' },
    });
  return writes;
}

/** The write marking `invoice` uncollectible at `at`: no more attempts, the amount still owed. */
export function uncollectibleWrite(invoice: StripeInvoice, at: number): Write {
  return {
    operation: 'invoice.mark_uncollectible',
    subjectType: 'invoice',
    subjectId: invoice.id,
    fields: asJson({
      status: 'uncollectible',
      auto_advance: false,
      next_payment_attempt: null,
      status_transitions: { ...invoice.status_transitions, marked_uncollectible_at: at },
    }),
  };
}
