// What identifies one webhook event across a vendor's retries, per signing scheme, and the
// event's type and time — read from a packet whose signature has already been verified.
import { createHash } from 'node:crypto';
import { TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import type { SchemeName, VerifiedPacket } from '../../events/signing/index.js';

/** For hmac-sha256 endpoints: the sender's delivery id. Not covered by the MAC, as with GitHub's. */
export const HMAC_DELIVERY_HEADER = 'X-Delivery-Id';
export const GITHUB_DELIVERY_HEADER = 'X-GitHub-Delivery';
export const GITHUB_EVENT_HEADER = 'X-GitHub-Event';

export interface DeliveryIdentity {
  /** Stable across the vendor's retries and redeliveries of one event. */
  readonly deliveryId: string;
  readonly eventType: string | null;
  /** Epoch seconds the vendor says the event happened, if it says. */
  readonly occurredAtSec: number | null;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first.trim() !== '') return first.trim();
  }
  return undefined;
}

function field(body: JsonValue, name: string): JsonValue | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body[name] : undefined;
}

function stringField(body: JsonValue, name: string, scheme: string, example: string): string {
  const value = field(body, name);
  if (typeof value !== 'string' || value === '') {
    throw new TwinError('INVALID_BODY', `${scheme}: the body has no "${name}" string (e.g. "${example}"), which identifies the event across retries`, { path: `body.${name}` });
  }
  return value;
}

function seconds(value: JsonValue | undefined): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

function typeField(value: JsonValue | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Stripe: the event id in the body (`evt_…`). GitHub: `X-GitHub-Delivery` (kept by manual
 * redeliveries). Slack: `event_id` in the body (same on Slack's retries). Standard Webhooks:
 * `webhook-id` (signed). hmac-sha256: `X-Delivery-Id` when sent, else the SHA-256 of the raw body.
 */
export function deliveryIdentity(scheme: SchemeName, headers: Headers, body: JsonValue, rawBody: Buffer, verified: VerifiedPacket): DeliveryIdentity {
  switch (scheme) {
    case 'stripe':
      return { deliveryId: stringField(body, 'id', 'stripe', 'evt_1NXo9d2eZvKYlo2C'), eventType: typeField(field(body, 'type')), occurredAtSec: seconds(field(body, 'created')) };
    case 'github': {
      const id = header(headers, GITHUB_DELIVERY_HEADER);
      if (id === undefined) {
        throw new TwinError('MISSING_HEADER', `github: required header ${GITHUB_DELIVERY_HEADER} is missing or empty; it identifies the delivery across redeliveries`, { path: `headers.${GITHUB_DELIVERY_HEADER}` });
      }
      return { deliveryId: id, eventType: header(headers, GITHUB_EVENT_HEADER) ?? null, occurredAtSec: null };
    }
    case 'slack': {
      const event = field(body, 'event');
      return {
        deliveryId: stringField(body, 'event_id', 'slack', 'Ev0TWIN0001'),
        eventType: typeField(field(event ?? null, 'type')) ?? typeField(field(body, 'type')),
        occurredAtSec: seconds(field(body, 'event_time')),
      };
    }
    case 'standard-webhooks':
      // verify() answers the id it checked the signature over.
      return { deliveryId: verified.messageId!, eventType: typeField(field(body, 'type')), occurredAtSec: verified.timestampSec ?? null };
    case 'hmac-sha256':
      return {
        deliveryId: header(headers, HMAC_DELIVERY_HEADER) ?? `sha256:${createHash('sha256').update(rawBody).digest('hex')}`,
        eventType: typeField(field(body, 'type')),
        occurredAtSec: verified.timestampSec ?? null,
      };
  }
}
