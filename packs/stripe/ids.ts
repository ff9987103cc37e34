// Stripe-shaped ids (prefix + base62, lengths as in Stripe's docs) and the shapes the
// conformance suite checks them against.
import type { IdSource } from '../../src/index.js';
import type { IdShapes } from '../kit/vendor-pack.js';

export const stripeIds = {
  customer: (ids: IdSource) => ids.vendorId('cus', 14),
  webhookEndpoint: (ids: IdSource) => ids.vendorId('we', 24),
  paymentIntent: (ids: IdSource) => ids.vendorId('pi', 24),
  paymentMethod: (ids: IdSource) => ids.vendorId('pm', 24),
  setupIntent: (ids: IdSource) => ids.vendorId('seti', 24),
  charge: (ids: IdSource) => ids.vendorId('ch', 24),
  refund: (ids: IdSource) => ids.vendorId('re', 24),
  dispute: (ids: IdSource) => ids.vendorId('du', 24),
  product: (ids: IdSource) => ids.vendorId('prod', 14),
  price: (ids: IdSource) => ids.vendorId('price', 24),
  subscription: (ids: IdSource) => ids.vendorId('sub', 24),
  subscriptionItem: (ids: IdSource) => ids.vendorId('si', 14),
  invoice: (ids: IdSource) => ids.vendorId('in', 24),
  invoiceLineItem: (ids: IdSource) => ids.vendorId('il', 24),
  invoicePayment: (ids: IdSource) => ids.vendorId('inpay', 24),
  /** What Stripe's invoice previews (the object of invoice.upcoming) are called. */
  upcomingInvoice: (ids: IdSource) => ids.vendorId('upcoming_in', 24),
  checkoutSession: (ids: IdSource) => ids.vendorId('cs_test', 58),
  request: (ids: IdSource) => ids.vendorId('req', 14),
  /** The part after `<object id>_secret_` in a client_secret. */
  clientSecretTail: (ids: IdSource) => ids.vendorId('secret', 25),
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
    payment_method: /^pm_[0-9A-Za-z]{24}$/,
    setup_intent: /^seti_[0-9A-Za-z]{24}$/,
    charge: /^ch_[0-9A-Za-z]{24}$/,
    refund: /^re_[0-9A-Za-z]{24}$/,
    dispute: /^du_[0-9A-Za-z]{24}$/,
    product: /^prod_[0-9A-Za-z]{14}$/,
    price: /^price_[0-9A-Za-z]{24}$/,
    subscription: /^sub_[0-9A-Za-z]{24}$/,
    invoice: /^in_[0-9A-Za-z]{24}$/,
    invoice_payment: /^inpay_[0-9A-Za-z]{24}$/,
    upcoming_invoice: /^upcoming_in_[0-9A-Za-z]{24}$/,
    checkout_session: /^cs_test_[0-9A-Za-z]{58}$/,
    billing_notice: /^(trial_will_end|invoice_upcoming):sub_[0-9A-Za-z]{24}:\d+$/,
    api_request: /^req_[0-9A-Za-z]{14}$/,
  },
};
