// Stripe-shaped ids (prefix + base62, lengths as in Stripe's docs) and the shapes the
// conformance suite checks them against.
import type { IdSource } from '../../src/index.js';
import type { IdShapes } from '../kit/vendor-pack.js';

export const stripeIds = {
  customer: (ids: IdSource) => ids.vendorId('cus', 14),
  webhookEndpoint: (ids: IdSource) => ids.vendorId('we', 24),
  paymentIntent: (ids: IdSource) => ids.vendorId('pi', 24),
  paymentMethod: (ids: IdSource) => ids.vendorId('pm', 24),
  charge: (ids: IdSource) => ids.vendorId('ch', 24),
  request: (ids: IdSource) => ids.vendorId('req', 14),
  /** A webhook signing secret: `whsec_` + 32 base62; Stripe keys its HMAC with the whole string. */
  signingSecret: (ids: IdSource) => ids.vendorId('whsec', 32),
};

export const stripeIdShapes: IdShapes = {
  eventId: /^evt_[0-9A-Za-z]{24}$/,
  messageId: /^msg_[0-9A-Za-z]{24}$/,
  resources: {
    customer: /^cus_[0-9A-Za-z]{14}$/,
    webhook_endpoint: /^we_[0-9A-Za-z]{24}$/,
    payment_intent: /^pi_[0-9A-Za-z]{24}$/,
    charge: /^ch_[0-9A-Za-z]{24}$/,
    api_request: /^req_[0-9A-Za-z]{14}$/,
  },
};
