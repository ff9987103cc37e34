// Lookups the API needs beyond the pack's own. Lists read ordered indexes (newest first by
// `created`, ties in creation order) a page at a time, one index per filter a list takes, so a page
// never reads the objects it does not show; events.retrieve finds a delivery record by event id.
import type { IndexDeclaration } from '../../../src/index.js';

export const BY_EVENT = 'surface_event';
/** Every object of a type (keyed by its `object`, the same for all), newest first. */
export const ALL = 'surface_all';
export const BY_EMAIL = 'surface_email_created';
export const BY_CUSTOMER = 'surface_customer_created';
export const BY_PRODUCT = 'surface_product_created';
export const BY_LOOKUP_KEY = 'surface_lookup_key_created';
export const BY_SUBSCRIPTION = 'surface_subscription_created';
export const BY_PAYMENT_INTENT = 'surface_payment_intent_created';
export const BY_CHARGE = 'surface_charge_created';
export const BY_PAYMENT_METHOD = 'surface_payment_method_created';
/** Delivery records to webhook endpoints (each event once per endpoint), by when they were made. */
export const EVENTS = 'surface_events_created';

/** The `object` of a type where it is not the type's own name (the key its ALL index lists under). */
export const OBJECT_OF: Readonly<Record<string, string>> = {
  checkout_session: 'checkout.session',
  test_clock: 'test_helpers.test_clock',
};

const LISTED = [
  'customer',
  'product',
  'price',
  'subscription',
  'checkout_session',
  'invoice',
  'payment_intent',
  'charge',
  'refund',
  'payment_method',
  'setup_intent',
  'webhook_endpoint',
  'test_clock',
];
const WITH_CUSTOMER = [
  'subscription',
  'checkout_session',
  'invoice',
  'payment_intent',
  'charge',
  'payment_method',
  'setup_intent',
];

const ordered = (type: string, name: string, field: string): IndexDeclaration => ({
  type,
  name,
  field,
  orderBy: 'created',
});

export const SURFACE_INDEXES: readonly IndexDeclaration[] = [
  ...LISTED.map((type) => ordered(type, ALL, 'object')),
  ...WITH_CUSTOMER.map((type) => ordered(type, BY_CUSTOMER, 'customer')),
  ordered('customer', BY_EMAIL, 'email'),
  ordered('price', BY_PRODUCT, 'product'),
  ordered('price', BY_LOOKUP_KEY, 'lookup_key'),
  ordered('invoice', BY_SUBSCRIPTION, 'parent.subscription_details.subscription'),
  ordered('charge', BY_PAYMENT_INTENT, 'payment_intent'),
  ordered('refund', BY_PAYMENT_INTENT, 'payment_intent'),
  ordered('refund', BY_CHARGE, 'charge'),
  ordered('setup_intent', BY_PAYMENT_METHOD, 'payment_method'),
  { type: 'webhook_delivery', name: BY_EVENT, field: 'eventId' },
  { type: 'webhook_delivery', name: EVENTS, field: 'endpointKind', orderBy: 'createdAt' },
];
