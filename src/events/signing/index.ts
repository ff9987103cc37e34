// Public surface of webhook signing: the scheme contract, the registry, and each vendor scheme.

export {
  DEFAULT_TOLERANCE_SEC,
  SCHEME_NAMES,
  isSchemeName,
  type SchemeName,
  type SignRequest,
  type SigningScheme,
  type VerifiedPacket,
  type VerifyRequest,
} from './scheme.js';
export { getScheme } from './registry.js';
export { stripeScheme } from './stripe.js';
export { githubScheme } from './github.js';
export { slackScheme } from './slack.js';
export { standardWebhooksScheme, decodeStandardWebhooksSecret } from './standard-webhooks.js';
export {
  hmacSha256Scheme,
  HMAC_DELIVERY_HEADER,
  HMAC_SIGNATURE_HEADER,
  HMAC_TIMESTAMP_HEADER,
} from './hmac-sha256.js';
