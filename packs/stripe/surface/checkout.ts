// Checkout sessions: create, retrieve, expire, list, list line items — and completing one
// headlessly, as the customer paying on the hosted page would (Stripe's own CLI fixtures do it
// through payment pages). That is no Stripe route: it is POST /v1/_twinworld/checkout/sessions/:id/complete,
// under the account's key like every other call (stripe.rawRequest reaches it).
import {
  completeCheckoutSession,
  createCheckoutSession,
  expireCheckoutSession,
  LINE_ITEMS,
  type CreateCheckoutSessionInput,
} from '../checkout-sessions.js';
import { LIST_PARAMS, listOf, listPage } from './listing.js';
import { missing, definedOnly, retrieve } from './reads.js';
import { apiObject, stripeRoute } from './route.js';
import type { JsonObject } from '../../../src/index.js';

export const checkoutRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/checkout/sessions',
    sdk: 'checkout.sessions.create',
    kind: 'write',
    params: {
      mode: 'string',
      line_items: { list: { price: 'string', quantity: 'integer' } },
      success_url: 'string',
      cancel_url: 'string',
      customer: 'string',
      customer_email: 'string',
      client_reference_id: 'string',
      expires_at: 'integer',
      metadata: 'metadata',
      payment_method_types: { list: 'string' },
    },
    async handle({ twin, input }) {
      const spec = definedOnly(input);
      delete spec.payment_method_types;
      return apiObject(
        await createCheckoutSession(twin, spec as unknown as CreateCheckoutSessionInput),
      );
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/checkout/sessions/:id',
    sdk: 'checkout.sessions.retrieve',
    kind: 'read',
    handle: (ctx) => retrieve(ctx, 'checkout_session', 'checkout.session'),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/checkout/sessions/:id/expire',
    sdk: 'checkout.sessions.expire',
    kind: 'write',
    events: ['checkout.session.expired'],
    handle: async ({ twin, params }) => apiObject(await expireCheckoutSession(twin, params.id!)),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/checkout/sessions/:id/line_items',
    sdk: 'checkout.sessions.listLineItems',
    kind: 'read',
    params: LIST_PARAMS,
    async handle({ twin, params, input, url }) {
      if ((await twin.get('checkout_session', params.id!)) === undefined)
        throw missing('checkout.session', params.id!);
      const lines = ((await twin.get(LINE_ITEMS, params.id!))?.fields.data ?? []) as JsonObject[];
      return listPage(lines, input, url);
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/checkout/sessions',
    sdk: 'checkout.sessions.list',
    kind: 'read',
    params: { ...LIST_PARAMS, customer: 'string', status: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        'checkout_session',
        input,
        url,
        (r) =>
          (input.customer == null || r.fields.customer === input.customer) &&
          (input.status == null || r.fields.status === input.status),
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/_twinworld/checkout/sessions/:id/complete',
    sdk: 'twinworld.checkout.complete',
    kind: 'write',
    events: [
      'checkout.session.completed',
      'customer.created',
      'customer.subscription.created',
      'invoice.paid',
      'payment_intent.succeeded',
      'charge.succeeded',
    ],
    params: { payment_method: 'string', email: 'string', name: 'string' },
    handle: async ({ twin, params, input }) =>
      apiObject(await completeCheckoutSession(twin, params.id!, definedOnly(input))),
  }),
];
