// The Stripe pack: its declaration, operations and scenarios.
export {
  stripePack as pack,
  stripeEvents as events,
  STRIPE_API_VERSION,
  STRIPE_TEST_MODE_RETRY,
} from './pack.js';
export {
  createCustomer,
  updateCustomer,
  deleteCustomer,
  getCustomer,
  type StripeCustomer,
  type CustomerInput,
  type InvoiceSettings,
} from './customers.js';
export {
  createWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  type StripeWebhookEndpoint,
  type CreateWebhookEndpointInput,
  type UpdateWebhookEndpointInput,
} from './webhook-endpoints.js';
export {
  createPaymentIntent,
  confirmPaymentIntent,
  cancelPaymentIntent,
  getPaymentIntent,
  DECLINING_TEST_METHODS,
  type StripePaymentIntent,
  type PaymentIntentStatus,
  type CreatePaymentIntentInput,
  type ConfirmPaymentIntentInput,
} from './payment-intents.js';
export {
  updatePaymentIntent,
  capturePaymentIntent,
  type UpdatePaymentIntentInput,
  type CapturePaymentIntentInput,
} from './payment-intent-changes.js';
export {
  createSetupIntent,
  confirmSetupIntent,
  cancelSetupIntent,
  getSetupIntent,
  type StripeSetupIntent,
  type CreateSetupIntentInput,
} from './setup-intents.js';
export { finalizeInvoice, payInvoice, previewInvoice } from './invoice-actions.js';
export { TEST_CARDS, type TestCard } from './cards.js';
export {
  attachPaymentMethod,
  detachPaymentMethod,
  getPaymentMethod,
  type StripePaymentMethod,
  type StripeBankAccountMethod,
  type AttachPaymentMethodInput,
} from './payment-methods.js';
export type { StripeCharge } from './charges.js';
export {
  refundCharge,
  disputeCharge,
  type StripeRefund,
  type StripeDispute,
  type RefundInput,
} from './refunds-disputes.js';
export {
  createProduct,
  createPrice,
  type StripeProduct,
  type StripePrice,
  type CreateProductInput,
  type CreatePriceInput,
  type Interval,
} from './catalog.js';
export {
  createSubscription,
  updateSubscription,
  cancelSubscription,
  getSubscription,
  getInvoice,
  type CreateSubscriptionInput,
  type UpdateSubscriptionInput,
} from './subscriptions.js';
export type {
  StripeSubscription,
  StripeSubscriptionItem,
  SubscriptionStatus,
} from './subscription-objects.js';
export type {
  StripeInvoice,
  StripeLineItem,
  StripeInvoicePayment,
  InvoiceStatus,
} from './invoice-objects.js';
export { RETRY_SCHEDULE_DAYS } from './invoice-stages.js';
export {
  advanceBilling,
  billingDueAt,
  advanceWithBilling,
  dueWork,
  NOTICE_DAYS,
  FINALIZE_AFTER_SEC,
  type DueWork,
  type BillingStep,
  type BillingWalk,
} from './billing-clock.js';
export {
  createCheckoutSession,
  completeCheckoutSession,
  settleCheckoutSession,
  expireCheckoutSession,
  getCheckoutSession,
  type StripeCheckoutSession,
  type CreateCheckoutSessionInput,
  type CompleteCheckoutInput,
} from './checkout-sessions.js';
export {
  subscriptionMonth,
  type SubscriptionMonthOptions,
  type SubscriptionMonthResult,
} from './subscription-month.js';
export type { RequestOptions } from './api-requests.js';
export { STRIPE_EVENT_TYPES } from './event-types.js';
export { stripeIdShapes as idShapes } from './ids.js';
export { scenarios } from './scenarios.js';
