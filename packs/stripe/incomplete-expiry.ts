// A subscription whose first invoice is still unpaid 23 hours after it was created expires, as
// Stripe expires it: the subscription ends incomplete_expired (customer.subscription.deleted: it
// bills no one again), its open first invoice is voided and that invoice's payment intent canceled
// (payment_intent.canceled), so a late confirmation is refused, and invoice.voided is sent from the
// same void write invoices.voidInvoice makes (invoice-closing.ts). One commit, decided from the log
// by the billing clock (billing-clock.ts) and stamped with the instant it fell due.
import { commit, skip, type Decision, type ReadView, type Write } from '../../src/index.js';
import { voidWrites } from './invoice-closing.js';
import { invoiceKind } from './invoice-objects.js';
import { subscriptionKind, type StripeSubscription } from './subscription-objects.js';

/** How long Stripe leaves a new subscription incomplete for its first payment. */
const INCOMPLETE_EXPIRES_AFTER_SEC = 23 * 3600;

/** When an incomplete subscription expires; undefined for any other status. */
export function incompleteExpiresAt(sub: StripeSubscription): number | undefined {
  return sub.status === 'incomplete' ? sub.created + INCOMPLETE_EXPIRES_AFTER_SEC : undefined;
}

/** The first invoice voided (invoice.voided) while it could still be paid, as Stripe voids it. */
function voidFirstInvoice(view: ReadView, id: string, at: number): Write[] {
  const invoice = invoiceKind.fieldsAt(view, id);
  if (invoice === undefined || invoice.status === 'paid' || invoice.status === 'void') return [];
  return voidWrites(view, invoice, at);
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
