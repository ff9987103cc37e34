// A subscription whose first invoice is still unpaid 23 hours after it was created expires, as
// Stripe expires it: the subscription ends incomplete_expired (customer.subscription.deleted: it
// bills no one again), its open first invoice is voided and that invoice's payment intent canceled
// (payment_intent.canceled), so a late confirmation is refused. One commit, decided from the log
// by the billing clock (billing-clock.ts) and stamped with the instant it fell due.
//
// Stripe also sends invoice.voided here; the twin does not send that type yet (its event types
// are pinned by the pack's fidelity tests), so the void is written without an event of its own.
import { commit, skip, type Decision, type ReadView, type Write } from '../../src/index.js';
import { asJson } from './common.js';
import { invoiceKind, invoicePaymentKind } from './invoice-objects.js';
import { INVOICE_PAYMENT_INDEX } from './invoice-stages.js';
import { paymentIntentKind } from './payment-intent-objects.js';
import { subscriptionKind, type StripeSubscription } from './subscription-objects.js';

/** How long Stripe leaves a new subscription incomplete for its first payment. */
const INCOMPLETE_EXPIRES_AFTER_SEC = 23 * 3600;

/** When an incomplete subscription expires; undefined for any other status. */
export function incompleteExpiresAt(sub: StripeSubscription): number | undefined {
  return sub.status === 'incomplete' ? sub.created + INCOMPLETE_EXPIRES_AFTER_SEC : undefined;
}

/** The open first invoice voided, and its payment intent canceled while it could still be paid. */
function voidFirstInvoice(view: ReadView, id: string, at: number): Write[] {
  const invoice = invoiceKind.fieldsAt(view, id);
  if (invoice === undefined || (invoice.status !== 'open' && invoice.status !== 'draft')) return [];
  const [payment] = invoicePaymentKind.lookup(view, INVOICE_PAYMENT_INDEX, id);
  const writes: Write[] = [
    {
      operation: 'invoice.void',
      subjectType: 'invoice',
      subjectId: id,
      fields: asJson({
        status: 'void',
        auto_advance: false,
        automatically_finalizes_at: null,
        next_payment_attempt: null,
        status_transitions: { ...invoice.status_transitions, voided_at: at },
      }),
      ...(payment === undefined
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

/** Expires `id` when it is still incomplete at `nowSec`, 23 hours after its creation. */
export function expireIncompleteDecision(
  view: ReadView,
  id: string,
  nowSec: number,
): Decision<boolean> {
  const sub = subscriptionKind.fieldsAt(view, id);
  const at = sub === undefined ? undefined : incompleteExpiresAt(sub);
  if (sub === undefined || at === undefined || at > nowSec) return skip(false);
  const writes: Write[] = [
    ...voidFirstInvoice(view, sub.latest_invoice, at),
    {
      operation: 'subscription.expire',
      subjectType: 'subscription',
      subjectId: id,
      fields: { status: 'incomplete_expired', ended_at: at },
    },
  ];
  return commit(writes, true);
}
