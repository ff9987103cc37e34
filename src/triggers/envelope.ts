// Trigger envelopes: the one shape every source (calendar, webhook ingress, custom host code)
// hands the engine. Validated field by field; the payload hash is always computed here, never
// taken from the caller, so dedupe compares what was actually received.
import { TwinError } from '../errors.js';
import { canonicalJson, sha256Hex } from '../log/canonical-json.js';
import { assertJson, isPlainObject, MAX_JSON_DEPTH, type JsonValue } from '../log/json-value.js';

export type SourceKind = 'calendar' | 'webhook' | 'custom';
export const SOURCE_KINDS: readonly SourceKind[] = ['calendar', 'webhook', 'custom'];

export interface TriggerSourceRef {
  readonly kind: SourceKind;
  /** Who sent it: 'cron', 'stripe', 'github', 'slack', a custom vendor name… */
  readonly provider: string;
}

/**
 * Times are ISO 8601 strings in UTC with milliseconds ('2026-03-08T07:00:00.000Z'), the form
 * every twin write uses; inputs with another offset are normalized to it.
 */
export interface TriggerEnvelope {
  readonly tenantId: string;
  readonly scopeId: string;
  readonly source: TriggerSourceRef;
  readonly triggerId: string;
  readonly eventId: string;
  /** Unique per tenant: the same key is the same event, whatever time it arrives. */
  readonly dedupeKey: string;
  /** When the event happened at its source. */
  readonly occurredAt: string;
  /** Its nominal time (a calendar occurrence's due instant, a webhook's first receipt). */
  readonly scheduledAt: string;
  readonly payload: JsonValue;
  /** sha256 hex of the payload's canonical JSON; computed, never supplied. */
  readonly payloadHash: string;
}

export type TriggerEnvelopeInput = Omit<TriggerEnvelope, 'payloadHash'>;

/** Canonical payload size limit: a record holds the payload and must fit in one write. */
export const MAX_PAYLOAD_BYTES = 512 * 1024;
/** A record keeps the payload at fields.envelope.payload: two levels below the write's own limit. */
export const MAX_PAYLOAD_DEPTH = MAX_JSON_DEPTH - 2;

const KEYS = [
  'tenantId',
  'scopeId',
  'source',
  'triggerId',
  'eventId',
  'dedupeKey',
  'occurredAt',
  'scheduledAt',
  'payload',
] as const;
/** Tenants appear in ingress URLs (/ingress/<tenant>/<provider>): URL-safe, no separators. */
const TENANT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const PROVIDER = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const TRIGGER = /^[A-Za-z0-9][A-Za-z0-9_.:\-/]{0,127}$/;
/** Printable, no whitespace or control characters: these are keys, echoed in logs and headers. */
const TOKEN = /^[\x21-\x7e]+$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function refuse(path: string, message: string): never {
  throw new TwinError('INVALID_ENVELOPE', message, { path });
}

export function checkTenantId(
  value: unknown,
  path = 'tenantId',
  code: 'INVALID_ENVELOPE' | 'INVALID_ARGUMENT' | 'INVALID_CONFIG' = 'INVALID_ENVELOPE',
): string {
  if (typeof value !== 'string' || !TENANT.test(value)) {
    throw new TwinError(
      code,
      `${path} ${describe(value)} is not valid; use 1–128 letters, digits, '_', '.', '-', starting with a letter or digit (e.g. "acme")`,
      { path },
    );
  }
  return value;
}

export function checkProvider(
  value: unknown,
  path = 'source.provider',
  code: 'INVALID_ENVELOPE' | 'INVALID_ARGUMENT' | 'INVALID_CONFIG' = 'INVALID_ENVELOPE',
): string {
  if (typeof value !== 'string' || !PROVIDER.test(value)) {
    throw new TwinError(
      code,
      `${path} ${describe(value)} is not valid; use 1–64 lowercase letters, digits, '_', '.', '-' (e.g. "stripe")`,
      { path },
    );
  }
  return value;
}

export function checkTriggerId(
  value: unknown,
  path = 'triggerId',
  code: 'INVALID_ENVELOPE' | 'INVALID_ARGUMENT' | 'INVALID_CONFIG' = 'INVALID_ENVELOPE',
): string {
  if (typeof value !== 'string' || !TRIGGER.test(value)) {
    throw new TwinError(
      code,
      `${path} ${describe(value)} is not valid; use 1–128 letters, digits and _ . : - /, starting with a letter or digit (e.g. "inventory.refresh")`,
      { path },
    );
  }
  return value;
}

export function checkScopeId(
  value: unknown,
  path = 'scopeId',
  code: 'INVALID_ENVELOPE' | 'INVALID_ARGUMENT' | 'INVALID_CONFIG' = 'INVALID_ENVELOPE',
): string {
  return checkToken(value, path, 256, 'the scope the event belongs to, e.g. "store-42"', code);
}

function checkToken(
  value: unknown,
  path: string,
  max: number,
  what: string,
  code: 'INVALID_ENVELOPE' | 'INVALID_ARGUMENT' | 'INVALID_CONFIG' = 'INVALID_ENVELOPE',
): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TwinError(code, `${path} is missing; give ${what}`, { path });
  }
  if (value.length > max)
    throw new TwinError(code, `${path} is ${value.length} characters long; at most ${max}`, {
      path,
    });
  if (!TOKEN.test(value))
    throw new TwinError(
      code,
      `${path} ${describe(value)} holds whitespace or control characters; use printable ASCII only`,
      { path },
    );
  return value;
}

/** Accepts an ISO 8601 string with Z or an offset and answers the UTC millisecond form. */
function normalizeTime(value: unknown, path: string): string {
  if (typeof value === 'number') {
    refuse(
      path,
      `${path} is a number; give an ISO 8601 string such as "2026-01-01T00:00:00.000Z" (from epoch ms: new Date(ms).toISOString())`,
    );
  }
  if (typeof value !== 'string' || !ISO.test(value)) {
    refuse(
      path,
      `${path} ${describe(value)} is not an ISO 8601 timestamp such as "2026-01-01T00:00:00.000Z"`,
    );
  }
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || !realCalendarTime(value))
    refuse(path, `${path} "${value}" is not a real calendar time`);
  return new Date(ms).toISOString();
}

/** Date.parse rolls "02-30" over into March; the fields must name a date that exists. */
function realCalendarTime(iso: string): boolean {
  const [y, m, d, h, min, sec] = [0, 5, 8, 11, 14, 17].map((i) =>
    Number(iso.slice(i, i + (i === 0 ? 4 : 2))),
  );
  const daysInMonth = new Date(Date.UTC(y!, m!, 0)).getUTCDate();
  return (
    m! >= 1 && m! <= 12 && d! >= 1 && d! <= daysInMonth && h! <= 23 && min! <= 59 && sec! <= 59
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (value === undefined) return '(missing)';
  if (value === null) return 'null';
  return `(${Array.isArray(value) ? 'array' : typeof value})`;
}

function payloadHashOf(payload: JsonValue): { hash: string; bytes: number } {
  const text = canonicalJson(payload);
  return { hash: sha256Hex(text), bytes: Buffer.byteLength(text, 'utf8') };
}

function checkPayload(value: unknown): { payload: JsonValue; hash: string } {
  if (value === undefined)
    refuse('payload', 'payload is missing; give a JSON value ({} when the event carries nothing)');
  try {
    assertJson(value, 'payload', { maxDepth: MAX_PAYLOAD_DEPTH });
  } catch (error) {
    const e = error as TwinError;
    refuse(e.path ?? 'payload', e.message);
  }
  const { hash, bytes } = payloadHashOf(value);
  if (bytes > MAX_PAYLOAD_BYTES) {
    throw new TwinError(
      'PAYLOAD_TOO_LARGE',
      `payload is ${bytes} bytes as canonical JSON, over the ${MAX_PAYLOAD_BYTES}-byte limit; keep large blobs outside and send a reference`,
      {
        path: 'payload',
        details: { bytes, limit: MAX_PAYLOAD_BYTES },
      },
    );
  }
  // A private, frozen copy: later changes to the caller's object cannot reach the record or the hash.
  return { payload: deepFreeze(JSON.parse(JSON.stringify(value)) as JsonValue), hash };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Envelopes this module built: frozen to the leaves, so ingest need not check them again. */
const built = new WeakSet<object>();

function checkSource(value: unknown): TriggerSourceRef {
  if (!isPlainObject(value))
    refuse('source', 'source must be an object such as { kind: "webhook", provider: "stripe" }');
  for (const key of Object.keys(value)) {
    if (key !== 'kind' && key !== 'provider')
      refuse(
        `source.${key}`,
        `source has an unknown key "${key}"; it holds only kind and provider`,
      );
  }
  if (!(SOURCE_KINDS as readonly unknown[]).includes(value.kind)) {
    refuse(
      'source.kind',
      `source.kind ${describe(value.kind)} is not one of ${SOURCE_KINDS.join(', ')}`,
    );
  }
  return Object.freeze({ kind: value.kind as SourceKind, provider: checkProvider(value.provider) });
}

/**
 * Validates every field and computes payloadHash. Throws INVALID_ENVELOPE naming the field
 * (PAYLOAD_TOO_LARGE for an oversized payload). The result is frozen.
 */
export function createTriggerEnvelope(input: TriggerEnvelopeInput): TriggerEnvelope {
  return buildEnvelope(input);
}

/** An envelope's input as it arrives from outside the type system: every field still unchecked. */
type UncheckedInput = { readonly [K in keyof TriggerEnvelopeInput]?: unknown };

function buildEnvelope(input: UncheckedInput): TriggerEnvelope {
  if (!isPlainObject(input)) {
    refuse(
      '',
      'an envelope must be an object with tenantId, scopeId, source, triggerId, eventId, dedupeKey, occurredAt, scheduledAt and payload',
    );
  }
  if ('payloadHash' in input) {
    refuse(
      'payloadHash',
      'payloadHash is computed by the kernel from the payload; remove it from the input',
    );
  }
  for (const key of Object.keys(input)) {
    if (!(KEYS as readonly string[]).includes(key))
      refuse(key, `envelope has an unknown key "${key}"; allowed: ${KEYS.join(', ')}`);
  }
  const tenantId = checkTenantId(input.tenantId);
  const scopeId = checkScopeId(input.scopeId);
  const source = checkSource(input.source);
  const triggerId = checkTriggerId(input.triggerId);
  const eventId = checkToken(
    input.eventId,
    'eventId',
    512,
    'the id the source gave the event, e.g. "evt_1NXo…"',
  );
  const dedupeKey = checkToken(
    input.dedupeKey,
    'dedupeKey',
    512,
    'a key that is the same for every delivery of this event, e.g. "stripe:evt_1NXo…"',
  );
  const occurredAt = normalizeTime(input.occurredAt, 'occurredAt');
  const scheduledAt = normalizeTime(input.scheduledAt, 'scheduledAt');
  const { payload, hash } = checkPayload(input.payload);
  const envelope: TriggerEnvelope = Object.freeze({
    tenantId,
    scopeId,
    source,
    triggerId,
    eventId,
    dedupeKey,
    occurredAt,
    scheduledAt,
    payload,
    payloadHash: hash,
  });
  built.add(envelope);
  return envelope;
}

/**
 * Re-checks an envelope handed to ingest: rebuilt from its fields, so a hand-made object (or
 * one whose payload changed after creation) cannot carry a hash that does not match.
 */
export function checkEnvelope(input: unknown): TriggerEnvelope {
  if (typeof input === 'object' && input !== null && built.has(input))
    return input as TriggerEnvelope;
  if (!isPlainObject(input)) refuse('', 'ingest needs an envelope made by createTriggerEnvelope()');
  const { payloadHash, ...rest } = input;
  const envelope = buildEnvelope(rest);
  if (payloadHash !== undefined && payloadHash !== envelope.payloadHash) {
    refuse(
      'payloadHash',
      'payloadHash does not match the payload (was the payload changed after createTriggerEnvelope?); create the envelope again',
    );
  }
  return envelope;
}
