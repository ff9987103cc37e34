// The built-in vendor packs. Each namespace holds a pack's declaration (`.pack`), its
// operations (e.g. stripe.createCustomer) and its scenarios.
export * as stripe from './stripe/index.js';
export * as github from './github/index.js';
export * as slack from './slack/index.js';
export * as standardWebhooks from './standard-webhooks/index.js';
export {
  sendEvent,
  listSendable,
  type SendOptions,
  type SendResult,
  type Sendable,
} from './send.js';
export { VendorError, isVendorError, type VendorErrorKind } from './kit/errors.js';
export type {
  VendorPack,
  Scenario,
  ScenarioContext,
  ScenarioResult,
  SendTarget,
  IdShapes,
} from './kit/vendor-pack.js';
export { builtInPacks } from './built-in.js';
