// Checkout Sessions (cs_test_…): a hosted payment page for one-time prices (mode "payment") or
// recurring ones (mode "subscription"). This module creates and expires them; paying on the page is
// checkout-completion.ts (by card: checkout.session.completed, paid; by US bank account, a delayed
// method: completed unpaid, then checkout-settlement.ts: async_payment_succeeded or
// async_payment_failed). An open session expires at expires_at (checkout.session.expired, see
// billing-clock.ts) or when expired by hand.
import {
  commit,
  skip,
  type Decision,
  type JsonObject,
  type ProjectedResource,
  type ReadView,
  type Twin,
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
import { checkoutLine, linePrice, linePricePath } from './checkout-price-data.js';
import {
  checkoutSessionKind,
  checkoutSessionObject,
  getCheckoutSession,
  LINE_ITEMS,
  live,
  openSession,
  type CheckoutMode,
  type StripeCheckoutSession,
} from './checkout-session-objects.js';
import { asJson, liveFields, unixNow, withRequest } from './common.js';
import { customerKind } from './customers.js';
import { checkEmail, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput } from './metadata.js';
import { DAYS } from './periods.js';

export {
  checkoutSessionKind,
  getCheckoutSession,
  type StripeCheckoutSession,
} from './checkout-session-objects.js';
export { completeCheckoutSession, type CompleteCheckoutInput } from './checkout-completion.js';
export { settleCheckoutSession } from './checkout-settlement.js';

export interface CreateCheckoutSessionInput {
  mode: CheckoutMode;
  /** Each a catalog `price` or an inline `price_data` (checkout-price-data.ts), and a quantity. */
  line_items: ({ price: string; quantity?: number } | { price_data: object; quantity?: number })[];
  success_url: string;
  cancel_url?: string;
  customer?: string;
  customer_email?: string;
  client_reference_id?: string;
  /** Unix seconds, 30 minutes to 24 hours from now; default 24 hours. */
  expires_at?: number;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
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
  const lines = input.line_items.map((raw, i) => checkoutLine(raw, i));
  const successUrl = check.url(input.success_url, 'success_url');
  const cancelUrl =
    input.cancel_url === undefined ? null : check.url(input.cancel_url, 'cancel_url');
  const customer = check.optionalString(input.customer, 'customer');
  const customerEmail = checkEmail(
    check.optionalString(input.customer_email, 'customer_email'),
    'customer_email',
  );
  if (customer !== null && customerEmail !== null)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'You may only specify one of these parameters: customer, customer_email',
      { path: 'customer_email' },
    );
  const clientReferenceId = check.optionalString(input.client_reference_id, 'client_reference_id');
  const metadata = mergeMetadata({}, metadataInput(input.metadata));
  const expiresParam =
    input.expires_at === undefined ? null : check.integer(input.expires_at, 'expires_at', 1);
  const params: JsonObject = {
    mode,
    line_items: lines.map((l) => asJson(l)),
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
    const prices = lines.map((l, i) => linePrice(twin, view, l, i));
    prices.forEach((p, i) => {
      const path = linePricePath(lines[i]!, i);
      if (p.currency !== prices[0]!.currency)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          'All line items must share one currency',
          { path },
        );
      if (mode === 'payment' && p.recurring)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
          { path },
        );
      if (mode === 'subscription' && !p.recurring)
        throw new VendorError(
          'stripe',
          'invalid_input',
          'parameter_invalid',
          `The price ${p.name} is one-time; subscription mode takes recurring prices`,
          { path },
        );
    });
    // Inline prices (and products) are made with the session, in its commit, and sent no event.
    const made: ProjectedResource[] = [];
    const kept = prices.map((p, i) => ({ price: p.make(made), quantity: lines[i]!.quantity }));
    const amount = prices.reduce((sum, p, i) => sum + p.unitAmount * lines[i]!.quantity, 0);
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
            ...made,
            { type: LINE_ITEMS, id, fields: { data: kept } },
            requestProjection(twin, call, options, { type: 'checkout_session', id }),
          ],
        },
      },
      session,
    );
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
