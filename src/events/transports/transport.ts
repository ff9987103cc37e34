// The transport port: how a signed packet reaches a receiver, and the clock the receiver
// verifies signatures against (the world's for receivers inside it, wall time for the rest).
export interface OutgoingRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

export interface TransportResponse {
  readonly status: number;
  /** Only what the protocol acts on; response bodies never enter history. */
  readonly retryAfterSec?: number;
}

/**
 * Why a request produced no status. `not_sent`: it provably never left (an invalid URL, a refused
 * connection, a name that does not resolve) — a plain failure. The others may or may not have
 * reached the receiver.
 */
export type TransportFailureKind = 'timeout' | 'connection_error' | 'connection_reset' | 'not_sent';

export class TransportFailure extends Error {
  constructor(readonly kind: TransportFailureKind) {
    super(kind);
    this.name = 'TransportFailure';
  }
}

export interface Transport {
  readonly name: string;
  /** Epoch ms on the clock the receiver checks signatures against. */
  now(): number;
  /** Resolves with the status, or rejects with a TransportFailure (any other error counts as connection_error). */
  send(request: OutgoingRequest): Promise<TransportResponse>;
  close?(): void;
}

export function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const n = Number(v.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
