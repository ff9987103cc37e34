// The Standard Webhooks scheme (also Svix's): HMAC over `<id>.<ts>.<body>`, sent as a
// space-separated `v1,<base64>` list with one entry per active secret, so rotation is seamless.
// Trap: the key is the base64-DECODED part after `whsec_`, unlike Stripe's whole-string key.

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

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Decodes `whsec_<base64>` into the HMAC key. Node's base64 decoder silently skips junk, so the
 * text must round-trip exactly; otherwise a typo would yield a different key and every packet
 * would fail downstream with a confusing BAD_SIGNATURE.
 */
export function decodeStandardWebhooksSecret(secret: string, path: string): Buffer {
  const problem = (why: string) =>
    new TwinError(
      'INVALID_ARGUMENT',
      `standard-webhooks: ${path} ${why}; expected "whsec_" followed by standard base64 (the value is not shown).`,
      { path },
    );
  if (!secret.startsWith(SECRET_PREFIX)) throw problem('does not start with "whsec_"');
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (encoded === '') throw problem('has nothing after "whsec_"');
  if (!BASE64.test(encoded)) throw problem('is not base64 after "whsec_"');
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || key.toString('base64') !== encoded) {
    throw problem('is not canonical padded base64 after "whsec_"');
  }
  return key;
}

function decodeAll(secrets: readonly string[]): Buffer[] {
  return secrets.map((secret, i) => decodeStandardWebhooksSecret(secret, `secrets[${i}]`));
}

function signature(key: Uint8Array, id: string, ts: string, body: string | Uint8Array): string {
  return hmacSha256(key, id, '.', ts, '.', body).toString('base64');
}

/** Svix white-labels to webhook-*; receivers of default Svix traffic see svix-* instead. */
const HEADER_SETS = [
  { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' },
  { id: 'svix-id', timestamp: 'svix-timestamp', signature: 'svix-signature' },
] as const;

export const standardWebhooksScheme: SigningScheme = {
  name: 'standard-webhooks',

  sign(req: SignRequest): Record<string, string> {
    checkSignRequest('standard-webhooks', req);
    const keys = decodeAll(req.secrets);
    // The id is part of the dot-joined signed content and a header value, so it must be a
    // non-empty token without dots or whitespace.
    if (!/^[\x21-\x7e]+$/.test(req.messageId) || req.messageId.includes('.')) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        'standard-webhooks: messageId must be non-empty printable ASCII without "." or whitespace (it becomes webhook-id and is part of the signed content).',
        { path: 'messageId' },
      );
    }
    const ts = String(req.timestampSec);
    return {
      'webhook-id': req.messageId,
      'webhook-timestamp': ts,
      // One entry per secret, single-space separated: comma-joined lists fail the official verifiers.
      'webhook-signature': keys
        .map((key) => `v1,${signature(key, req.messageId, ts, req.body)}`)
        .join(' '),
    };
  },

  verify(req: VerifyRequest): VerifiedPacket {
    const { rawBody, secrets, nowSec, toleranceSec } = checkVerifyRequest('standard-webhooks', req);
    const keys = decodeAll(secrets);
    const names =
      HEADER_SETS.find((set) => headerValues(req.headers, set.signature).length > 0) ??
      HEADER_SETS.find((set) => headerValues(req.headers, set.id).length > 0) ??
      HEADER_SETS[0];

    const id = singleHeader('standard-webhooks', req.headers, names.id);
    const ts = singleHeader('standard-webhooks', req.headers, names.timestamp);
    const signatures = headerValues(req.headers, names.signature);
    if (signatures.length === 0) throw missingHeader('standard-webhooks', names.signature);
    const timestampSec = parseTimestampHeader('standard-webhooks', names.timestamp, ts);

    const v1: string[] = [];
    for (const entry of signatures.join(' ').split(/\s+/)) {
      const comma = entry.indexOf(',');
      // Other versions (v1a is ed25519) are skipped rather than failed, as the spec requires.
      if (comma > 0 && entry.slice(0, comma) === 'v1') v1.push(entry.slice(comma + 1));
    }
    if (v1.length === 0) {
      throw badSignature(
        'standard-webhooks',
        names.signature,
        `${names.signature} has no v1,<base64> entry.`,
      );
    }
    const expected = keys.map((key) => signature(key, id, ts, rawBody));
    if (!anyMatch(expected, v1)) {
      throw badSignature(
        'standard-webhooks',
        names.signature,
        `no v1 entry in ${names.signature} matches the id, timestamp and body under any configured secret.`,
      );
    }
    checkFreshness('standard-webhooks', names.timestamp, timestampSec, nowSec, toleranceSec);
    return { timestampSec, messageId: id };
  },
};
