// Plain HMAC-SHA256 for twins of vendors without a verifier of their own. Convention (reference §5.4,
// families 1+3): `X-Timestamp: <ts>`, `X-Signature: sha256=<hex HMAC(secret, "<ts>.<body>")>`; the
// timestamp is inside the MAC because a replayer could otherwise rewrite it and defeat the window.

import {
  anyMatch,
  badSignature,
  checkFreshness,
  checkSignRequest,
  checkVerifyRequest,
  headerValues,
  hmacSha256,
  missingHeader,
  parseTimestampHeader,
  singleHeader,
  type SignRequest,
  type SigningScheme,
  type VerifiedPacket,
  type VerifyRequest,
} from './scheme.js';

const SIGNATURE = 'X-Signature';
const TIMESTAMP = 'X-Timestamp';

function plainSignature(secret: string, ts: string, body: string | Uint8Array): string {
  return `sha256=${hmacSha256(secret, ts, '.', body).toString('hex')}`;
}

export const hmacSha256Scheme: SigningScheme = {
  name: 'hmac-sha256',

  sign(req: SignRequest): Record<string, string> {
    checkSignRequest('hmac-sha256', req);
    const ts = String(req.timestampSec);
    return {
      [SIGNATURE]: plainSignature(req.secrets[0] as string, ts, req.body),
      [TIMESTAMP]: ts,
    };
  },

  verify(req: VerifyRequest): VerifiedPacket {
    const { rawBody, secrets, nowSec, toleranceSec } = checkVerifyRequest('hmac-sha256', req);
    const signatures = headerValues(req.headers, SIGNATURE).map((v) => v.trim());
    if (signatures.length === 0) throw missingHeader('hmac-sha256', SIGNATURE);
    const ts = singleHeader('hmac-sha256', req.headers, TIMESTAMP);
    const timestampSec = parseTimestampHeader('hmac-sha256', TIMESTAMP, ts);
    if (!signatures.some((s) => s.startsWith('sha256='))) {
      throw badSignature('hmac-sha256', SIGNATURE, `${SIGNATURE} must look like sha256=<hex>.`);
    }
    const expected = secrets.map((secret) => plainSignature(secret, ts, rawBody));
    if (!anyMatch(expected, signatures)) {
      throw badSignature('hmac-sha256', SIGNATURE, `${SIGNATURE} does not match the timestamp and body under any configured secret.`);
    }
    checkFreshness('hmac-sha256', TIMESTAMP, timestampSec, nowSec, toleranceSec);
    return { timestampSec };
  },
};
