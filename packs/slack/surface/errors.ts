// Slack's Web API answers refusals as HTTP 200 with `{ok: false, error}` — any other status makes
// @slack/web-api retry for half an hour — so every refusal the surface or the pack makes renders
// that way: a pack's VendorError carries Slack's own error string.
import type { JsonObject } from '../../../src/index.js';
import type { RenderedError } from '../../../src/host/index.js';
import { isVendorError, VendorError } from '../../kit/errors.js';

/** A refusal of the surface itself (auth, arguments), typed like the pack's own. */
export class SlackMethodError extends VendorError {
  /** What Slack's answer carries besides `ok` and `error` (`response_metadata.messages`, …). */
  readonly extra: JsonObject;

  constructor(error: string, message: string, extra: JsonObject = {}) {
    super('slack', 'invalid_input', error, `${error}: ${message}`);
    this.extra = extra;
  }
}

export function renderSlackError(error: unknown): RenderedError {
  if (error instanceof SlackMethodError)
    return { status: 200, body: { ok: false, error: error.vendorCode, ...error.extra } };
  if (isVendorError(error)) return { status: 200, body: { ok: false, error: error.vendorCode } };
  const code = (error as { code?: unknown } | undefined)?.code;
  // The kernel's typed refusals of bad input: Slack's invalid_arguments.
  if (code === 'INVALID_ARGUMENT')
    return { status: 200, body: { ok: false, error: 'invalid_arguments' } };
  return { status: 200, body: { ok: false, error: 'internal_error' } };
}

export function unknownSlackMethod(): RenderedError {
  return { status: 200, body: { ok: false, error: 'unknown_method' } };
}

/**
 * A request body over the host's cap: refused before any method runs, so an HTTP 413 (which
 * @slack/web-api raises as its HTTP error) with Slack's `{ok: false, error}` body, the error
 * named by the twin (Slack documents none for it).
 */
export function slackBodyTooLarge(): RenderedError {
  return { status: 413, body: { ok: false, error: 'request_too_large' } };
}
