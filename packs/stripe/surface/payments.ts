// Payments: payment intents (create, retrieve, update, confirm, capture, cancel, list), charges
// (retrieve, list), refunds (create, retrieve, list) and payment methods (attach, detach, retrieve, list), over the
// pack's operations. A
// declined confirmation commits what Stripe records (the failed charge, the intent back in
// requires_payment_method, payment_intent.payment_failed) and answers 402 card_error carrying
// the intent — what stripe-node throws as StripeCardError; the 402 is saved under its idempotency key.
import { answer } from '../../../src/host/index.js';
import { capturePaymentIntent, updatePaymentIntent } from '../payment-intent-changes.js';
import {
  cancelPaymentIntent,
  confirmPaymentIntent,
  createPaymentIntent,
  type CaptureMethod,
  type CreatePaymentIntentInput,
  type StripePaymentIntent,
} from '../payment-intents.js';
import {
  attachPaymentMethod,
  checkPaymentMethodRef,
  detachPaymentMethod,
} from '../payment-methods.js';
import { missingPaymentMethod } from '../errors.js';
import { refundCharge, type RefundInput } from '../refunds-disputes.js';
import { StripeApiError } from './errors.js';
import { BY_CHARGE, BY_CUSTOMER, BY_PAYMENT_INTENT } from './indexes.js';
import { CREATED_LIST_PARAMS, LIST_PARAMS, listOf, orderedList } from './listing.js';
import { definedOnly, missing, retrieve } from './reads.js';
import { apiObject, stripeRoute } from './route.js';

/** The intent as answered: a failed attempt is Stripe's 402 card error carrying it. */
function intentAnswer(intent: StripePaymentIntent) {
  const failure = intent.last_payment_error;
  if (intent.status !== 'requires_payment_method' || failure === null) return apiObject(intent);
  return answer(402, {
    error: {
      type: 'card_error',
      code: failure.code,
      decline_code: failure.decline_code,
      doc_url: failure.doc_url,
      message: failure.message,
      charge: failure.charge,
      payment_method: apiObject(failure.payment_method),
      payment_intent: apiObject(intent),
      request_log_url: null,
    },
  });
}

/** The create call's own parameters, typed from the decoded input (the codec typed each). */
function createInput(input: Readonly<Record<string, unknown>>): CreatePaymentIntentInput {
  const out: CreatePaymentIntentInput = {
    amount: input.amount as number,
    currency: input.currency as string,
  };
  if (input.customer != null) out.customer = input.customer as string;
  if (input.description != null) out.description = input.description as string;
  if (input.metadata != null) out.metadata = input.metadata as Record<string, string>;
  if (input.capture_method != null) out.capture_method = input.capture_method as CaptureMethod;
  if (input.automatic_payment_methods != null)
    out.automatic_payment_methods =
      input.automatic_payment_methods as CreatePaymentIntentInput['automatic_payment_methods'];
  return out;
}

export const paymentRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_intents',
    sdk: 'paymentIntents.create',
    kind: 'write',
    events: [
      'payment_intent.created',
      'payment_intent.succeeded',
      'payment_intent.payment_failed',
      'payment_intent.amount_capturable_updated',
      'payment_intent.requires_action',
      'charge.succeeded',
      'charge.failed',
    ],
    params: {
      amount: 'integer',
      currency: 'string',
      customer: 'string',
      description: 'string',
      metadata: 'metadata',
      payment_method: 'string',
      confirm: 'boolean',
      capture_method: 'string',
      payment_method_types: { list: 'string' },
      automatic_payment_methods: { enabled: 'boolean', allow_redirects: 'string' },
    },
    required: ['amount', 'currency'],
    async handle({ twin, input }) {
      const types = input.payment_method_types as string[] | undefined;
      if (types != null && input.automatic_payment_methods != null)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          undefined,
          'You may only specify one of these parameters: automatic_payment_methods, payment_method_types.',
        );
      if (types !== undefined && types.some((t) => t !== 'card'))
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'parameter_invalid',
          'This twin takes card payments only: payment_method_types=[card].',
          {},
          'payment_method_types',
        );
      if (input.payment_method != null && input.confirm !== true)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'parameter_invalid',
          'This twin takes payment_method at confirmation: pass confirm=true, or call confirm with it.',
          {},
          'payment_method',
        );
      // Refused before the intent is created, as Stripe refuses it before it executes: a refusal
      // after the create would leave an intent that a retry with the same key creates again.
      const ref = input.payment_method;
      if (input.confirm === true && ref == null) throw missingPaymentMethod();
      if (input.confirm === true && typeof ref === 'string')
        await twin.read((view) =>
          checkPaymentMethodRef(view, ref, (input.customer as string | null | undefined) ?? null),
        );
      const intent = await createPaymentIntent(twin, createInput(input));
      if (input.confirm !== true) return apiObject(intent);
      // Two commits (created, then the attempt): Stripe's own events are two as well.
      return intentAnswer(
        await confirmPaymentIntent(twin, intent.id, { payment_method: ref as string }),
      );
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/payment_intents/:id',
    sdk: 'paymentIntents.retrieve',
    kind: 'read',
    notIds: ['search'],
    params: { client_secret: 'string' },
    handle: (ctx) => retrieve(ctx, 'payment_intent', 'payment_intent'),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_intents/:id/confirm',
    sdk: 'paymentIntents.confirm',
    kind: 'write',
    events: [
      'payment_intent.succeeded',
      'payment_intent.payment_failed',
      'payment_intent.amount_capturable_updated',
      'payment_intent.requires_action',
      'charge.succeeded',
      'charge.failed',
      'invoice.paid',
      'invoice.payment_succeeded',
      'invoice.payment_failed',
      'customer.subscription.updated',
    ],
    params: { payment_method: 'string', return_url: 'string', off_session: 'boolean' },
    handle: async ({ twin, params, input }) =>
      intentAnswer(
        await confirmPaymentIntent(
          twin,
          params.id!,
          input.payment_method == null ? {} : { payment_method: input.payment_method as string },
        ),
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_intents/:id',
    sdk: 'paymentIntents.update',
    kind: 'write',
    params: {
      amount: 'integer',
      currency: 'string',
      customer: 'string',
      description: 'string',
      metadata: 'metadata',
    },
    handle: async ({ twin, params, input }) =>
      apiObject(
        await updatePaymentIntent(twin, params.id!, {
          ...definedOnly(input),
          // `description=""` unsets it, as on every other object
          ...(input.description === null ? { description: null } : {}),
        }),
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_intents/:id/capture',
    sdk: 'paymentIntents.capture',
    kind: 'write',
    events: ['charge.captured', 'payment_intent.succeeded'],
    params: { amount_to_capture: 'integer' },
    handle: async ({ twin, params, input }) =>
      apiObject(await capturePaymentIntent(twin, params.id!, definedOnly(input))),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_intents/:id/cancel',
    sdk: 'paymentIntents.cancel',
    kind: 'write',
    events: ['payment_intent.canceled'],
    params: { cancellation_reason: 'string' },
    handle: async ({ twin, params, input }) =>
      apiObject(
        await cancelPaymentIntent(
          twin,
          params.id!,
          input.cancellation_reason == null
            ? {}
            : { cancellation_reason: input.cancellation_reason as string },
        ),
      ),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/payment_intents',
    sdk: 'paymentIntents.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, customer: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(twin, orderedList('payment_intent', input, [['customer', BY_CUSTOMER]]), input, url),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/charges/:id',
    sdk: 'charges.retrieve',
    kind: 'read',
    notIds: ['search'],
    handle: (ctx) => retrieve(ctx, 'charge', 'charge'),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/charges',
    sdk: 'charges.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, customer: 'string', payment_intent: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        {
          ...orderedList('charge', input, [
            ['payment_intent', BY_PAYMENT_INTENT],
            ['customer', BY_CUSTOMER],
          ]),
          keep: () => (r) =>
            (input.customer == null || r.fields.customer === input.customer) &&
            (input.payment_intent == null || r.fields.payment_intent === input.payment_intent),
        },
        input,
        url,
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/refunds',
    sdk: 'refunds.create',
    kind: 'write',
    events: ['charge.refunded'],
    params: {
      charge: 'string',
      payment_intent: 'string',
      amount: 'integer',
      reason: 'string',
      metadata: 'metadata',
    },
    async handle({ twin, input }) {
      let charge = input.charge as string | null | undefined;
      if (charge == null && typeof input.payment_intent === 'string') {
        const pi = await twin.get('payment_intent', input.payment_intent);
        if (pi === undefined || pi.deleted)
          throw missing('payment_intent', input.payment_intent, 'payment_intent');
        charge = pi.fields.latest_charge as string | null;
        // Never confirmed, or its last attempt declined: nothing was paid that could be refunded.
        const latest = charge === null ? undefined : await twin.get('charge', charge);
        if (latest?.fields.status !== 'succeeded')
          throw new StripeApiError(
            400,
            'invalid_request_error',
            undefined,
            `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`,
            {},
            'payment_intent',
          );
      }
      if (charge == null)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'parameter_missing',
          'One of the following params should be provided for this request: payment_intent or charge.',
          {},
          'charge',
        );
      const refund: Record<string, unknown> = {};
      if (input.amount != null) refund.amount = input.amount;
      if (input.reason != null) refund.reason = input.reason;
      if (input.metadata != null) refund.metadata = input.metadata;
      return apiObject(await refundCharge(twin, charge, refund as RefundInput));
    },
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/refunds/:id',
    sdk: 'refunds.retrieve',
    kind: 'read',
    handle: (ctx) => retrieve(ctx, 'refund', 'refund'),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/refunds',
    sdk: 'refunds.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, charge: 'string', payment_intent: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        {
          ...orderedList('refund', input, [
            ['charge', BY_CHARGE],
            ['payment_intent', BY_PAYMENT_INTENT],
          ]),
          keep: () => (r) =>
            (input.charge == null || r.fields.charge === input.charge) &&
            (input.payment_intent == null || r.fields.payment_intent === input.payment_intent),
        },
        input,
        url,
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_methods/:id/attach',
    sdk: 'paymentMethods.attach',
    kind: 'write',
    events: ['payment_method.attached'],
    params: { customer: 'string' },
    required: ['customer'],
    handle: async ({ twin, params, input }) =>
      apiObject(
        await attachPaymentMethod(twin, params.id!, { customer: input.customer as string }),
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/payment_methods/:id/detach',
    sdk: 'paymentMethods.detach',
    kind: 'write',
    events: ['payment_method.detached'],
    handle: async ({ twin, params }) => apiObject(await detachPaymentMethod(twin, params.id!)),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/payment_methods/:id',
    sdk: 'paymentMethods.retrieve',
    kind: 'read',
    handle: (ctx) => retrieve(ctx, 'payment_method', 'PaymentMethod'),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/payment_methods',
    sdk: 'paymentMethods.list',
    kind: 'read',
    params: { ...LIST_PARAMS, customer: 'string', type: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(twin, orderedList('payment_method', input, [['customer', BY_CUSTOMER]]), input, url),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/customers/:id/payment_methods',
    sdk: 'customers.listPaymentMethods',
    kind: 'read',
    params: { ...LIST_PARAMS, type: 'string' },
    async handle({ twin, input, url, params }) {
      const customer = await twin.get('customer', params.id!);
      if (customer === undefined || customer.deleted) throw missing('customer', params.id!);
      return listOf(
        twin,
        { type: 'payment_method', index: BY_CUSTOMER, key: params.id! },
        input,
        url,
      );
    },
  }),
];
