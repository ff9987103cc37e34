// SetupIntents (seti_…): saving a card for later without charging it. Created (setup_intent.created),
// then confirmed with a payment method: a card that sets up succeeds (setup_intent.succeeded) and,
// when the intent has a customer, is attached to it in the same commit (payment_method.attached,
// as Stripe sends); a card declined on setup fails (setup_intent.setup_failed, back in
// requires_payment_method with last_setup_error); a card that needs 3-D Secure waits in
// requires_action (setup_intent.requires_action). Cancel ends it (setup_intent.canceled).
import { commit, recordKind, skip, type Twin, type Write } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import { cardDecline, errorDocUrl, requiresActionFor, TEST_CARDS } from './cards.js';
import { liveFields, unixNow, withRequest } from './common.js';
import { customerKind } from './customers.js';
import { unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput, type Metadata } from './metadata.js';
import { THREE_D_SECURE } from './payment-attempt.js';
import type { NextAction } from './payment-intent-objects.js';
import {
  paymentMethodKind,
  resolvePaymentMethod,
  type StripePaymentMethod,
} from './payment-methods.js';

type SetupIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'canceled'
  | 'succeeded';

interface LastSetupError {
  code: string;
  decline_code: string;
  doc_url: string;
  message: string;
  payment_method: StripePaymentMethod;
  type: 'card_error';
}

function setupIntentObject(
  twin: Twin,
  id: string,
  input: {
    customer: string | null;
    description: string | null;
    metadata: Metadata;
    usage: 'off_session' | 'on_session';
  },
) {
  return {
    id,
    object: 'setup_intent' as const,
    allowed_payment_method_types: null,
    application: null,
    automatic_payment_methods: null,
    cancellation_reason: null as 'abandoned' | 'duplicate' | 'requested_by_customer' | null,
    client_secret: `${id}_${stripeIds.clientSecretTail(twin.world.ids)}`,
    created: unixNow(twin),
    customer: input.customer,
    description: input.description,
    excluded_payment_method_types: null,
    last_setup_error: null as LastSetupError | null,
    latest_attempt: null,
    livemode: false as const,
    mandate: null,
    metadata: input.metadata,
    next_action: null as NextAction | null,
    on_behalf_of: null,
    payment_method: null as string | null,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' as const },
    },
    payment_method_types: ['card'],
    single_use_mandate: null,
    status: 'requires_payment_method' as SetupIntentStatus,
    usage: input.usage,
  };
}

export type StripeSetupIntent = ReturnType<typeof setupIntentObject>;

/** The setup_intent records of the twin, typed (src/state/record-kind.ts). */
const setupIntentKind = recordKind<StripeSetupIntent>({ type: 'setup_intent' });

export interface CreateSetupIntentInput {
  customer?: string;
  description?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
  usage?: 'off_session' | 'on_session';
  payment_method?: string;
  /** With payment_method: create and confirm in one call (two commits, two events, as Stripe). */
  confirm?: boolean;
}

const check = checker('stripe');
const CREATE_KEYS = [
  'customer',
  'description',
  'metadata',
  'usage',
  'payment_method',
  'confirm',
] as const;
const CONFIRMABLE: readonly SetupIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
];
const CANCELABLE: readonly SetupIntentStatus[] = [...CONFIRMABLE, 'processing'];
const CANCELLATION_REASONS = ['abandoned', 'duplicate', 'requested_by_customer'] as const;

function unexpected(id: string, action: string, status: string, allowed: readonly string[]) {
  return new VendorError(
    'stripe',
    'invalid_state',
    'setup_intent_unexpected_state',
    `You cannot ${action} SetupIntent ${id} because it has a status of ${status}; it must be one of: ${allowed.join(', ')}`,
    { path: 'status', details: { id, status, allowed: [...allowed] } },
  );
}

export function getSetupIntent(twin: Twin, id: string): Promise<StripeSetupIntent> {
  return twin.read((view) => liveFields(view, setupIntentKind, id));
}

export async function createSetupIntent(
  twin: Twin,
  input: CreateSetupIntentInput = {},
  options: RequestOptions = {},
): Promise<StripeSetupIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(CREATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, CREATE_KEYS);
  const customer = check.optionalString(input.customer, 'customer');
  const description = check.optionalString(input.description, 'description');
  const usage = input.usage ?? 'off_session';
  if (usage !== 'off_session' && usage !== 'on_session')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'usage must be off_session or on_session',
      { path: 'usage' },
    );
  const metadata = mergeMetadata({}, metadataInput(input.metadata));
  const method =
    input.payment_method === undefined
      ? undefined
      : check.string(input.payment_method, 'payment_method');
  if (input.confirm !== undefined) check.boolean(input.confirm, 'confirm');
  const call: RequestCall = {
    method: 'POST',
    path: '/v1/setup_intents',
    params: { customer, description, metadata, usage },
  };
  const created = (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(liveFields(view, setupIntentKind, prior.id));
      if (customer !== null) liveFields(view, customerKind, customer, 'customer');
      const id = stripeIds.setupIntent(twin.world.ids);
      const intent = setupIntentObject(twin, id, { customer, description, metadata, usage });
      return commit(
        setupIntentKind.write('setup_intent.create', id, intent, {
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'setup_intent', id })],
          },
        }),
        intent,
      );
    })
  ).result;
  if (method === undefined || input.confirm !== true) return created;
  return confirmSetupIntent(twin, created.id, { payment_method: method }, options);
}

/** Confirms with a payment method (a pm_… id or a test token such as pm_card_visa). */
export async function confirmSetupIntent(
  twin: Twin,
  id: string,
  input: { payment_method?: string } = {},
  options: RequestOptions = {},
): Promise<StripeSetupIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (key !== 'payment_method') throw unknownParameter(key, ['payment_method']);
  const ref =
    input.payment_method === undefined
      ? undefined
      : check.string(input.payment_method, 'payment_method');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/setup_intents/${id}/confirm`,
    params: { payment_method: ref ?? null },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(liveFields(view, setupIntentKind, prior.id));
      const intent = liveFields(view, setupIntentKind, id);
      if (!CONFIRMABLE.includes(intent.status))
        throw unexpected(id, 'confirm', intent.status, CONFIRMABLE);
      const chosen = ref ?? intent.payment_method;
      if (chosen === null)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_missing',
          'You cannot confirm this SetupIntent because it has no payment method; pass payment_method',
          { path: 'payment_method' },
        );
      const { method, created } = resolvePaymentMethod(twin, view, chosen, intent.customer);
      const card = Object.values(TEST_CARDS).find((c) => c.last4 === method.card.last4);
      const writes: Write[] = [];
      // A token becomes a payment method; with a customer it is attached in the same commit.
      const owned = intent.customer === null ? method : { ...method, customer: intent.customer };
      let fields: Partial<StripeSetupIntent>;
      let operation: string;
      if (requiresActionFor(method.card.last4)) {
        if (created)
          writes.push(paymentMethodKind.write('payment_method.create', method.id, method));
        fields = {
          status: 'requires_action',
          payment_method: method.id,
          next_action: THREE_D_SECURE,
        };
        operation = 'setup_intent.require_action';
      } else if (card?.declinesOnAttach === true) {
        const decline = cardDecline(card.declineCode!);
        if (created)
          writes.push(paymentMethodKind.write('payment_method.create', method.id, method));
        fields = {
          status: 'requires_payment_method',
          payment_method: null,
          next_action: null,
          last_setup_error: {
            code: decline.code,
            decline_code: decline.declineCode,
            doc_url: errorDocUrl(decline.code),
            message: decline.message,
            payment_method: method,
            type: 'card_error',
          },
        };
        operation = 'setup_intent.fail';
      } else {
        if (created || owned.customer !== method.customer)
          writes.push(
            paymentMethodKind.write(
              intent.customer === null ? 'payment_method.create' : 'payment_method.attach',
              owned.id,
              owned,
            ),
          );
        fields = {
          status: 'succeeded',
          payment_method: method.id,
          next_action: null,
          last_setup_error: null,
        };
        operation = 'setup_intent.succeed';
      }
      writes.push(setupIntentKind.write(operation, id, fields));
      return commit(
        withRequest(writes, requestProjection(twin, call, options, { type: 'setup_intent', id })),
        { ...intent, ...fields },
      );
    })
  ).result;
}

export async function cancelSetupIntent(
  twin: Twin,
  id: string,
  input: { cancellation_reason?: string } = {},
  options: RequestOptions = {},
): Promise<StripeSetupIntent> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (key !== 'cancellation_reason') throw unknownParameter(key, ['cancellation_reason']);
  const reason = check.optionalString(input.cancellation_reason, 'cancellation_reason');
  const known = CANCELLATION_REASONS.find((r) => r === reason);
  if (reason !== null && known === undefined)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `cancellation_reason must be one of: ${CANCELLATION_REASONS.join(', ')}`,
      { path: 'cancellation_reason' },
    );
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/setup_intents/${id}/cancel`,
    params: { cancellation_reason: reason },
  };
  return (
    await twin.applyAtomic((view) => {
      const prior = priorRequest(view, call, options);
      if (prior !== undefined) return skip(liveFields(view, setupIntentKind, prior.id));
      const intent = liveFields(view, setupIntentKind, id);
      if (!CANCELABLE.includes(intent.status))
        throw unexpected(id, 'cancel', intent.status, CANCELABLE);
      const fields: Partial<StripeSetupIntent> = {
        status: 'canceled',
        cancellation_reason: known ?? null,
        next_action: null,
      };
      return commit(
        setupIntentKind.write('setup_intent.cancel', id, fields, {
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'setup_intent', id })],
          },
        }),
        { ...intent, ...fields },
      );
    })
  ).result;
}
