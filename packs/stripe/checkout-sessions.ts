// Checkout Sessions (cs_test_…): a hosted payment page for one-time prices (mode "payment") or
// recurring ones (mode "subscription"). completeCheckoutSession plays the customer paying on it:
// by card (checkout.session.completed, paid) or by US bank account, a delayed method (completed
// unpaid, then settleCheckoutSession: async_payment_succeeded or async_payment_failed). An open
// session expires at expires_at (checkout.session.expired, see billing-clock.ts) or when expired
// by hand.
import {
  commit,
  skip,
  type Decision,
  type JsonObject,
  type ProjectedResource,
  type ReadView,
  type Twin,
  type Write,
} from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import type { StripePrice } from './catalog.js';
import { chargeObject, chargeWrite, type StripeCharge } from './charges.js';
import { asJson, emptyAddress, liveFields, unixNow, withRequest } from './common.js';
import { createCustomer, updateCustomer, type StripeCustomer } from './customers.js';
import { unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, type Metadata } from './metadata.js';
import { attemptPayment } from './payment-attempt.js';
import { paymentIntentObject, type StripePaymentIntent } from './payment-intents.js';
import { attachPaymentMethod, bankAccountMethodObject } from './payment-methods.js';
import { DAYS } from './periods.js';
import { createSubscription } from './subscriptions.js';
import { recordKind } from '../../src/index.js';
import { priceKind } from './catalog.js';
import { paymentIntentKind } from './payment-intents.js';
import { customerKind } from './customers.js';
import { chargeKind } from './charges.js';

export type CheckoutMode = 'payment' | 'subscription';

export interface SessionSpec {
  readonly id: string;
  readonly mode: CheckoutMode;
  readonly amount: number;
  readonly currency: string;
  readonly customer: string | null;
  readonly customerEmail: string | null;
  readonly clientReferenceId: string | null;
  readonly successUrl: string;
  readonly cancelUrl: string | null;
  readonly expiresAt: number;
  readonly metadata: Metadata;
}

export function checkoutSessionObject(twin: Twin, spec: SessionSpec) {
  return {
    id: spec.id,
    object: 'checkout.session' as const,
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: spec.amount,
    amount_total: spec.amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: spec.cancelUrl,
    client_reference_id: spec.clientReferenceId,
    client_secret: null,
    collected_information: null as {
      business_name: null;
      individual_name: null;
      shipping_details: null;
    } | null,
    consent: null,
    consent_collection: null,
    created: unixNow(twin),
    currency: spec.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer: spec.customer,
    customer_account: null,
    customer_creation:
      spec.mode === 'payment' && spec.customer === null ? ('if_required' as const) : null,
    customer_details: null as null | {
      address: ReturnType<typeof emptyAddress>;
      business_name: null;
      email: string | null;
      individual_name: null;
      name: string | null;
      phone: null;
      tax_exempt: 'none';
      tax_ids: [];
    },
    customer_email: spec.customerEmail,
    discounts: [],
    expires_at: spec.expiresAt,
    integration_identifier: null,
    invoice: null as string | null,
    invoice_creation:
      spec.mode === 'payment'
        ? {
            enabled: false,
            invoice_data: {
              account_tax_ids: null,
              custom_fields: null,
              description: null,
              footer: null,
              issuer: null,
              metadata: {},
              rendering_options: null,
            },
          }
        : null,
    livemode: false as const,
    locale: null,
    managed_payments: null,
    metadata: spec.metadata,
    mode: spec.mode,
    origin_context: null,
    payment_intent: null as string | null,
    payment_link: null,
    payment_method_collection:
      spec.mode === 'subscription' ? ('always' as const) : ('if_required' as const),
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' as const } },
    payment_method_types: ['card', 'us_bank_account'],
    payment_status: 'unpaid' as 'paid' | 'unpaid' | 'no_payment_required',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open' as 'open' | 'complete' | 'expired',
    submit_type: null,
    subscription: null as string | null,
    success_url: spec.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted' as const,
    url: `https://checkout.stripe.com/c/pay/${spec.id}` as string | null,
    wallet_options: null,
  };
}

export type StripeCheckoutSession = ReturnType<typeof checkoutSessionObject>;

/** The checkout_session records of the twin, typed (src/state/record-kind.ts). */
export const checkoutSessionKind = recordKind<StripeCheckoutSession>({ type: 'checkout_session' });

/** The session's line items, kept beside it (Stripe returns them only when expanded). */
export const LINE_ITEMS = 'checkout_line_items';

export interface CreateCheckoutSessionInput {
  mode: CheckoutMode;
  line_items: { price: string; quantity?: number }[];
  success_url: string;
  cancel_url?: string;
  customer?: string;
  customer_email?: string;
  client_reference_id?: string;
  /** Unix seconds, 30 minutes to 24 hours from now; default 24 hours. */
  expires_at?: number;
  metadata?: Record<string, string>;
}

const check = checker('stripe');
const CREATE_KEYS = [
  'mode',
  'line_items',
  'success_url',
  'cancel_url',
  'customer',
  'customer_email',
  'client_reference_id',
  'expires_at',
  'metadata',
] as const;

function live(view: ReadView, id: string): StripeCheckoutSession {
  return liveFields(view, checkoutSessionKind, id);
}

export async function getCheckoutSession(twin: Twin, id: string): Promise<StripeCheckoutSession> {
  return await twin.read((view) => live(view, id));
}

/** POST /v1/checkout/sessions. Creating one sends no event. */
export async function createCheckoutSession(
  twin: Twin,
  input: CreateCheckoutSessionInput,
  options: RequestOptions = {},
): Promise<StripeCheckoutSession> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(CREATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, CREATE_KEYS);
  const mode = check.string(input?.mode, 'mode') as CheckoutMode;
  if (mode !== 'payment' && mode !== 'subscription')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'mode must be "payment" or "subscription"',
      { path: 'mode' },
    );
  if (!Array.isArray(input.line_items) || input.line_items.length === 0)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_missing',
      'line_items must list at least one {price, quantity}',
      { path: 'line_items' },
    );
  const lines = input.line_items.map((raw, i) => {
    const item = check.object(raw, `line_items[${i}]`);
    for (const key of Object.keys(item))
      if (key !== 'price' && key !== 'quantity')
        throw unknownParameter(`line_items[${i}].${key}`, ['price', 'quantity']);
    return {
      price: check.string(item.price, `line_items[${i}].price`),
      quantity:
        item.quantity === undefined
          ? 1
          : check.integer(item.quantity, `line_items[${i}].quantity`, 1),
    };
  });
  const successUrl = check.url(input.success_url, 'success_url');
  const cancelUrl =
    input.cancel_url === undefined ? null : check.url(input.cancel_url, 'cancel_url');
  const customer = check.optionalString(input.customer, 'customer');
  const customerEmail = check.optionalString(input.customer_email, 'customer_email');
  if (customer !== null && customerEmail !== null)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'You may only specify one of these parameters: customer, customer_email',
      { path: 'customer_email' },
    );
  const clientReferenceId = check.optionalString(input.client_reference_id, 'client_reference_id');
  const metadata = mergeMetadata(
    {},
    input.metadata === undefined ? undefined : check.object(input.metadata, 'metadata'),
  );
  const expiresParam =
    input.expires_at === undefined ? null : check.integer(input.expires_at, 'expires_at', 1);
  const params: JsonObject = {
    mode,
    line_items: lines,
    success_url: successUrl,
    cancel_url: cancelUrl,
    customer,
    customer_email: customerEmail,
    client_reference_id: clientReferenceId,
    expires_at: expiresParam,
    metadata,
  };
  const call: RequestCall = { method: 'POST', path: '/v1/checkout/sessions', params };
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(live(view, prior.id));
    const now = unixNow(twin);
    const expiresAt = expiresParam ?? now + DAYS(1);
    if (expiresAt < now + 1800 || expiresAt > now + DAYS(1)) {
      throw new VendorError(
        'stripe',
        'invalid_input',
        'parameter_invalid',
        'expires_at must be between 30 minutes and 24 hours from now',
        { path: 'expires_at' },
      );
    }
    if (customer !== null) liveFields(view, customerKind, customer, 'customer');
    const prices = lines.map((l, i) =>
      liveFields(view, priceKind, l.price, `line_items[${i}].price`),
    );
    prices.forEach((p, i) => {
      if (p.currency !== prices[0]!.currency)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          'All line items must share one currency',
          { path: `line_items[${i}].price` },
        );
      if (mode === 'payment' && p.recurring !== null)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          `You must provide at least one recurring price in subscription mode; ${p.id} is recurring, which payment mode cannot sell`,
          { path: `line_items[${i}].price` },
        );
      if (mode === 'subscription' && p.recurring === null)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          `The price ${p.id} is one-time; subscription mode takes recurring prices`,
          { path: `line_items[${i}].price` },
        );
    });
    const amount = prices.reduce((sum, p, i) => sum + (p.unit_amount ?? 0) * lines[i]!.quantity, 0);
    const id = stripeIds.checkoutSession(twin.world.ids);
    const session = checkoutSessionObject(twin, {
      id,
      mode,
      amount,
      currency: prices[0]!.currency,
      customer,
      customerEmail,
      clientReferenceId,
      successUrl,
      cancelUrl,
      expiresAt,
      metadata,
    });
    return commit(
      {
        operation: 'checkout_session.create',
        subjectType: 'checkout_session',
        subjectId: id,
        fields: asJson(session),
        projection: {
          creates: [
            { type: LINE_ITEMS, id, fields: { data: lines } },
            requestProjection(twin, call, options, { type: 'checkout_session', id }),
          ],
        },
      },
      session,
    );
  });
  return done.result;
}

function openSession(view: ReadView, id: string): StripeCheckoutSession {
  const session = live(view, id);
  if (session.status !== 'open') {
    throw new VendorError(
      'stripe',
      'invalid_state',
      'checkout_session_unexpected_state',
      `Checkout Session ${id} is ${session.status}; only an open session can be paid or expired`,
      { path: 'id', details: { status: session.status } },
    );
  }
  return session;
}

export interface CompleteCheckoutInput {
  /** A card test token (default pm_card_visa), or "us_bank_account" for a delayed ACH debit (payment mode). */
  payment_method?: string;
  email?: string;
  name?: string;
}

function completedFields(
  session: StripeCheckoutSession,
  email: string | null,
  name: string | null,
  customer: string | null,
  paid: boolean,
) {
  return {
    status: 'complete' as const,
    payment_status: paid ? ('paid' as const) : ('unpaid' as const),
    url: null,
    customer,
    collected_information: { business_name: null, individual_name: null, shipping_details: null },
    customer_details: {
      address: emptyAddress(),
      business_name: null,
      email: email ?? session.customer_email,
      individual_name: null,
      name,
      phone: null,
      tax_exempt: 'none' as const,
      tax_ids: [] as [],
    },
  };
}

/**
 * The customer pays on the hosted page. Card: the payment succeeds (checkout.session.completed,
 * paid) or declines (charge.failed + payment_intent.payment_failed; the session stays open).
 * Bank account: checkout.session.completed, unpaid, until settleCheckoutSession.
 */
export async function completeCheckoutSession(
  twin: Twin,
  id: string,
  input: CompleteCheckoutInput = {},
): Promise<StripeCheckoutSession> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!['payment_method', 'email', 'name'].includes(key))
      throw unknownParameter(key, ['payment_method', 'email', 'name']);
  const method =
    input.payment_method === undefined
      ? 'pm_card_visa'
      : check.string(input.payment_method, 'payment_method');
  const email = check.optionalString(input.email, 'email');
  const name = check.optionalString(input.name, 'name');
  const session = await twin.read((view) => openSession(view, id));
  if (session.mode === 'subscription')
    return completeSubscriptionSession(twin, session, method, email, name);
  // Payment mode: the intent is made when the customer submits the page, then charged.
  const made = await twin.applyAtomic((view) => {
    const current = openSession(view, id);
    if (current.payment_intent !== null) return skip(current.payment_intent);
    const intent = paymentIntentObject(twin, stripeIds.paymentIntent(twin.world.ids), {
      amount: current.amount_total,
      currency: current.currency,
      customer: current.customer,
      description: null,
      metadata: {},
    });
    return commit(
      [
        {
          operation: 'payment_intent.create',
          subjectType: 'payment_intent',
          subjectId: intent.id,
          fields: asJson(intent),
        },
        {
          operation: 'checkout_session.attach_intent',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: { payment_intent: intent.id },
        },
      ],
      intent.id,
    );
  });
  const intentId = made.result;
  const done = await twin.applyAtomic((view) => {
    const current = openSession(view, id);
    const intent = liveFields(view, paymentIntentKind, intentId);
    if (method === 'us_bank_account') {
      const bank = bankAccountMethodObject(twin, stripeIds.paymentMethod(twin.world.ids), null, {
        email: email ?? current.customer_email,
        name,
      });
      const charge = chargeObject(twin, {
        id: stripeIds.charge(twin.world.ids),
        amount: intent.amount,
        currency: intent.currency,
        customer: intent.customer,
        description: null,
        paymentIntent: intent.id,
        method: bank,
        failure: null,
        pending: true,
      });
      const fields = completedFields(current, email, name, current.customer, false);
      const writes: Write[] = [
        {
          ...chargeWrite(charge),
          projection: { creates: [{ type: 'payment_method', id: bank.id, fields: asJson(bank) }] },
        },
        {
          operation: 'payment_intent.process',
          subjectType: 'payment_intent',
          subjectId: intent.id,
          fields: asJson({
            status: 'processing',
            payment_method: bank.id,
            latest_charge: charge.id,
            payment_method_types: ['card', 'us_bank_account'],
          }),
        },
        {
          operation: 'checkout_session.complete',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: asJson(fields),
        },
      ];
      return commit(writes, { ...current, ...fields });
    }
    const attempt = attemptPayment(twin, view, intent, method);
    if (!attempt.ok) return commit(attempt.writes, current);
    const fields = completedFields(current, email, name, current.customer, true);
    return commit(
      [
        ...attempt.writes,
        {
          operation: 'checkout_session.complete',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: asJson(fields),
        },
      ],
      { ...current, ...fields },
    );
  });
  return done.result as StripeCheckoutSession;
}

/** Subscription mode: a customer (made if none), the card attached, the subscription, then the session. */
async function completeSubscriptionSession(
  twin: Twin,
  session: StripeCheckoutSession,
  method: string,
  email: string | null,
  name: string | null,
): Promise<StripeCheckoutSession> {
  if (method === 'us_bank_account')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'The twin takes subscription payments by card; pay with a card test token such as pm_card_visa',
      { path: 'payment_method' },
    );
  let customerId = session.customer;
  if (customerId === null)
    customerId = (await createCustomer(twin, { email: email ?? session.customer_email, name })).id;
  const pm = await attachPaymentMethod(twin, method, { customer: customerId });
  await updateCustomer(twin, customerId, { invoice_settings: { default_payment_method: pm.id } });
  const lines = (await twin.get(LINE_ITEMS, session.id))?.fields.data as {
    price: string;
    quantity: number;
  }[];
  const sub = await createSubscription(twin, {
    customer: customerId,
    items: lines,
    default_payment_method: pm.id,
  });
  const customer = await twin.read((view) =>
    liveFields(view, customerKind, customerId, 'customer'),
  );
  const paid = sub.status === 'active' || sub.status === 'trialing';
  const done = await twin.applyAtomic((view) => {
    const current = openSession(view, session.id);
    if (!paid) return skip(current);
    const fields = {
      ...completedFields(current, email ?? customer.email, name ?? customer.name, customerId, true),
      subscription: sub.id,
      invoice: sub.latest_invoice,
    };
    return commit(
      {
        operation: 'checkout_session.complete',
        subjectType: 'checkout_session',
        subjectId: session.id,
        fields: asJson(fields),
      },
      { ...current, ...fields },
    );
  });
  return done.result as StripeCheckoutSession;
}

/**
 * A delayed payment settles: the debit clears (charge.succeeded, payment_intent.succeeded,
 * checkout.session.async_payment_succeeded) or fails (charge.failed,
 * payment_intent.payment_failed, checkout.session.async_payment_failed).
 */
export async function settleCheckoutSession(
  twin: Twin,
  id: string,
  input: { outcome: 'succeeded' | 'failed' },
): Promise<StripeCheckoutSession> {
  requirePackTwin(twin, 'stripe');
  const outcome = check.string(input?.outcome, 'outcome');
  if (outcome !== 'succeeded' && outcome !== 'failed')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'outcome must be "succeeded" or "failed"',
      { path: 'outcome' },
    );
  const done = await twin.applyAtomic((view) => {
    const session = live(view, id);
    if (
      session.status !== 'complete' ||
      session.payment_status !== 'unpaid' ||
      session.payment_intent === null
    ) {
      throw new VendorError(
        'stripe',
        'invalid_state',
        'checkout_session_unexpected_state',
        `Checkout Session ${id} has no payment waiting to settle (status ${session.status}, payment_status ${session.payment_status})`,
        { path: 'id' },
      );
    }
    const intent = liveFields(view, paymentIntentKind, session.payment_intent);
    const charge = liveFields(view, chargeKind, intent.latest_charge!);
    const ok = outcome === 'succeeded';
    const now = unixNow(twin);
    const chargeFields = ok
      ? { status: 'succeeded', paid: true }
      : {
          status: 'failed',
          paid: false,
          captured: false,
          amount_captured: 0,
          receipt_url: null,
          failure_code: 'debit_not_authorized',
          failure_message: 'The customer notified their bank that this payment was unauthorized.',
          outcome: {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'declined_by_network',
            reason: null,
            risk_level: 'normal',
            seller_message: 'The bank returned the payment.',
            type: 'issuer_declined',
          },
        };
    const intentFields = ok
      ? { status: 'succeeded', amount_received: intent.amount }
      : {
          status: 'requires_payment_method',
          payment_method: null,
          last_payment_error: {
            charge: charge.id,
            code: 'debit_not_authorized',
            message: 'The customer notified their bank that this payment was unauthorized.',
            type: 'invalid_request_error',
          },
        };
    const sessionFields = ok ? { payment_status: 'paid' } : {};
    const writes: Write[] = [
      {
        operation: ok ? 'charge.succeed' : 'charge.fail',
        subjectType: 'charge',
        subjectId: charge.id,
        fields: asJson(chargeFields),
      },
      {
        operation: ok ? 'payment_intent.succeed' : 'payment_intent.fail',
        subjectType: 'payment_intent',
        subjectId: intent.id,
        fields: asJson(intentFields),
      },
      {
        operation: ok ? 'checkout_session.async_succeed' : 'checkout_session.async_fail',
        subjectType: 'checkout_session',
        subjectId: id,
        fields: asJson(sessionFields),
      },
    ];
    void now;
    return commit(writes, { ...session, ...sessionFields } as StripeCheckoutSession);
  });
  return done.result;
}

/** Inside decide: an open session past expires_at (or expired by hand when `force`) → expired. */
export function expireDecision(
  twin: Twin,
  view: ReadView,
  id: string,
  nowSec: number,
  force = false,
  request?: ProjectedResource,
): Decision<boolean> {
  void twin;
  const session = checkoutSessionKind.fieldsAt(view, id);
  if (session === undefined || session.status !== 'open' || (!force && session.expires_at > nowSec))
    return skip(false);
  return commit(
    withRequest(
      [
        {
          operation: 'checkout_session.expire',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: { status: 'expired', url: null },
        },
      ],
      request,
    ),
    true,
  );
}

/** POST /v1/checkout/sessions/{id}/expire. */
export async function expireCheckoutSession(
  twin: Twin,
  id: string,
  options: RequestOptions = {},
): Promise<StripeCheckoutSession> {
  requirePackTwin(twin, 'stripe');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/checkout/sessions/${id}/expire`,
    params: {},
  };
  await twin.applyAtomic((view) => {
    if (priorRequest(view, call, options) !== undefined) return skip(false);
    openSession(view, id);
    return expireDecision(
      twin,
      view,
      id,
      unixNow(twin),
      true,
      requestProjection(twin, call, options, { type: 'checkout_session', id }),
    );
  });
  return getCheckoutSession(twin, id);
}
