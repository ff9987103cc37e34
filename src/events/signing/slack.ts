// Slack's request signature (`X-Slack-Signature: v0=<hex>` of `v0:<ts>:<body>` with
// `X-Slack-Request-Timestamp`), so twin deliveries pass Bolt's verifySlackRequest.

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

const SIGNATURE = 'X-Slack-Signature';
const TIMESTAMP = 'X-Slack-Request-Timestamp';

function slackSignature(secret: string, timestamp: string, body: string | Uint8Array): string {
  // The timestamp goes in exactly as it appears in the header, not re-formatted.
  return `v0=${hmacSha256(secret, 'v0:', timestamp, ':', body).toString('hex')}`;
}

export const slackScheme: SigningScheme = {
  name: 'slack',

  sign(req: SignRequest): Record<string, string> {
    checkSignRequest('slack', req);
    const ts = String(req.timestampSec);
    return {
      [SIGNATURE]: slackSignature(req.secrets[0] as string, ts, req.body),
      [TIMESTAMP]: ts,
    };
  },

  verify(req: VerifyRequest): VerifiedPacket {
    const { rawBody, secrets, nowSec, toleranceSec } = checkVerifyRequest('slack', req);
    const signatures = headerValues(req.headers, SIGNATURE).map((v) => v.trim());
    if (signatures.length === 0) throw missingHeader('slack', SIGNATURE);
    const ts = singleHeader('slack', req.headers, TIMESTAMP);
    const timestampSec = parseTimestampHeader('slack', TIMESTAMP, ts);
    if (!signatures.some((s) => s.startsWith('v0='))) {
      throw badSignature('slack', SIGNATURE, `${SIGNATURE} must look like v0=<hex>.`);
    }
    const expected = secrets.map((secret) => slackSignature(secret, ts, rawBody));
    if (!anyMatch(expected, signatures)) {
      throw badSignature('slack', SIGNATURE, `${SIGNATURE} does not match the timestamp and body under any configured secret.`);
    }
    checkFreshness('slack', TIMESTAMP, timestampSec, nowSec, toleranceSec);
    return { timestampSec };
  },
};
