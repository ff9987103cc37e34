// Slack's request signature (`X-Slack-Signature: v0=<hex>` of `v0:<ts>:<body>` with
// `X-Slack-Request-Timestamp`), so twin deliveries pass Bolt's verifySlackRequest.

import { hmacSha256 } from './scheme.js';
import { timestampedHmacScheme } from './timestamped-hmac.js';

export const slackScheme = timestampedHmacScheme({
  name: 'slack',
  signatureHeader: 'X-Slack-Signature',
  timestampHeader: 'X-Slack-Request-Timestamp',
  prefix: 'v0=',
  // The timestamp goes in exactly as it appears in the header, not re-formatted.
  signature: (secret, ts, body) => `v0=${hmacSha256(secret, 'v0:', ts, ':', body).toString('hex')}`,
});
