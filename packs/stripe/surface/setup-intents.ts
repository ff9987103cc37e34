// Setup intents: create (also with payment_method + confirm=true), retrieve, confirm, cancel, list.
// A card declined on setup commits what Stripe records (the intent back in requires_payment_method
// with last_setup_error, setup_intent.setup_failed) and answers 402 card_error carrying the intent,
// which stripe-node throws as StripeCardError; the 402 is saved under its idempotency key.
import { answer } from '../../../src/host/index.js';
import {
  cancelSetupIntent,
  confirmSetupIntent,
  createSetupIntent,
  type CreateSetupIntentInput,
  type StripeSetupIntent,
} from '../setup-intents.js';
import { BY_CUSTOMER, BY_PAYMENT_METHOD } from './indexes.js';
import { CREATED_LIST_PARAMS, listOf, orderedList } from './listing.js';
import { definedOnly, retrieve } from './reads.js';
import { apiObject, stripeRoute } from './route.js';

const CONFIRM_EVENTS = [
  'setup_intent.succeeded',
  'setup_intent.setup_failed',
  'setup_intent.requires_action',
  'payment_method.attached',
];

/** The intent as answered: a declined setup is Stripe's 402 card error carrying it. */
function setupAnswer(intent: StripeSetupIntent) {
  const failure = intent.last_setup_error;
  if (intent.status !== 'requires_payment_method' || failure === null) return apiObject(intent);
  return answer(402, {
    error: {
      type: 'card_error',
      code: failure.code,
      decline_code: failure.decline_code,
      doc_url: failure.doc_url,
      message: failure.message,
      payment_method: apiObject(failure.payment_method),
      setup_intent: apiObject(intent),
      request_log_url: null,
    },
  });
}

function createInput(input: Readonly<Record<string, unknown>>): CreateSetupIntentInput {
  const out: CreateSetupIntentInput = {};
  if (input.customer != null) out.customer = input.customer as string;
  if (input.description != null) out.description = input.description as string;
  if (input.metadata != null) out.metadata = input.metadata as Record<string, string>;
  if (input.usage != null) out.usage = input.usage as 'off_session' | 'on_session';
  if (input.payment_method != null) out.payment_method = input.payment_method as string;
  if (input.confirm != null) out.confirm = input.confirm as boolean;
  return out;
}

export const setupIntentRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/setup_intents',
    sdk: 'setupIntents.create',
    kind: 'write',
    events: ['setup_intent.created', ...CONFIRM_EVENTS],
    params: {
      customer: 'string',
      description: 'string',
      metadata: 'metadata',
      usage: 'string',
      payment_method: 'string',
      confirm: 'boolean',
      payment_method_types: { list: 'string' },
      automatic_payment_methods: { enabled: 'boolean', allow_redirects: 'string' },
    },
    handle: async ({ twin, input }) =>
      setupAnswer(await createSetupIntent(twin, createInput(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/setup_intents/:id',
    sdk: 'setupIntents.retrieve',
    kind: 'read',
    params: { client_secret: 'string' },
    handle: (ctx) => retrieve(ctx, 'setup_intent', 'setup_intent'),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/setup_intents/:id/confirm',
    sdk: 'setupIntents.confirm',
    kind: 'write',
    events: CONFIRM_EVENTS,
    params: { payment_method: 'string', return_url: 'string' },
    handle: async ({ twin, params, input }) => {
      const { return_url: _ignored, ...rest } = definedOnly(input);
      return setupAnswer(await confirmSetupIntent(twin, params.id!, rest));
    },
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/setup_intents/:id/cancel',
    sdk: 'setupIntents.cancel',
    kind: 'write',
    events: ['setup_intent.canceled'],
    params: { cancellation_reason: 'string' },
    handle: async ({ twin, params, input }) =>
      apiObject(await cancelSetupIntent(twin, params.id!, definedOnly(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/setup_intents',
    sdk: 'setupIntents.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, customer: 'string', payment_method: 'string' },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        {
          ...orderedList('setup_intent', input, [
            ['payment_method', BY_PAYMENT_METHOD],
            ['customer', BY_CUSTOMER],
          ]),
          keep: () => (r) =>
            (input.customer == null || r.fields.customer === input.customer) &&
            (input.payment_method == null || r.fields.payment_method === input.payment_method),
        },
        input,
        url,
      ),
  }),
];
