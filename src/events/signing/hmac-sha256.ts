// Plain HMAC-SHA256 for twins of vendors without a verifier of their own. Convention (reference §5.4,
// families 1+3): `X-Timestamp: <ts>`, `X-Signature: sha256=<hex HMAC(secret, "<ts>.<body>")>`; the
// timestamp is inside the MAC because a replayer could otherwise rewrite it and defeat the window.

import { hmacSha256 } from './scheme.js';
import { timestampedHmacScheme } from './timestamped-hmac.js';

export const hmacSha256Scheme = timestampedHmacScheme({
  name: 'hmac-sha256',
  signatureHeader: 'X-Signature',
  timestampHeader: 'X-Timestamp',
  prefix: 'sha256=',
  signature: (secret, ts, body) => `sha256=${hmacSha256(secret, ts, '.', body).toString('hex')}`,
});
