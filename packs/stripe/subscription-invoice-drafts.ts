// The invoices a subscription's periods make, drafted: one line per subscription item for the
// period billed (zero-amount "Trial period for …" lines in a trial), and a renewal's draft invoice
// as a write — what subscriptions.ts and the billing clock (billing-clock.ts) build invoices from.
import type { ReadView, Twin, Write } from '../../src/index.js';
import { liveProduct } from './catalog.js';
import { asJson, liveFields } from './common.js';
import { customerKind } from './customers.js';
import { stripeIds } from './ids.js';
import {
  invoiceObject,
  lineItemObject,
  type BillingReason,
  type StripeInvoice,
} from './invoice-objects.js';
import {
  currentPeriod,
  type Period,
  type StripeSubscription,
  type StripeSubscriptionItem,
} from './subscription-objects.js';

/** Line items for `period`: one per subscription item (zero-amount "Trial period for …" lines in a trial). */
export function linesFor(
  twin: Twin,
  view: ReadView,
  invoice: string | null,
  sub: StripeSubscription,
  items: readonly StripeSubscriptionItem[],
  period: Period,
  trial: boolean,
) {
  return items.map((item) =>
    lineItemObject(
      stripeIds.invoiceLineItem(twin.world.ids),
      invoice,
      sub,
      item,
      liveProduct(view, item.price.product, 'price.product'),
      period,
      trial,
    ),
  );
}

/** A draft invoice for `sub` (its items already in the period being billed), as a write. */
export function draftInvoice(
  twin: Twin,
  view: ReadView,
  sub: StripeSubscription,
  reason: BillingReason,
  closing: Period,
  trial: boolean,
  finalizesAt: number,
): { invoice: StripeInvoice; write: Write } {
  const id = stripeIds.invoice(twin.world.ids);
  const customer = liveFields(view, customerKind, sub.customer, 'customer');
  const lines = linesFor(twin, view, id, sub, sub.items.data, currentPeriod(sub), trial);
  const invoice = invoiceObject(twin, {
    id,
    customer,
    subscription: sub,
    lines,
    billingReason: reason,
    period: closing,
    finalizesAt,
  });
  return {
    invoice,
    write: {
      operation: 'invoice.create',
      subjectType: 'invoice',
      subjectId: id,
      fields: asJson(invoice),
    },
  };
}
