// The Standard Webhooks pack: a factory for any app's sender, and the built-in one.
export {
  standardWebhooksPack as pack,
  createStandardWebhooksPack,
  SVIX_RETRY,
  type StandardWebhooksPackOptions,
} from './pack.js';
export {
  createEndpoint,
  updateEndpoint,
  deleteEndpoint,
  rotateEndpointSecret,
  DEFAULT_ROTATION_GRACE_MS,
  type SwEndpoint,
  type CreateEndpointInput,
} from './endpoints.js';
export { sendMessage, type SwMessage } from './messages.js';
export {
  createOperationalEndpoint,
  OPERATIONAL_TYPES,
  type SwOperationalEndpoint,
} from './operational.js';
export { swIdShapes as idShapes } from './ids.js';
