// The Stripe pack: its declaration, operations and scenarios.
export { stripePack as pack, stripeEvents as events, STRIPE_API_VERSION, STRIPE_TEST_MODE_RETRY } from './pack.js';
export { createCustomer, updateCustomer, deleteCustomer, getCustomer, type StripeCustomer, type CustomerInput } from './customers.js';
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
export type { RequestOptions } from './api-requests.js';
export { STRIPE_EVENT_TYPES } from './event-types.js';
export { stripeIdShapes as idShapes } from './ids.js';
export { scenarios } from './scenarios.js';
