// The HTTP face of the answer contract: which status each ingest answer and each refusal gets.
// 2xx means "acknowledge, never resend"; every non-2xx makes a vendor retry (GitHub excepted).
import { TwinError } from '../../errors.js';
import type { IngestAnswer } from '../answer.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * triggered, filtered, duplicate: 200. in_progress: 409 (the IETF idempotency draft's "original
 * still in flight") with Retry-After. deferred: 202 Accepted, with `location` — the dispatch's path
 * and the capability to read it (DispatchCapabilities.location) — when given.
 */
export function answerStatus(answer: IngestAnswer, location?: string): HttpAnswer {
  if (answer.status === 'in_progress')
    return { status: 409, headers: { 'retry-after': '1' }, body: answer };
  if (answer.status === 'deferred')
    return { status: 202, headers: location === undefined ? {} : { location }, body: answer };
  return { status: 200, headers: {}, body: answer };
}

const STATUS: Readonly<Record<string, number>> = {
  MISSING_HEADER: 401,
  BAD_SIGNATURE: 401,
  STALE_TIMESTAMP: 401,
  INVALID_BODY: 400,
  INVALID_ENVELOPE: 400,
  TENANT_FORBIDDEN: 403,
  UNKNOWN_ENDPOINT: 404,
  UNKNOWN_TRIGGER: 404,
  UNKNOWN_DISPATCH: 404,
  PAYLOAD_TOO_LARGE: 413,
  PAYLOAD_CONFLICT: 422,
  ROUTINE_FAILED: 500,
  ENGINE_STOPPED: 503,
};

/**
 * Refusals are 4xx; a routine that did not finish is 500 and a stopping host 503, both retryable.
 * Only kernel errors say why: anything else is an opaque 500, its text never sent.
 */
export function errorStatus(error: unknown): HttpAnswer {
  if (error instanceof TwinError) {
    const status = STATUS[error.code] ?? 500;
    const headers: Record<string, string> = status === 503 ? { 'retry-after': '1' } : {};
    return { status, headers, body: error.toJSON() };
  }
  return {
    status: 500,
    headers: {},
    body: { error: 'INTERNAL', message: 'internal error; see the server log' },
  };
}
