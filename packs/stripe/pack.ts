// The Stripe pack as data: Event objects exactly as Stripe renders them, Stripe-Signature,
// webhook endpoints as the one endpoint kind, and Stripe's test-mode retry schedule.
import { STRIPE_HEALTH } from './health.js';
import type { EventsDeclaration, RetryPolicy } from '../../src/index.js';
import { ordered } from '../kit/ordered.js';
import type { VendorPack } from '../kit/vendor-pack.js';
import { API_REQUEST, eventRequest, IDEMPOTENCY_INDEX } from './api-requests.js';
import { stripeCli } from './cli.js';
import { STRIPE_EVENT_RULES } from './event-types.js';
import { STATUS_INDEX } from './billing-clock.js';
import { stripeIdShapes } from './ids.js';
import { INVOICE_PAYMENT_INDEX } from './invoice-stages.js';
import { INVOICE_PAYMENT_BY_INTENT } from './invoice-intent-confirmation.js';
import { previousAttributes } from './previous-attributes.js';
import { scenarioKeys, scenarios } from './scenarios.js';
import { updateWebhookEndpoint } from './webhook-endpoints.js';

/** The API version events are rendered with (the one stripe-node 23.1.0 pins). */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/**
 * Test mode ("sandbox"): Stripe documents three retries over a few hours and publishes no
 * intervals; these three spread over about four hours, with ±10% seeded jitter. Any non-2xx
 * and any timeout or reset is retried.
 */
export const STRIPE_TEST_MODE_RETRY: RetryPolicy = {
  delaysMs: [15 * 60_000, 60 * 60_000, 3 * 3600_000],
  jitter: 0.1,
  retryOn: ['failed', 'unknown'],
};

export const stripeEvents: EventsDeclaration = {
  rules: STRIPE_EVENT_RULES,
  envelope: {
    id: '$id',
    object: 'event',
    api_version: '$apiVersion',
    created: '$created',
    data: { object: '$stripeObject', previous_attributes: '$previousAttributes' },
    livemode: false,
    pending_webhooks: '$endpointCount',
    request: '$request',
    type: '$type',
  },
  values: (ctx) => ({
    apiVersion: STRIPE_API_VERSION,
    // Stripe writes id and object first, then the other keys alphabetically (as the log keeps them).
    // A deleted object (customer.deleted) is rendered as it was just before the delete.
    stripeObject: ordered(
      (ctx.subject?.deleted === true ? ctx.previous : ctx.subject?.fields) ?? {},
      ['id', 'object'],
    ),
    // Only *.updated events carry previous_attributes; a payment intent's state change does not.
    previousAttributes: ctx.eventType.endsWith('.updated')
      ? previousAttributes(ctx.previous, ctx.entry.fields)
      : undefined,
    request: eventRequest(ctx.entry.projection),
  }),
  eventIdPrefix: 'evt_',
  endpoints: [
    {
      type: 'webhook_endpoint',
      urlField: 'url',
      secretRefField: 'secret_ref',
      eventsField: 'enabled_events',
      enabledWhen: { field: 'status', value: 'enabled' },
      disabledValue: 'disabled',
    },
  ],
  signing: 'stripe',
  recordType: 'webhook_delivery',
  retry: STRIPE_TEST_MODE_RETRY,
  health: STRIPE_HEALTH,
  // Observed on real deliveries; no verifier checks them.
  headers: () => ({
    'content-type': 'application/json; charset=utf-8',
    'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    Accept: '*/*; q=0.5, application/xml',
    'Cache-Control': 'no-cache',
  }),
};

export const stripePack: VendorPack = {
  name: 'stripe',
  description:
    'Stripe: customers, payments and charges, catalog, subscriptions and invoices on the world clock, Checkout, with signed Event objects',
  indexes: [
    { type: API_REQUEST, name: IDEMPOTENCY_INDEX, field: 'idempotency_key' },
    // Billing on the clock finds its due work through these (billing-clock.ts).
    { type: 'subscription', name: STATUS_INDEX, field: 'status' },
    { type: 'invoice', name: STATUS_INDEX, field: 'status' },
    { type: 'checkout_session', name: STATUS_INDEX, field: 'status' },
    { type: 'invoice_payment', name: INVOICE_PAYMENT_INDEX, field: 'invoice' },
    // A confirmed payment intent finds the invoice it pays (invoice-intent-confirmation.ts).
    { type: 'invoice_payment', name: INVOICE_PAYMENT_BY_INTENT, field: 'payment.payment_intent' },
  ],
  events: stripeEvents,
  scenarios,
  scenarioKeys,
  cli: stripeCli,
  idShapes: stripeIdShapes,
  retireEndpoint: (twin, _kind, id) => updateWebhookEndpoint(twin, id, { disabled: true }),
};
