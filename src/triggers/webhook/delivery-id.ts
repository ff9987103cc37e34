// What identifies one webhook event across a vendor's retries, per signing scheme, and the
// event's type and time — read from a packet whose signature has already been verified. Where
// the id is not signed (GitHub, hmac-sha256 v1), it also names what IS signed, so a captured
// packet resent under a new id can be recognised as a replay within a declared window.
import { createHash } from 'node:crypto';
import { TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import {
  HMAC_DELIVERY_HEADER,
  type SchemeName,
  type VerifiedPacket,
} from '../../events/signing/index.js';
import { headerValues } from '../../events/signing/scheme.js';

export { HMAC_DELIVERY_HEADER };
export const GITHUB_DELIVERY_HEADER = 'X-GitHub-Delivery';
export const GITHUB_EVENT_HEADER = 'X-GitHub-Event';
/** How long a GitHub body is remembered against replays under a new X-GitHub-Delivery (7 days). */
export const DEFAULT_GITHUB_REPLAY_WINDOW_SEC = 7 * 24 * 3600;

export interface DeliveryIdentity {
  /** Stable across the vendor's retries and redeliveries of one event. */
  readonly deliveryId: string;
  readonly eventType: string | null;
  /** Epoch seconds the vendor says the event happened, if it says. */
  readonly occurredAtSec: number | null;
  /**
   * When the delivery id is outside the signature: a key for what the signature covers, and how
   * long a second packet with that signed content but another id counts as a replay.
   */
  readonly replay?: { readonly key: string; readonly windowSec: number };
}

export interface IdentityOptions {
  /** The endpoint's timestamp tolerance: a signed timestamp bounds how long a replay can verify. */
  readonly toleranceSec: number;
  /** For schemes that sign no timestamp (GitHub): how long signed content is remembered. */
  readonly replayWindowSec?: number;
}

function sha256(...parts: (string | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The first non-empty value of a header, trimmed, whatever its casing. */
function header(headers: Headers, name: string): string | undefined {
  return headerValues(headers, name)[0]?.trim();
}

function field(body: JsonValue, name: string): JsonValue | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body[name] : undefined;
}

function stringField(body: JsonValue, name: string, scheme: string, example: string): string {
  const value = field(body, name);
  if (typeof value !== 'string' || value === '') {
    throw new TwinError(
      'INVALID_BODY',
      `${scheme}: the body has no "${name}" string (e.g. "${example}"), which identifies the event across retries`,
      { path: `body.${name}` },
    );
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
 * redeliveries), plus the body (all GitHub signs) as the replay key. Slack: `event_id` in the body
 * (same on Slack's retries). Standard Webhooks: `webhook-id` (signed). hmac-sha256 v2: the signed
 * `X-Delivery-Id`; v1: `X-Delivery-Id` when sent, else the SHA-256 of the raw body, plus timestamp
 * and body (all v1 signs) as the replay key, remembered for twice the tolerance — longer, the
 * signed timestamp no longer verifies.
 */
export function deliveryIdentity(
  scheme: SchemeName,
  headers: Headers,
  body: JsonValue,
  rawBody: Buffer,
  verified: VerifiedPacket,
  options: IdentityOptions,
): DeliveryIdentity {
  switch (scheme) {
    case 'stripe':
      return {
        deliveryId: stringField(body, 'id', 'stripe', 'evt_1NXo9d2eZvKYlo2C'),
        eventType: typeField(field(body, 'type')),
        occurredAtSec: seconds(field(body, 'created')),
      };
    case 'github': {
      const id = header(headers, GITHUB_DELIVERY_HEADER);
      if (id === undefined) {
        throw new TwinError(
          'MISSING_HEADER',
          `github: required header ${GITHUB_DELIVERY_HEADER} is missing or empty; it identifies the delivery across redeliveries`,
          { path: `headers.${GITHUB_DELIVERY_HEADER}` },
        );
      }
      return {
        deliveryId: id,
        eventType: header(headers, GITHUB_EVENT_HEADER) ?? null,
        occurredAtSec: null,
        replay: {
          key: `github-body:${sha256(rawBody)}`,
          windowSec: options.replayWindowSec ?? DEFAULT_GITHUB_REPLAY_WINDOW_SEC,
        },
      };
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
      return {
        deliveryId: verified.messageId!,
        eventType: typeField(field(body, 'type')),
        occurredAtSec: verified.timestampSec ?? null,
      };
    case 'hmac-sha256':
      if (verified.messageId !== undefined) {
        return {
          deliveryId: verified.messageId,
          eventType: typeField(field(body, 'type')),
          occurredAtSec: verified.timestampSec ?? null,
        };
      }
      return {
        deliveryId: header(headers, HMAC_DELIVERY_HEADER) ?? `sha256:${sha256(rawBody)}`,
        eventType: typeField(field(body, 'type')),
        occurredAtSec: verified.timestampSec ?? null,
        replay: {
          key: `hmac-v1:${sha256(String(verified.timestampSec), '.', rawBody)}`,
          windowSec: 2 * options.toleranceSec + 1,
        },
      };
  }
}
