// Checkout sessions: create, retrieve, expire, list, list line items — and the hosted page a
// session's `url` points at, on the twin's own origin (checkout-url.ts): GET it for what the page
// shows (the session and its line items), POST it to pay as the customer would, headlessly
// (Stripe's own CLI fixtures do it through payment pages). Those are no Stripe routes; they take
// the account's key like every other call (stripe.rawRequest reaches them).
// POST /v1/_twinworld/checkout/sessions/:id/complete is the same completion, kept for older callers.
import {
  completeCheckoutSession,
  createCheckoutSession,
  expireCheckoutSession,
  type CreateCheckoutSessionInput,
} from '../checkout-sessions.js';
import { BY_CUSTOMER } from './indexes.js';
import { CREATED_LIST_PARAMS, LIST_PARAMS, listOf, listPage, orderedList } from './listing.js';
import { missing, definedOnly, retrieve } from './reads.js';
import { apiObject, stripeRoute } from './route.js';
import { CHECKOUT_PAGE } from './checkout-url.js';
import { checkoutLineItems } from './checkout-line-items.js';

const COMPLETION_EVENTS = [
  'checkout.session.completed',
  'customer.created',
  'customer.subscription.created',
  'invoice.paid',
  'payment_intent.succeeded',
  'charge.succeeded',
];

/** The create call's parameters, typed as the codec decoded them. */
function createInput(spec: Readonly<Record<string, unknown>>): CreateCheckoutSessionInput {
  const out: CreateCheckoutSessionInput = {
    mode: spec.mode as CreateCheckoutSessionInput['mode'],
    line_items: spec.line_items as CreateCheckoutSessionInput['line_items'],
    success_url: spec.success_url as string,
  };
  for (const key of ['cancel_url', 'customer', 'customer_email', 'client_reference_id'] as const)
    if (spec[key] !== undefined) out[key] = spec[key] as string;
  if (spec.expires_at !== undefined) out.expires_at = spec.expires_at as number;
  if (spec.metadata !== undefined) out.metadata = spec.metadata as Record<string, string>;
  return out;
}

export const checkoutRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/checkout/sessions',
    sdk: 'checkout.sessions.create',
    kind: 'write',
    params: {
      mode: 'string',
      line_items: {
        list: {
          price: 'string',
          quantity: 'integer',
          price_data: {
            currency: 'string',
            unit_amount: 'integer',
            unit_amount_decimal: 'string',
            product: 'string',
            product_data: {
              name: 'string',
              description: 'string',
              metadata: 'metadata',
              images: { list: 'string' },
              unit_label: 'string',
              tax_code: 'string',
            },
            recurring: { interval: 'string', interval_count: 'integer' },
            tax_behavior: 'string',
          },
        },
      },
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
      return apiObject(await createCheckoutSession(twin, createInput(spec)));
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
      return listPage(await twin.read((view) => checkoutLineItems(view, params.id!)), input, url);
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/checkout/sessions',
    sdk: 'checkout.sessions.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, customer: 'string', status: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        {
          ...orderedList('checkout_session', input, [['customer', BY_CUSTOMER]]),
          keep: () => (r) => input.status == null || r.fields.status === input.status,
        },
        input,
        url,
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/_twinworld/checkout/sessions/:id/complete',
    sdk: 'twinworld.checkout.complete',
    kind: 'write',
    events: COMPLETION_EVENTS,
    params: { payment_method: 'string', email: 'string', name: 'string' },
    handle: async ({ twin, params, input }) =>
      apiObject(await completeCheckoutSession(twin, params.id!, definedOnly(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: `${CHECKOUT_PAGE}:id`,
    sdk: 'twinworld.checkout.page',
    kind: 'read',
    async handle({ twin, params }) {
      const session = await twin.get('checkout_session', params.id!);
      if (session === undefined) throw missing('checkout.session', params.id!);
      return {
        object: 'twinworld.checkout_page',
        session: apiObject(session.fields),
        line_items: await twin.read((view) => checkoutLineItems(view, params.id!)),
      };
    },
  }),
  stripeRoute({
    method: 'POST',
    path: `${CHECKOUT_PAGE}:id`,
    sdk: 'twinworld.checkout.pay',
    kind: 'write',
    events: COMPLETION_EVENTS,
    params: { payment_method: 'string', email: 'string', name: 'string' },
    handle: async ({ twin, params, input }) =>
      apiObject(await completeCheckoutSession(twin, params.id!, definedOnly(input))),
  }),
];
