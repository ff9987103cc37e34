// Slack's delivery headers: its user agent, the form content type of interactive payloads and
// slash commands, and on every retried attempt X-Slack-Retry-Num (1, 2, 3) and
// X-Slack-Retry-Reason, named after how the attempt before it went.
import type { HeaderContext } from '../../src/index.js';
import { FORM_TYPES } from './envelope.js';

type PreviousOutcome = NonNullable<HeaderContext['previousOutcome']>;

/**
 * Slack's reason for retrying. A status is `http_error`. An attempt that got no status maps by
 * the kernel's classification when the dispatcher passes it (`reason`); without it the cause
 * cannot be told apart, so it is `unknown_error` rather than a guess.
 */
export function slackRetryReason(previous: PreviousOutcome | undefined): string {
  if (previous === undefined) return 'unknown_error';
  if (previous.status !== null) return 'http_error';
  switch (previous.reason) {
    case 'timeout':
      return 'http_timeout';
    case 'connection_error':
    case 'connection_reset':
    case 'not_sent':
      return 'connection_failed';
    default:
      return 'unknown_error';
  }
}

export function slackHeaders(ctx: HeaderContext): Record<string, string> {
  const headers: Record<string, string> = {
    'User-Agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
  };
  // Lower-case, so it replaces the dispatcher's JSON default; exactly this value, which Bolt requires to parse a form.
  if (FORM_TYPES.has(String(ctx.record.eventType)))
    headers['content-type'] = 'application/x-www-form-urlencoded';
  if (ctx.attempt > 1) {
    headers['X-Slack-Retry-Num'] = String(ctx.attempt - 1);
    headers['X-Slack-Retry-Reason'] = slackRetryReason(
      ctx.previousOutcome as PreviousOutcome | undefined,
    );
  }
  return headers;
}
