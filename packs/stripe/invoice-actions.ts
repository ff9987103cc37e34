// What a caller may do to an invoice before Stripe does it on its own: finalize a draft now, pay an
// open invoice now (a draft is finalized first, as Stripe does), void it or mark it uncollectible
// (invoice-closing.ts), and preview the invoice a subscription's next renewal will make.
// Finalizing and paying run the same decisions the clock runs (invoice-stages.ts), each one atomic
// action; a preview is a read and writes nothing.
import { commit, sha256Hex, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { requestProjection, type RequestCall, type RequestOptions } from './api-requests.js';
import { FINALIZE_AFTER_SEC, nextPeriod } from './billing-clock.js';
import { liveFields, withRequest } from './common.js';
import { customerKind } from './customers.js';
import { liveProduct } from './catalog.js';
import {
  invoiceKind,
  invoiceObject,
  lineItemObject,
  type StripeInvoice,
} from './invoice-objects.js';
import { uncollectibleWrite, voidWrites } from './invoice-closing.js';
import { collectDecision, finalizeDecision } from './invoice-stages.js';
import { currentPeriod, RENEWING, subscriptionKind } from './subscription-objects.js';

const check = checker('stripe');

function unexpected(id: string, action: string, status: string): VendorError {
  return new VendorError(
    'stripe',
    'invalid_state',
    'invoice_unexpected_state',
    `You cannot ${action} invoice ${id} because it is ${status}`,
    { path: 'status', details: { id, status } },
  );
}

function nowSec(twin: Twin): number {
  return Math.floor(twin.world.clock.now() / 1000);
}

/** POST /v1/invoices/{id}/finalize: draft → open now (invoice.finalized). */
export async function finalizeInvoice(
  twin: Twin,
  id: string,
  options: RequestOptions = {},
): Promise<StripeInvoice> {
  requirePackTwin(twin, 'stripe');
  const call: RequestCall = { method: 'POST', path: `/v1/invoices/${id}/finalize`, params: {} };
  await twin.applyAtomic((view) => {
    const invoice = liveFields(view, invoiceKind, id);
    if (invoice.status !== 'draft') throw unexpected(id, 'finalize', invoice.status);
    const request = requestProjection(twin, call, options, { type: 'invoice', id });
    return finalizeDecision(twin, view, id, nowSec(twin), request, true);
  });
  return twin.read((view) => liveFields(view, invoiceKind, id));
}

/**
 * POST /v1/invoices/{id}/pay: charges it now with `payment_method` or the default one
 * (invoice.paid + invoice.payment_succeeded, or invoice.payment_failed). Answers the invoice
 * whatever the charge did; the caller reads `status`.
 */
export async function payInvoice(
  twin: Twin,
  id: string,
  input: { payment_method?: string } = {},
  options: RequestOptions = {},
): Promise<StripeInvoice> {
  requirePackTwin(twin, 'stripe');
  const method =
    input.payment_method === undefined
      ? undefined
      : check.string(input.payment_method, 'payment_method');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/invoices/${id}/pay`,
    params: { payment_method: method ?? null },
  };
  const first = await twin.read((view) => liveFields(view, invoiceKind, id));
  if (first.status === 'paid' || first.status === 'void' || first.status === 'uncollectible')
    throw unexpected(id, 'pay', first.status);
  if (first.status === 'draft')
    await twin.applyAtomic((view) =>
      finalizeDecision(
        twin,
        view,
        id,
        nowSec(twin),
        requestProjection(twin, call, options, { type: 'invoice', id }),
        true,
      ),
    );
  await twin.applyAtomic((view) => {
    const invoice = liveFields(view, invoiceKind, id);
    if (invoice.status !== 'open') throw unexpected(id, 'pay', invoice.status);
    const request = requestProjection(twin, call, options, { type: 'invoice', id });
    return collectDecision(
      twin,
      view,
      id,
      nowSec(twin),
      request,
      method === undefined ? {} : { paymentMethod: method },
    );
  });
  return twin.read((view) => liveFields(view, invoiceKind, id));
}

/**
 * Stripe's refusal of a void or mark_uncollectible the invoice's status does not allow (400, no
 * code, no param), worded as Stripe answers voiding a draft or a paid invoice.
 */
function notOpen(id: string, status: string): VendorError {
  return new VendorError(
    'stripe',
    'invalid_state',
    'invalid_request_error',
    "You can only pass in open invoices. This invoice isn't open.",
    { details: { id, status } },
  );
}

/** One write closing invoice `id` at the request's instant, refused unless its status is in `from`. */
async function closeInvoice(
  twin: Twin,
  id: string,
  action: 'void' | 'mark_uncollectible',
  from: readonly string[],
  options: RequestOptions,
): Promise<StripeInvoice> {
  requirePackTwin(twin, 'stripe');
  const call: RequestCall = { method: 'POST', path: `/v1/invoices/${id}/${action}`, params: {} };
  await twin.applyAtomic((view) => {
    const invoice = liveFields(view, invoiceKind, id);
    if (!from.includes(invoice.status)) throw notOpen(id, invoice.status);
    const at = nowSec(twin);
    const writes =
      action === 'void' ? voidWrites(view, invoice, at) : [uncollectibleWrite(invoice, at)];
    const request = requestProjection(twin, call, options, { type: 'invoice', id });
    return commit(withRequest(writes, request), true);
  });
  return twin.read((view) => liveFields(view, invoiceKind, id));
}

/**
 * POST /v1/invoices/{id}/void: an open or uncollectible invoice void (invoice.voided), its payment
 * intent canceled (payment_intent.canceled). Stripe's status table allows both; a draft (delete
 * it instead), a paid or an already void invoice is refused.
 */
export function voidInvoice(
  twin: Twin,
  id: string,
  options: RequestOptions = {},
): Promise<StripeInvoice> {
  return closeInvoice(twin, id, 'void', ['open', 'uncollectible'], options);
}

/** POST /v1/invoices/{id}/mark_uncollectible: an open invoice uncollectible (invoice.marked_uncollectible). */
export function markUncollectible(
  twin: Twin,
  id: string,
  options: RequestOptions = {},
): Promise<StripeInvoice> {
  return closeInvoice(twin, id, 'mark_uncollectible', ['open'], options);
}

/** An id for a preview that draws nothing from the world's ids: a read must not move them. */
function previewId(prefix: string, ...parts: (string | number)[]): string {
  const hex = sha256Hex(parts.join('\n'));
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  for (let i = 0; i < 24; i++) out += digits[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 62];
  return `${prefix}_${out}`;
}

/**
 * POST /v1/invoices/create_preview for a subscription: the invoice its next renewal will make,
 * as Stripe previews it (id `upcoming_in_…`), written nowhere.
 */
export function previewInvoice(
  twin: Twin,
  input: { customer?: string; subscription?: string },
): Promise<StripeInvoice> {
  requirePackTwin(twin, 'stripe');
  const subId = check.string(input.subscription, 'subscription');
  return twin.read((view) => {
    const sub = liveFields(view, subscriptionKind, subId, 'subscription');
    if (input.customer !== undefined && input.customer !== sub.customer)
      throw new VendorError(
        'stripe',
        'invalid_input',
        'parameter_invalid',
        `Subscription ${subId} belongs to customer ${sub.customer}, not ${input.customer}`,
        { path: 'customer' },
      );
    if (!RENEWING.includes(sub.status) || sub.cancel_at_period_end)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'invoice_upcoming_none',
        `Subscription ${subId} will not renew (status ${sub.status}${sub.cancel_at_period_end ? ', canceling at period end' : ''}), so there is no upcoming invoice`,
        { path: 'subscription' },
      );
    const period = currentPeriod(sub);
    const next = nextPeriod(sub, period);
    const customer = liveFields(view, customerKind, sub.customer, 'customer');
    const lines = sub.items.data.map((item) =>
      lineItemObject(
        previewId('il', sub.id, item.id, next.start),
        null,
        sub,
        item,
        liveProduct(view, item.price.product, 'price.product'),
        next,
        false,
      ),
    );
    return {
      ...invoiceObject(twin, {
        id: previewId('upcoming_in', sub.id, period.end),
        customer,
        subscription: sub,
        lines,
        billingReason: 'upcoming',
        period,
        finalizesAt: null,
      }),
      created: period.end,
      next_payment_attempt: period.end + FINALIZE_AFTER_SEC,
    };
  });
}
