// Stripe's webhook signature (`Stripe-Signature: t=<ts>,v1=<hex>`), so twin deliveries pass
// stripe-node's constructEvent and real Stripe-style packets pass our ingress.
// Trap: the HMAC key is the whole `whsec_…` string as UTF-8, unlike Standard Webhooks' decoded key.

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
  type SignRequest,
  type SigningScheme,
  type VerifiedPacket,
  type VerifyRequest,
} from './scheme.js';

const HEADER = 'Stripe-Signature';

function stripeMac(secret: string, timestamp: string, body: string | Uint8Array): string {
  return hmacSha256(secret, timestamp, '.', body).toString('hex');
}

export const stripeScheme: SigningScheme = {
  name: 'stripe',

  sign(req: SignRequest): Record<string, string> {
    checkSignRequest('stripe', req);
    const t = String(req.timestampSec);
    // One v1 per active secret, as Stripe does while a secret rolls. stripe-node splits on ','
    // with no trimming, so a space after the comma would hide a v1.
    return {
      [HEADER]: `t=${t},${req.secrets.map((secret) => `v1=${stripeMac(secret, t, req.body)}`).join(',')}`,
    };
  },

  verify(req: VerifyRequest): VerifiedPacket {
    const { rawBody, secrets, nowSec, toleranceSec } = checkVerifyRequest('stripe', req);
    const values = headerValues(req.headers, HEADER);
    if (values.length === 0) throw missingHeader('stripe', HEADER);

    const timestamps = new Set<string>();
    const v1: string[] = [];
    for (const element of values.join(',').split(',')) {
      const eq = element.indexOf('=');
      if (eq < 0) continue;
      const prefix = element.slice(0, eq).trim();
      const value = element.slice(eq + 1).trim();
      if (prefix === 't') timestamps.add(value);
      // Only v1 counts: test-mode v0 entries are decoys and accepting them would allow downgrades.
      else if (prefix === 'v1') v1.push(value);
    }
    if (timestamps.size !== 1) {
      throw badSignature(
        'stripe',
        HEADER,
        timestamps.size === 0
          ? `${HEADER} has no t=<timestamp> element.`
          : `${HEADER} carries ${timestamps.size} different t= elements; refusing an ambiguous packet.`,
      );
    }
    if (v1.length === 0) throw badSignature('stripe', HEADER, `${HEADER} has no v1= signature.`);
    const t = [...timestamps][0] as string;
    const timestampSec = parseTimestampHeader('stripe', HEADER, t);

    const expected = secrets.map((secret) => stripeMac(secret, t, rawBody));
    if (!anyMatch(expected, v1)) {
      throw badSignature(
        'stripe',
        HEADER,
        `no v1 signature in ${HEADER} matches the body under any configured secret.`,
      );
    }
    // Freshness after the MAC: an unauthenticated timestamp says nothing about the packet's age.
    checkFreshness('stripe', HEADER, timestampSec, nowSec, toleranceSec);
    return { timestampSec };
  },
};
