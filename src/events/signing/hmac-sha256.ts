// Plain HMAC-SHA256 for twins of vendors without a verifier of their own — twinworld's own
// scheme, so it is versioned in the signature value and receivers know what was signed:
//
//   v2 (sent):     X-Delivery-Id: <id>, X-Timestamp: <ts>,
//                  X-Signature: v2=<hex HMAC(secret, "v2.<id>.<ts>.<body>")>
//   v1 (accepted): X-Timestamp: <ts>, X-Signature: sha256=<hex HMAC(secret, "<ts>.<body>")>
//
// v2 signs the delivery id, so a captured packet resent under a new id no longer verifies, and a
// replay inside the timestamp window is a duplicate of its id. v1 signs no id: a receiver can only
// dedupe a v1 packet on what it signs (timestamp and body) — the ingress does, see
// src/triggers/README.md. The "v2." prefix keeps a v1 MAC from ever verifying as v2 (a v1 input
// starts with digits); ids are limited to [A-Za-z0-9_:-] so "<id>.<ts>" splits one way only.

import { TwinError } from '../../errors.js';
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

export const HMAC_SIGNATURE_HEADER = 'X-Signature';
export const HMAC_TIMESTAMP_HEADER = 'X-Timestamp';
/** Signed from v2 on; a v1 sender's X-Delivery-Id is outside its MAC. */
export const HMAC_DELIVERY_HEADER = 'X-Delivery-Id';
const V1 = 'sha256=';
const V2 = 'v2=';
const DELIVERY_ID = /^[A-Za-z0-9_:-]{1,256}$/;

function v1(secret: string, ts: string, body: string | Uint8Array): string {
  return `${V1}${hmacSha256(secret, ts, '.', body).toString('hex')}`;
}

function v2(secret: string, id: string, ts: string, body: string | Uint8Array): string {
  return `${V2}${hmacSha256(secret, 'v2.', id, '.', ts, '.', body).toString('hex')}`;
}

export const hmacSha256Scheme: SigningScheme = {
  name: 'hmac-sha256',

  sign(req: SignRequest): Record<string, string> {
    checkSignRequest('hmac-sha256', req);
    if (!DELIVERY_ID.test(req.messageId)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'hmac-sha256: messageId must be 1–256 characters of A–Z a–z 0–9 _ : - (it is signed as the delivery id)',
        { path: 'messageId' },
      );
    }
    const ts = String(req.timestampSec);
    return {
      [HMAC_DELIVERY_HEADER]: req.messageId,
      [HMAC_SIGNATURE_HEADER]: v2(req.secrets[0] as string, req.messageId, ts, req.body),
      [HMAC_TIMESTAMP_HEADER]: ts,
    };
  },

  verify(req: VerifyRequest): VerifiedPacket {
    const { rawBody, secrets, nowSec, toleranceSec } = checkVerifyRequest('hmac-sha256', req);
    const signatures = headerValues(req.headers, HMAC_SIGNATURE_HEADER).map((v) => v.trim());
    if (signatures.length === 0) throw missingHeader('hmac-sha256', HMAC_SIGNATURE_HEADER);
    const ts = singleHeader('hmac-sha256', req.headers, HMAC_TIMESTAMP_HEADER);
    const timestampSec = parseTimestampHeader('hmac-sha256', HMAC_TIMESTAMP_HEADER, ts);
    const versioned = signatures.filter((s) => s.startsWith(V2));
    if (versioned.length > 0) {
      const id = singleHeader('hmac-sha256', req.headers, HMAC_DELIVERY_HEADER);
      if (!DELIVERY_ID.test(id))
        throw badSignature(
          'hmac-sha256',
          HMAC_DELIVERY_HEADER,
          `${HMAC_DELIVERY_HEADER} must be 1–256 characters of A–Z a–z 0–9 _ : - in a v2 packet.`,
        );
      const expected = secrets.map((secret) => v2(secret, id, ts, rawBody));
      if (!anyMatch(expected, versioned)) {
        throw badSignature(
          'hmac-sha256',
          HMAC_SIGNATURE_HEADER,
          `${HMAC_SIGNATURE_HEADER} v2 does not match the delivery id, timestamp and body under any configured secret.`,
        );
      }
      checkFreshness('hmac-sha256', HMAC_TIMESTAMP_HEADER, timestampSec, nowSec, toleranceSec);
      return { timestampSec, messageId: id, version: 2 };
    }
    const legacy = signatures.filter((s) => s.startsWith(V1));
    if (legacy.length === 0) {
      throw badSignature(
        'hmac-sha256',
        HMAC_SIGNATURE_HEADER,
        `${HMAC_SIGNATURE_HEADER} must look like v2=<hex> (or sha256=<hex> from a v1 sender).`,
      );
    }
    const expected = secrets.map((secret) => v1(secret, ts, rawBody));
    if (!anyMatch(expected, legacy)) {
      throw badSignature(
        'hmac-sha256',
        HMAC_SIGNATURE_HEADER,
        `${HMAC_SIGNATURE_HEADER} does not match the timestamp and body under any configured secret.`,
      );
    }
    checkFreshness('hmac-sha256', HMAC_TIMESTAMP_HEADER, timestampSec, nowSec, toleranceSec);
    return { timestampSec, version: 1 };
  },
};
