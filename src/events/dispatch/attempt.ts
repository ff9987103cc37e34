// The values a delivery passes through on its way out: one claimed attempt (what sign → send →
// finish each need), what the send came to, and what the caller is answered. The steps live in
// files of their own (sign.ts, send.ts, finish.ts) and take these values whole.
import type { Pack } from '../pack-registry.js';
import type { Twin } from '../../world/twin.js';
import type { EventsDeclaration } from '../declaration.js';
import type { Claim, ClaimKind, DeliveryFields, DeliveryState } from '../delivery-records.js';
import type { AttemptOutcome } from '../retry.js';
import type { TransportResponse } from '../transports/transport.js';

/** One claimed attempt of one delivery, from its claim to its finish. */
export interface Attempt {
  readonly pack: Pack;
  readonly twin: Twin;
  readonly decl: EventsDeclaration;
  readonly deliveryId: string;
  readonly claim: Claim;
  /** The packet as the record holds it; a redeliver to another URL has that URL here. */
  readonly record: DeliveryFields;
  /**
   * The endpoint's version when the attempt was claimed: every rotation of its secret writes to the
   * endpoint, so secrets read under the same stamp are current (a store may cache them under it).
   */
  readonly secretStamp: string | undefined;
  /** The endpoint's rate slot, on a rated endpoint: a send too late for it does not go. */
  readonly slot?: number;
}

/** A signed packet just before it is sent. Seeing it is not evidence of transport or acceptance. */
export interface SignedPacket {
  readonly twin: string;
  readonly pack: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly eventType: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface AttemptResult {
  readonly pack: string;
  readonly deliveryId: string;
  readonly attemptId: string;
  readonly number: number;
  readonly kind: ClaimKind;
  readonly outcome: AttemptOutcome;
  readonly status: number | null;
  readonly reason: string;
  /** The record's state after the finish. */
  readonly state: DeliveryState | undefined;
  readonly retryAt?: string;
  /** Wall-clock time of the request, reported beside the log, never in it. */
  readonly durationMs: number;
  /**
   * Set when this sender had lost its claim before finishing (its lease lapsed and the attempt
   * was taken over): the finish was refused (STALE_OWNER) and what it saw kept on the attempt.
   */
  readonly stale?: true;
}

/** What one send came to, before it is recorded. */
export interface Sent {
  readonly outcome: AttemptOutcome;
  readonly reason: string;
  readonly headers: Record<string, string> | null;
  readonly response?: TransportResponse;
  readonly durationMs: number;
}

export function notSent(
  outcome: AttemptOutcome,
  reason: string,
  headers: Record<string, string> | null = null,
): Sent {
  return { outcome, reason, headers, durationMs: 0 };
}
