// Invoices: retrieve, list, finalize, pay, void, mark_uncollectible and preview (create_preview). Paying with a card that
// declines commits what Stripe records (the failed charge, invoice.payment_failed) and answers 402
// card_error, which stripe-node throws as StripeCardError. A preview writes nothing: its POST is
// a read, like a GET.
import { answer } from '../../../src/host/index.js';
import type { JsonObject } from '../../../src/index.js';
import {
  finalizeInvoice,
  markUncollectible,
  payInvoice,
  previewInvoice,
  voidInvoice,
} from '../invoice-actions.js';
import type { StripeInvoice } from '../invoice-objects.js';
import { BY_CUSTOMER, BY_SUBSCRIPTION } from './indexes.js';
import { CREATED_LIST_PARAMS, listOf, orderedList } from './listing.js';
import { definedOnly, retrieve } from './reads.js';
import { apiObject, stripeRoute } from './route.js';

/** Since API 2025-03-31 an invoice names its subscription under parent.subscription_details. */
function subscriptionOf(invoice: Readonly<JsonObject>): unknown {
  const parent = invoice.parent as
    { subscription_details?: { subscription?: unknown } } | null | undefined;
  return parent?.subscription_details?.subscription ?? invoice.subscription;
}

/** A paid invoice as it is; one still open after the attempt is Stripe's 402 card error. */
function paidAnswer(invoice: StripeInvoice) {
  if (invoice.status === 'paid') return apiObject(invoice);
  return answer(402, {
    error: {
      type: 'card_error',
      code: 'card_declined',
      message: 'Your card was declined.',
      doc_url: 'https://stripe.com/docs/error-codes/card-declined',
      request_log_url: null,
    },
  });
}

export const invoiceRoutes = [
  stripeRoute({
    method: 'GET',
    path: '/v1/invoices/:id',
    sdk: 'invoices.retrieve',
    kind: 'read',
    notIds: ['search'],
    handle: (ctx) => retrieve(ctx, 'invoice', 'invoice'),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/invoices',
    sdk: 'invoices.list',
    kind: 'read',
    params: {
      ...CREATED_LIST_PARAMS,
      customer: 'string',
      subscription: 'string',
      status: 'string',
    },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        {
          ...orderedList('invoice', input, [
            ['subscription', BY_SUBSCRIPTION],
            ['customer', BY_CUSTOMER],
          ]),
          keep: () => (r) =>
            (input.customer == null || r.fields.customer === input.customer) &&
            (input.subscription == null || subscriptionOf(r.fields) === input.subscription) &&
            (input.status == null || r.fields.status === input.status),
        },
        input,
        url,
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/invoices/:id/finalize',
    sdk: 'invoices.finalizeInvoice',
    kind: 'write',
    events: ['invoice.finalized'],
    params: { auto_advance: 'boolean' },
    handle: async ({ twin, params }) => apiObject(await finalizeInvoice(twin, params.id!)),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/invoices/:id/pay',
    sdk: 'invoices.pay',
    kind: 'write',
    events: [
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'invoice.payment_failed',
      'payment_intent.succeeded',
      'payment_intent.payment_failed',
      'charge.succeeded',
      'charge.failed',
      'customer.subscription.updated',
    ],
    params: { payment_method: 'string', off_session: 'boolean' },
    handle: async ({ twin, params, input }) => {
      const { off_session: _ignored, ...rest } = definedOnly(input);
      return paidAnswer(await payInvoice(twin, params.id!, rest));
    },
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/invoices/:id/void',
    sdk: 'invoices.voidInvoice',
    kind: 'write',
    events: ['invoice.voided', 'payment_intent.canceled'],
    handle: async ({ twin, params }) => apiObject(await voidInvoice(twin, params.id!)),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/invoices/:id/mark_uncollectible',
    sdk: 'invoices.markUncollectible',
    kind: 'write',
    events: ['invoice.marked_uncollectible'],
    handle: async ({ twin, params }) => apiObject(await markUncollectible(twin, params.id!)),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/invoices/create_preview',
    sdk: 'invoices.createPreview',
    // Answers what a renewal would bill and writes nothing: a read, though stripe-node POSTs it.
    kind: 'read',
    params: { customer: 'string', subscription: 'string' },
    handle: async ({ twin, input }) => apiObject(await previewInvoice(twin, definedOnly(input))),
  }),
];
