// The contract every webhook signing scheme fulfils, so the outgoing dispatcher and the incoming
// ingress can pick a vendor's wire format by name, plus the argument checks and crypto primitives
// the schemes share (so every scheme refuses bad input, and compares MACs, the same way).

import { createHmac, timingSafeEqual } from 'node:crypto';
import { TwinError } from '../../errors.js';

export interface SignRequest {
  /** The exact bytes (as a UTF-8 string) that will be POSTed; never re-serialise after signing. */
  body: string;
  /** One or more secrets; several only while a secret rotates. */
  secrets: readonly string[];
  /** Signature time, integer seconds since the epoch, from the transport's clock. */
  timestampSec: number;
  /** Delivery/message id (standard-webhooks `webhook-id`; other schemes may ignore it). */
  messageId: string;
}

export interface VerifyRequest {
  /** Header names in any casing. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  rawBody: string | Uint8Array;
  /** Any one matching secret is enough. */
  secrets: readonly string[];
  nowSec: number;
  /** Allowed distance between the signed timestamp and `nowSec`, both directions. Default 300. */
  toleranceSec?: number;
}

/** Only values that were covered by the signature. */
export interface VerifiedPacket {
  timestampSec?: number;
  messageId?: string;
  /** The version of a versioned scheme that signed it (hmac-sha256: 1 signs no id, 2 does). */
  version?: number;
}

export type SchemeName = 'stripe' | 'github' | 'slack' | 'standard-webhooks' | 'hmac-sha256';

export interface SigningScheme {
  readonly name: SchemeName;
  /** The signature headers to add, named and cased as the vendor sends them. */
  sign(req: SignRequest): Record<string, string>;
  /** Throws TwinError MISSING_HEADER / STALE_TIMESTAMP / BAD_SIGNATURE (INVALID_ARGUMENT for bad input). */
  verify(req: VerifyRequest): VerifiedPacket;
}

export const SCHEME_NAMES: readonly SchemeName[] = [
  'stripe',
  'github',
  'slack',
  'standard-webhooks',
  'hmac-sha256',
];

export const DEFAULT_TOLERANCE_SEC = 300;

export function isSchemeName(value: unknown): value is SchemeName {
  return typeof value === 'string' && (SCHEME_NAMES as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------
// Argument checks. Messages name the field (and index) but never echo a secret's value.

function invalid(path: string, message: string): TwinError {
  return new TwinError('INVALID_ARGUMENT', message, { path });
}

function checkSecrets(scheme: SchemeName, secrets: unknown): readonly string[] {
  if (!Array.isArray(secrets)) {
    throw invalid('secrets', `${scheme}: secrets must be an array of strings.`);
  }
  if (secrets.length === 0) {
    throw invalid('secrets', `${scheme}: secrets is empty; pass at least one signing secret.`);
  }
  secrets.forEach((secret: unknown, i) => {
    if (typeof secret !== 'string') {
      throw invalid(
        `secrets[${i}]`,
        `${scheme}: secrets[${i}] must be a string, got ${typeOf(secret)}.`,
      );
    }
    if (secret.trim() === '') {
      throw invalid(`secrets[${i}]`, `${scheme}: secrets[${i}] is empty or only whitespace.`);
    }
  });
  return secrets as readonly string[];
}

export function checkSignRequest(scheme: SchemeName, req: SignRequest): void {
  if (req === null || typeof req !== 'object') {
    throw invalid('', `${scheme}: sign() needs a request object.`);
  }
  if (typeof req.body !== 'string') {
    throw invalid(
      'body',
      `${scheme}: body must be the exact string that will be sent, got ${typeOf(req.body)}; serialise once and sign that string.`,
    );
  }
  checkSecrets(scheme, req.secrets);
  if (!Number.isSafeInteger(req.timestampSec) || req.timestampSec < 0) {
    throw invalid(
      'timestampSec',
      `${scheme}: timestampSec must be a non-negative integer number of seconds since the epoch, got ${describe(req.timestampSec)}.`,
    );
  }
  if (typeof req.messageId !== 'string') {
    throw invalid(
      'messageId',
      `${scheme}: messageId must be a string, got ${typeOf(req.messageId)}.`,
    );
  }
}

export interface CheckedVerifyRequest {
  rawBody: Buffer;
  secrets: readonly string[];
  nowSec: number;
  toleranceSec: number;
}

export function checkVerifyRequest(scheme: SchemeName, req: VerifyRequest): CheckedVerifyRequest {
  if (req === null || typeof req !== 'object') {
    throw invalid('', `${scheme}: verify() needs a request object.`);
  }
  if (req.headers === null || typeof req.headers !== 'object') {
    throw invalid('headers', `${scheme}: headers must be an object of header name to value.`);
  }
  let rawBody: Buffer;
  if (typeof req.rawBody === 'string') {
    rawBody = Buffer.from(req.rawBody, 'utf8');
  } else if (req.rawBody instanceof Uint8Array) {
    rawBody = Buffer.from(req.rawBody.buffer, req.rawBody.byteOffset, req.rawBody.byteLength);
  } else {
    throw invalid(
      'rawBody',
      `${scheme}: rawBody must be the received bytes as a string or Uint8Array, got ${typeOf(req.rawBody)}; a parsed object cannot be verified.`,
    );
  }
  const secrets = checkSecrets(scheme, req.secrets);
  if (typeof req.nowSec !== 'number' || !Number.isFinite(req.nowSec)) {
    throw invalid(
      'nowSec',
      `${scheme}: nowSec must be a finite number of seconds since the epoch, got ${describe(req.nowSec)}.`,
    );
  }
  const toleranceSec = req.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (typeof toleranceSec !== 'number' || !Number.isFinite(toleranceSec) || toleranceSec < 0) {
    throw invalid(
      'toleranceSec',
      `${scheme}: toleranceSec must be a non-negative finite number of seconds, got ${describe(toleranceSec)}.`,
    );
  }
  return { rawBody, secrets, nowSec: req.nowSec, toleranceSec };
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeOf(value);
}

// ---------------------------------------------------------------------------------------------
// Headers.

/**
 * Every non-empty value of a header, whatever its casing and however often it repeats. Empty
 * strings count as absent: a header carrying nothing cannot authenticate anything.
 */
export function headerValues(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string[] {
  const wanted = name.toLowerCase();
  const out: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string' && v.trim() !== '') out.push(v);
    }
  }
  return out;
}

/** The one value of a single-valued header; repeated conflicting values are refused as ambiguous. */
export function singleHeader(
  scheme: SchemeName,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string {
  const values = [...new Set(headerValues(headers, name).map((v) => v.trim()))];
  if (values.length === 0) throw missingHeader(scheme, name);
  if (values.length > 1) {
    throw new TwinError(
      'BAD_SIGNATURE',
      `${scheme}: header ${name} was sent ${values.length} times with different values; refusing an ambiguous packet.`,
      { path: `headers.${name}` },
    );
  }
  return values[0] as string;
}

export function missingHeader(scheme: SchemeName, name: string): TwinError {
  return new TwinError(
    'MISSING_HEADER',
    `${scheme}: required header ${name} is missing or empty.`,
    {
      path: `headers.${name}`,
    },
  );
}

export function badSignature(scheme: SchemeName, header: string, message: string): TwinError {
  return new TwinError('BAD_SIGNATURE', `${scheme}: ${message}`, { path: `headers.${header}` });
}

// ---------------------------------------------------------------------------------------------
// Timestamps.

/** Vendors send integer seconds as plain decimal digits; anything else is a malformed header. */
export function parseTimestampHeader(scheme: SchemeName, header: string, value: string): number {
  const trimmed = value.trim();
  const n = Number(trimmed);
  if (!/^\d{1,15}$/.test(trimmed) || !Number.isSafeInteger(n)) {
    throw badSignature(
      scheme,
      header,
      `header ${header} must be integer Unix seconds, got ${JSON.stringify(value.slice(0, 40))}.`,
    );
  }
  return n;
}

/**
 * Symmetric window: the ingress refuses timestamps too far in the future as well as too old, even
 * though some vendor libraries only check age, because a future stamp extends a replay window.
 */
export function checkFreshness(
  scheme: SchemeName,
  header: string,
  timestampSec: number,
  nowSec: number,
  toleranceSec: number,
): void {
  const skew = nowSec - timestampSec;
  if (Math.abs(skew) <= toleranceSec) return;
  const direction = skew > 0 ? `${skew} s old` : `${-skew} s in the future`;
  throw new TwinError(
    'STALE_TIMESTAMP',
    `${scheme}: signed timestamp ${timestampSec} is ${direction}; the tolerance is ${toleranceSec} s.`,
    { path: `headers.${header}`, details: { timestampSec, nowSec, toleranceSec } },
  );
}

// ---------------------------------------------------------------------------------------------
// Crypto.

export function hmacSha256(
  key: string | Uint8Array,
  ...parts: ReadonlyArray<string | Uint8Array>
): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Constant-time equality of two signature strings. Only the length can leak, and the expected
 * length is public (it is fixed by the digest and encoding).
 */
function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** True when any candidate matches any expected value; every pair is compared, no early exit. */
export function anyMatch(expected: readonly string[], candidates: readonly string[]): boolean {
  let found = false;
  for (const e of expected) {
    for (const c of candidates) {
      if (safeEqual(e, c)) found = true;
    }
  }
  return found;
}
