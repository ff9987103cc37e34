// Subscriptions: create (customer.subscription.created, its first invoice drafted, finalized and
// paid at once, or left for the app to confirm: subscription-payment-behavior.ts), update
// (cancel_at_period_end, default payment method, metadata), cancel now
// (customer.subscription.deleted). Renewals are not here: they follow the world clock, see
// billing-clock.ts.
import {
  commit,
  skip,
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
import { asJson, liveFields, unixNow, withRequest } from './common.js';
import { unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { invoiceKind, invoiceObject, type StripeInvoice } from './invoice-objects.js';
import { mergeMetadata, metadataInput } from './metadata.js';
import { paymentMethodKind, type StripePaymentMethod } from './payment-methods.js';
import { DAYS, nextBoundary } from './periods.js';
import {
  currentPeriod,
  subscriptionItemObject,
  subscriptionObject,
  type Period,
  type StripeSubscription,
  type StripeSubscriptionItem,
} from './subscription-objects.js';
import { subscriptionKind } from './subscription-objects.js';
import { linesFor } from './subscription-invoice-drafts.js';
import { inlinePriceKind, liveProduct, priceKind } from './catalog.js';
import { customerKind } from './customers.js';
import {
  firstPaymentOf,
  needsPaymentMethod,
  settleFirstInvoice,
  startingStatus,
  type FirstPaymentInput,
} from './subscription-payment-behavior.js';

const check = checker('stripe');
const CREATE_KEYS = [
  'customer',
  'items',
  'default_payment_method',
  'trial_period_days',
  'description',
  'metadata',
  'payment_behavior',
  'payment_settings',
] as const;
const UPDATE_KEYS = [
  'cancel_at_period_end',
  'default_payment_method',
  'description',
  'metadata',
] as const;

export interface CreateSubscriptionInput extends FirstPaymentInput {
  customer: string;
  items: { price: string; quantity?: number }[];
  /** A pm_… attached to the customer; defaults to the customer's invoice_settings.default_payment_method. */
  default_payment_method?: string;
  trial_period_days?: number;
  description?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
}

export interface UpdateSubscriptionInput {
  cancel_at_period_end?: boolean;
  default_payment_method?: string | null;
  description?: string | null;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
}

function live(view: ReadView, id: string): StripeSubscription {
  return liveFields(view, subscriptionKind, id);
}

export async function getSubscription(twin: Twin, id: string): Promise<StripeSubscription> {
  return await twin.read((view) => live(view, id));
}

export async function getInvoice(twin: Twin, id: string): Promise<StripeInvoice> {
  return await twin.read((view) => liveFields(view, invoiceKind, id));
}

function attachedMethod(
  view: ReadView,
  id: string,
  customer: string,
  path: string,
): StripePaymentMethod {
  const method = liveFields(view, paymentMethodKind, id, path);
  if (method.customer !== customer) {
    throw new VendorError(
      'stripe',
      'invalid_input',
      'resource_missing',
      `The customer does not have a payment method with the ID ${id}; attach it first (attachPaymentMethod)`,
      { path },
    );
  }
  return method;
}

function items(value: unknown): { price: string; quantity: number }[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_missing',
      'items must list at least one {price, quantity?}',
      { path: 'items' },
    );
  return value.map((raw, i) => {
    const item = check.object(raw, `items[${i}]`);
    for (const key of Object.keys(item))
      if (key !== 'price' && key !== 'quantity')
        throw unknownParameter(`items[${i}].${key}`, ['price', 'quantity']);
    return {
      price: check.string(item.price, `items[${i}].price`),
      quantity:
        item.quantity === undefined ? 1 : check.integer(item.quantity, `items[${i}].quantity`, 1),
    };
  });
}

/**
 * POST /v1/subscriptions. Without a trial the first invoice is charged at once: the subscription
 * is created active when the default payment method pays, incomplete when it declines or asks for
 * 3-D Secure (Stripe's default payment_behavior, allow_incomplete; the others are in
 * subscription-payment-behavior.ts). With a trial it is created trialing, with a paid $0 invoice.
 */
export async function createSubscription(
  twin: Twin,
  input: CreateSubscriptionInput,
  options: RequestOptions = {},
  /** The inline prices (catalog.ts) of the Checkout Session starting it: no other call may use one. */
  sessionPrices: readonly string[] = [],
): Promise<StripeSubscription> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(CREATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, CREATE_KEYS);
  const customerId = check.string(input?.customer, 'customer');
  const wanted = items(input.items);
  const pmParam =
    input.default_payment_method === undefined
      ? null
      : check.string(input.default_payment_method, 'default_payment_method');
  const trialDaysParam =
    input.trial_period_days === undefined
      ? null
      : check.integer(input.trial_period_days, 'trial_period_days', 1);
  const description = check.optionalString(input.description, 'description');
  const metadata = mergeMetadata({}, metadataInput(input.metadata));
  const behavior = firstPaymentOf(input);
  const params: JsonObject = {
    customer: customerId,
    items: wanted,
    default_payment_method: pmParam,
    trial_period_days: trialDaysParam,
    description,
    metadata,
    ...behavior.params,
  };
  const call: RequestCall = { method: 'POST', path: '/v1/subscriptions', params };
  let request: ProjectedResource | undefined;
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined)
      return skip({ sub: live(view, prior.id), invoice: null as string | null });
    const customer = liveFields(view, customerKind, customerId, 'customer');
    const prices = wanted.map((w, i) => {
      const kind = sessionPrices.includes(w.price) ? inlinePriceKind : priceKind;
      const price = liveFields(view, kind, w.price, `items[${i}].price`);
      if (price.recurring === null)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          `The price ${price.id} is a one-time price; subscriptions need recurring prices`,
          { path: `items[${i}].price` },
        );
      if (!price.active && !sessionPrices.includes(price.id))
        throw new VendorError(
          'stripe',
          'invalid_state',
          'price_inactive',
          `The price ${price.id} is not active`,
          { path: `items[${i}].price` },
        );
      return price;
    });
    const first = prices[0]!;
    const recurring = first.recurring!;
    prices.forEach((p, i) => {
      if (
        p.currency !== first.currency ||
        p.recurring!.interval !== recurring.interval ||
        p.recurring!.interval_count !== recurring.interval_count
      ) {
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          'All prices of a subscription must share one currency and one billing interval',
          { path: `items[${i}].price` },
        );
      }
    });
    const pmId = pmParam ?? customer.invoice_settings.default_payment_method;
    const trialDays = trialDaysParam ?? recurring.trial_period_days;
    if (pmParam !== null) attachedMethod(view, pmParam, customerId, 'default_payment_method');
    if (pmId === null && trialDays === null && needsPaymentMethod(behavior)) {
      throw new VendorError(
        'stripe',
        'invalid_state',
        'resource_missing',
        'This customer has no attached payment source or default payment method. Attach one (attachPaymentMethod) and set invoice_settings.default_payment_method, or pass default_payment_method or a trial',
        {
          path: 'default_payment_method',
        },
      );
    }
    const now = unixNow(twin);
    const trial = trialDays === null ? null : { start: now, end: now + DAYS(trialDays) };
    const anchor = trial?.end ?? now;
    const period = {
      start: now,
      end: trial?.end ?? nextBoundary(anchor, recurring.interval, recurring.interval_count, now),
    };
    const ids = twin.world.ids;
    const id = stripeIds.subscription(ids);
    const subItems = prices.map((price, i) =>
      subscriptionItemObject(
        stripeIds.subscriptionItem(ids),
        id,
        price,
        wanted[i]!.quantity,
        now,
        period,
      ),
    );
    const method =
      pmId === null ? null : liveFields(view, paymentMethodKind, pmId, 'default_payment_method');
    const status = trial === null ? startingStatus(behavior, method, prices, wanted) : 'trialing';
    const invoiceId = stripeIds.invoice(ids);
    const sub = subscriptionObject(
      twin,
      {
        id,
        customer: customerId,
        items: subItems,
        currency: first.currency,
        status,
        anchor,
        trial,
        defaultPaymentMethod: pmParam,
        description,
        metadata,
        latestInvoice: invoiceId,
        ...(behavior.save === 'off' ? {} : { saveDefaultPaymentMethod: behavior.save }),
      },
      now,
    );
    const lines = linesFor(twin, view, invoiceId, sub, subItems, period, trial !== null);
    const invoice = invoiceObject(twin, {
      id: invoiceId,
      customer,
      subscription: sub,
      lines,
      billingReason: 'subscription_create',
      period: { start: now, end: now },
      finalizesAt: now,
    });
    request = requestProjection(twin, call, options, { type: 'subscription', id });
    const writes: Write[] = [
      {
        operation: 'subscription.create',
        subjectType: 'subscription',
        subjectId: id,
        fields: asJson(sub),
      },
      {
        operation: 'invoice.create',
        subjectType: 'invoice',
        subjectId: invoiceId,
        fields: asJson(invoice),
      },
    ];
    return commit(withRequest(writes, request), { sub, invoice: invoiceId as string | null });
  });
  const { sub, invoice } = done.result;
  if (invoice === null) return sub;
  await settleFirstInvoice(twin, invoice, behavior, request);
  return getSubscription(twin, sub.id);
}

export async function updateSubscription(
  twin: Twin,
  id: string,
  input: UpdateSubscriptionInput,
  options: RequestOptions = {},
): Promise<StripeSubscription> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(UPDATE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, UPDATE_KEYS);
  const params: JsonObject = {};
  if (input.cancel_at_period_end !== undefined)
    params.cancel_at_period_end = check.boolean(input.cancel_at_period_end, 'cancel_at_period_end');
  if (input.default_payment_method !== undefined)
    params.default_payment_method = check.optionalString(
      input.default_payment_method,
      'default_payment_method',
    );
  if (input.description !== undefined)
    params.description = check.optionalString(input.description, 'description');
  if (input.metadata !== undefined) params.metadata = metadataInput(input.metadata) ?? null;
  const call: RequestCall = { method: 'POST', path: `/v1/subscriptions/${id}`, params };
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(live(view, prior.id));
    const sub = live(view, id);
    // An ended subscription still takes metadata (Stripe's own refusal says so): a churn reason
    // recorded after the cancel.
    const ended = sub.status === 'canceled' || sub.status === 'incomplete_expired';
    if (ended && Object.keys(params).some((k) => k !== 'metadata')) {
      throw new VendorError(
        'stripe',
        'invalid_state',
        'resource_missing',
        `A canceled subscription can only update its cancellation_details and metadata; ${id} is ${sub.status}`,
        { path: 'id', details: { status: sub.status } },
      );
    }
    const fields: JsonObject = {};
    if (
      params.cancel_at_period_end !== undefined &&
      params.cancel_at_period_end !== sub.cancel_at_period_end
    ) {
      const ending = params.cancel_at_period_end === true;
      fields.cancel_at_period_end = ending;
      fields.cancel_at = ending ? currentPeriod(sub).end : null;
      fields.canceled_at = ending ? unixNow(twin) : null;
      fields.cancellation_details = {
        comment: null,
        feedback: null,
        feedback_option: null,
        reason: ending ? 'cancellation_requested' : null,
      };
    }
    if (params.default_payment_method !== undefined) {
      if (params.default_payment_method !== null)
        attachedMethod(
          view,
          params.default_payment_method as string,
          sub.customer,
          'default_payment_method',
        );
      if (params.default_payment_method !== sub.default_payment_method)
        fields.default_payment_method = params.default_payment_method;
    }
    if (params.description !== undefined && params.description !== sub.description)
      fields.description = params.description;
    if (params.metadata !== undefined) {
      const merged = mergeMetadata(sub.metadata, params.metadata as JsonObject | null);
      if (JSON.stringify(merged) !== JSON.stringify(sub.metadata)) fields.metadata = merged;
    }
    // Stripe sends customer.subscription.updated only when something changed.
    if (Object.keys(fields).length === 0) return skip(sub);
    return commit(
      {
        operation: 'subscription.update',
        subjectType: 'subscription',
        subjectId: id,
        fields,
        projection: {
          creates: [requestProjection(twin, call, options, { type: 'subscription', id })],
        },
      },
      { ...sub, ...fields } as StripeSubscription,
    );
  });
  return done.result;
}

/** DELETE /v1/subscriptions/{id}: ends it now (customer.subscription.deleted); the object stays, canceled. */
export async function cancelSubscription(
  twin: Twin,
  id: string,
  options: RequestOptions = {},
): Promise<StripeSubscription> {
  requirePackTwin(twin, 'stripe');
  const call: RequestCall = { method: 'DELETE', path: `/v1/subscriptions/${id}`, params: {} };
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(live(view, prior.id));
    const sub = live(view, id);
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      throw new VendorError(
        'stripe',
        'invalid_state',
        'resource_missing',
        `No such subscription: '${id}' is already ${sub.status}`,
        { path: 'id', details: { status: sub.status } },
      );
    }
    const now = unixNow(twin);
    const fields = asJson({
      status: 'canceled',
      canceled_at: now,
      ended_at: now,
      cancel_at: null,
      cancellation_details: {
        comment: null,
        feedback: null,
        feedback_option: null,
        reason: 'cancellation_requested',
      },
    });
    return commit(
      {
        operation: 'subscription.cancel',
        subjectType: 'subscription',
        subjectId: id,
        fields,
        projection: {
          creates: [requestProjection(twin, call, options, { type: 'subscription', id })],
        },
      },
      subscriptionKind.from({ ...subscriptionKind.json(sub), ...fields }),
    );
  });
  return done.result;
}
