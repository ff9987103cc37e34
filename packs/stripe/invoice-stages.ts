// What happens to a subscription invoice after it is drafted, each step one commit decided from
// the log: a draft is finalized when automatically_finalizes_at passes (invoice.finalized, and a
// payment intent for what is due), then collected when next_payment_attempt passes — charging the
// subscription's or customer's default payment method (charge.*, payment_intent.*, invoice.paid +
// invoice.payment_succeeded, or invoice.payment_failed with the next retry, past_due, and after
// the last retry the subscription's cancellation). Each decide re-reads the invoice, so running a
// step twice, or late, writes it once.
import {
  commit,
  skip,
  type Decision,
  type ProjectedResource,
  type ReadView,
  type Twin,
  type Write,
} from '../../src/index.js';
import { asJson, liveFields, withRequest } from './common.js';
import { invoicePaymentKind } from './invoice-objects.js';
import type { StripeCustomer } from './customers.js';
import { stripeIds } from './ids.js';
import {
  invoicePaymentObject,
  type StripeInvoice,
  type StripeInvoicePayment,
} from './invoice-objects.js';
import { attemptPayment } from './payment-attempt.js';
import { subscriptionPaidWrite } from './invoice-intent-confirmation.js';
import { paymentIntentObject, type StripePaymentIntent } from './payment-intents.js';
import { DAYS } from './periods.js';
import type { StripeSubscription } from './subscription-objects.js';
import { subscriptionKind } from './subscription-objects.js';
import { customerKind } from './customers.js';
import { paymentIntentKind } from './payment-intents.js';
import { invoiceKind } from './invoice-objects.js';

/** Days after each failed attempt until the next; after the last, the subscription is canceled. */
export const RETRY_SCHEDULE_DAYS: readonly number[] = [3, 5, 7];

export const INVOICE_PAYMENT_INDEX = 'invoice';

function subscriptionOf(view: ReadView, invoice: StripeInvoice): StripeSubscription {
  return liveFields(
    view,
    subscriptionKind,
    invoice.parent.subscription_details.subscription,
    'subscription',
  );
}

/** Draft → open, with a payment intent for the amount due. */
export function finalizeDecision(
  twin: Twin,
  view: ReadView,
  id: string,
  nowSec: number,
  request?: ProjectedResource,
  /** Asked for (invoices.finalizeInvoice / pay): now, whenever it would have finalized itself. */
  manual = false,
  /**
   * false: the payment waits for the app to confirm the intent (default_incomplete), so Stripe
   * schedules no attempt of its own — the billing clock would otherwise charge it (and fail).
   */
  attempts = true,
): Decision<boolean> {
  const invoice = invoiceKind.fieldsAt(view, id);
  if (
    invoice === undefined ||
    invoice.status !== 'draft' ||
    (!manual &&
      (invoice.automatically_finalizes_at === null || invoice.automatically_finalizes_at > nowSec))
  )
    return skip(false);
  // Stamped with the instant it fell due, so billing that runs late keeps Stripe's order and spacing.
  const at = manual ? nowSec : invoice.automatically_finalizes_at!;
  const customer = liveFields(view, customerKind, invoice.customer, 'customer');
  const sequence = customer.next_invoice_sequence ?? 1;
  const fields = {
    status: 'open' as const,
    number: `${customer.invoice_prefix}-${String(sequence).padStart(4, '0')}`,
    effective_at: at,
    ending_balance: 0,
    automatically_finalizes_at: null,
    hosted_invoice_url: `https://invoice.stripe.com/i/acct_twinworld/test_${id.slice(3)}`,
    invoice_pdf: `https://pay.stripe.com/invoice/acct_twinworld/test_${id.slice(3)}/pdf`,
    next_payment_attempt: invoice.amount_due > 0 && attempts ? at : null,
    status_transitions: { ...invoice.status_transitions, finalized_at: at },
  };
  const writes: Write[] = [];
  const creates: ProjectedResource[] = [];
  if (invoice.amount_due > 0) {
    const intent = paymentIntentObject(twin, stripeIds.paymentIntent(twin.world.ids), {
      amount: invoice.amount_due,
      currency: invoice.currency,
      customer: invoice.customer,
      description:
        invoice.billing_reason === 'subscription_create'
          ? 'Subscription creation'
          : 'Subscription update',
      metadata: {},
    });
    const payment = invoicePaymentObject(
      twin,
      stripeIds.invoicePayment(twin.world.ids),
      invoice,
      intent.id,
    );
    creates.push({ type: 'invoice_payment', id: payment.id, fields: asJson(payment) });
    writes.push({
      operation: 'payment_intent.create',
      subjectType: 'payment_intent',
      subjectId: intent.id,
      fields: asJson(intent),
    });
  }
  const invoiceWrite: Write = {
    operation: 'invoice.finalize',
    subjectType: 'invoice',
    subjectId: id,
    fields: asJson(fields),
    // The customer's invoice counter moves without a customer.updated, as in Stripe.
    projection: {
      creates,
      updates: [
        { type: 'customer', id: customer.id, fields: { next_invoice_sequence: sequence + 1 } },
      ],
    },
  };
  return commit(withRequest([invoiceWrite, ...writes], request), true);
}

/** The payment method an automatic charge uses: the subscription's, else the customer's default. */
function defaultPaymentMethod(view: ReadView, sub: StripeSubscription): string | null {
  if (sub.default_payment_method !== null) return sub.default_payment_method;
  const customer = view.get('customer', sub.customer);
  const settings = customer?.fields.invoice_settings as
    { default_payment_method?: string | null } | undefined;
  return settings?.default_payment_method ?? null;
}

function subscriptionAfterPayment(
  sub: StripeSubscription,
  invoice: StripeInvoice,
  ok: boolean,
  retryAt: number | null,
  nowSec: number,
  /** The payment method that paid (null when nothing was charged). */
  paidWith: string | null = null,
): Write | undefined {
  if (ok) return subscriptionPaidWrite(sub, paidWith);
  // A first invoice that fails leaves the subscription incomplete; renewals go past_due, then end.
  if (invoice.billing_reason !== 'subscription_cycle') return undefined;
  if (retryAt === null && (sub.status === 'active' || sub.status === 'past_due')) {
    return {
      operation: 'subscription.cancel',
      subjectType: 'subscription',
      subjectId: sub.id,
      fields: asJson({
        status: 'canceled',
        canceled_at: nowSec,
        ended_at: nowSec,
        cancellation_details: {
          comment: null,
          feedback: null,
          feedback_option: null,
          reason: 'payment_failed',
        },
      }),
    };
  }
  if (sub.status === 'active')
    return {
      operation: 'subscription.past_due',
      subjectType: 'subscription',
      subjectId: sub.id,
      fields: { status: 'past_due' },
    };
  return undefined;
}

/** An open invoice whose attempt is due: pay it (or record the failure and the next retry). */
export function collectDecision(
  twin: Twin,
  view: ReadView,
  id: string,
  nowSec: number,
  request?: ProjectedResource,
  /** Asked for (invoices.pay): now, with this payment method or the default one. */
  manual?: { paymentMethod?: string },
): Decision<boolean> {
  const invoice = invoiceKind.fieldsAt(view, id);
  if (invoice === undefined || invoice.status !== 'open') return skip(false);
  if (
    manual === undefined &&
    invoice.amount_due > 0 &&
    (invoice.next_payment_attempt === null || invoice.next_payment_attempt > nowSec)
  )
    return skip(false);
  const sub = subscriptionOf(view, invoice);
  const paid = (amountPaid: number) => ({
    status: 'paid' as const,
    amount_paid: amountPaid,
    amount_remaining: 0,
    attempted: true,
    attempt_count: invoice.attempt_count + (amountPaid > 0 ? 1 : 0),
    next_payment_attempt: null,
    status_transitions: { ...invoice.status_transitions, paid_at: nowSec },
  });
  if (invoice.amount_due === 0) {
    const writes: Write[] = [
      { operation: 'invoice.pay', subjectType: 'invoice', subjectId: id, fields: asJson(paid(0)) },
    ];
    const after = subscriptionAfterPayment(sub, invoice, true, null, nowSec);
    if (after !== undefined) writes.push(after);
    return commit(withRequest(writes, request), true);
  }
  const [payment] = invoicePaymentKind.lookup(view, INVOICE_PAYMENT_INDEX, id);
  const intent =
    payment === undefined
      ? undefined
      : liveFields(view, paymentIntentKind, payment.payment.payment_intent);
  const method = manual?.paymentMethod ?? defaultPaymentMethod(view, sub);
  const attempts = invoice.attempt_count + 1;
  const retryDays = RETRY_SCHEDULE_DAYS[attempts - 1];
  const retryAt =
    invoice.billing_reason === 'subscription_cycle' && retryDays !== undefined
      ? (invoice.next_payment_attempt ?? nowSec) + DAYS(retryDays)
      : null;
  const failed = { attempted: true, attempt_count: attempts, next_payment_attempt: retryAt };
  const writes: Write[] = [];
  let ok = false;
  let paidWith: string | null = null;
  if (
    intent !== undefined &&
    method !== null &&
    (intent.status === 'requires_payment_method' || intent.status === 'requires_confirmation')
  ) {
    const attempt = attemptPayment(twin, view, intent, method, 'default_payment_method');
    writes.push(...attempt.writes);
    ok = attempt.ok;
    paidWith = attempt.intent.payment_method;
  }
  if (ok) {
    writes.push({
      operation: 'invoice.pay',
      subjectType: 'invoice',
      subjectId: id,
      fields: asJson(paid(invoice.amount_due)),
      projection: {
        updates: [
          {
            type: 'invoice_payment',
            id: payment!.id,
            fields: asJson({
              amount_paid: invoice.amount_due,
              status: 'paid',
              status_transitions: { canceled_at: null, paid_at: nowSec },
            }),
          },
        ],
      },
    });
  } else {
    writes.push({
      operation: 'invoice.payment_fail',
      subjectType: 'invoice',
      subjectId: id,
      fields: asJson(failed),
    });
  }
  const after = subscriptionAfterPayment(sub, invoice, ok, retryAt, nowSec, paidWith);
  if (after !== undefined) writes.push(after);
  return commit(withRequest(writes, request), true);
}
