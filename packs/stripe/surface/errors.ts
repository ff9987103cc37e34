// Stripe's error envelope `{error: {type, code, message, param, …}}` with Stripe's statuses, from
// the pack's typed refusals: the URL's object not found → 404 (an id a parameter names → 400), bad input and bad state → 400 invalid_request_error,
// a declined card → 402 card_error, a reused idempotency key → 400 idempotency_error, a bad key
// → 401, an account the key cannot reach (`Stripe-Account`) → 403. Anything else is a 500
// api_error that names no internals (the host logs it).
import { isTwinError, type JsonObject, type JsonValue } from '../../../src/index.js';
import { errorStatus, type RenderedError } from '../../../src/host/index.js';
import { VendorError } from '../../kit/errors.js';
import { CARD_ERROR_CODES } from '../cards.js';
import { stripeParam } from '../errors.js';

export type StripeErrorType =
  'invalid_request_error' | 'card_error' | 'idempotency_error' | 'api_error';

/** A refusal with Stripe's own status and extra fields (a card error's payment_intent, decline_code). */
export class StripeApiError extends VendorError {
  constructor(
    readonly status: number,
    readonly type: StripeErrorType,
    code: string | undefined,
    message: string,
    readonly extra: JsonObject = {},
    param?: string,
  ) {
    super('stripe', status === 404 ? 'not_found' : 'invalid_input', code ?? type, message, {
      ...(param === undefined ? {} : { path: param }),
    });
    this.name = 'StripeApiError';
  }
}

/** The pack's messages start with "stripe: "; Stripe's own do not. */
function plain(message: string): string {
  return message.startsWith('stripe: ') ? message.slice('stripe: '.length) : message;
}

function param(path: string | undefined): string | undefined {
  return path === undefined ? undefined : stripeParam(path);
}

function envelope(
  type: StripeErrorType,
  message: string,
  code?: string,
  p?: string,
  extra: JsonObject = {},
): JsonValue {
  const error: JsonObject = { type, message };
  if (code !== undefined) error.code = code;
  if (p !== undefined) error.param = p;
  return { error: { ...error, ...extra } };
}

/**
 * A missing object is 404 only when it is the one the URL names (param `id`, or none); an id a
 * parameter names that does not exist is a bad request, 400 `resource_missing` naming that
 * parameter, as Stripe answers `No such price: 'price_…'` for `line_items[0][price]`.
 */
function missingStatus(path: string | undefined): number {
  return path === undefined || path === 'id' ? 404 : 400;
}

export function renderStripeError(error: unknown): RenderedError {
  if (error instanceof StripeApiError)
    return {
      status: error.status === 404 ? missingStatus(error.path) : error.status,
      body: envelope(
        error.type,
        plain(error.message),
        error.vendorCode === error.type ? undefined : error.vendorCode,
        error.path,
        error.extra,
      ),
    };
  if (error instanceof VendorError) {
    const code = error.vendorCode;
    if (code === 'idempotency_key_in_use')
      return { status: 400, body: envelope('idempotency_error', plain(error.message), code) };
    if (CARD_ERROR_CODES.has(code)) {
      const decline = (error.details as { decline_code?: unknown } | undefined)?.decline_code;
      return {
        status: 402,
        body: envelope('card_error', plain(error.message), code, param(error.path), {
          ...(typeof decline === 'string' ? { decline_code: decline } : {}),
        }),
      };
    }
    const status = error.kind === 'not_found' ? missingStatus(error.path) : 400;
    // A refusal Stripe gives no code of its own names its type instead (metadata limits).
    return {
      status,
      body: envelope(
        'invalid_request_error',
        plain(error.message),
        code === 'invalid_request_error' ? undefined : code,
        param(error.path),
      ),
    };
  }
  if (isTwinError(error)) {
    // The twin's own trouble (a busy or unreachable store, a stopped engine) is Stripe's api_error
    // with the status that says so, which stripe-node retries; the rest is the request's.
    const server = errorStatus(error);
    if (server.status >= 500)
      return {
        status: server.status,
        body: envelope('api_error', error.message, error.code.toLowerCase()),
        headers: server.headers,
      };
    return {
      status: 400,
      body: envelope(
        'invalid_request_error',
        error.message,
        error.code.toLowerCase(),
        param(error.path),
      ),
    };
  }
  return {
    status: 500,
    body: envelope('api_error', 'The twin failed to answer this request; its log says why.'),
  };
}

export function unknownStripeRoute(method: string, path: string): RenderedError {
  return {
    status: 404,
    body: envelope(
      'invalid_request_error',
      `Unrecognized request URL (${method}: ${path}). This twin serves the routes listed in docs/stripe-surface.md.`,
    ),
  };
}

/**
 * A request body over the host's cap. Stripe's status table has no 413: a request it cannot take is
 * a 400 invalid_request_error, which stripe-node raises as StripeInvalidRequestError with this
 * message (a bare 413 would be a generic StripeAPIError).
 */
export function stripeBodyTooLarge(limit: number): RenderedError {
  return {
    status: 400,
    body: envelope(
      'invalid_request_error',
      `The request body is larger than ${limit} bytes (${limit / 1024 / 1024} MiB), the most this twin reads; send less.`,
    ),
  };
}
