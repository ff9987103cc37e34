// Slack's refusals use its own error strings (channel_not_found, user_not_found, …).
import { VendorError } from '../kit/errors.js';

export function slackError(
  code: string,
  message: string,
  path: string,
  kind: 'not_found' | 'invalid_input' | 'conflict' = 'not_found',
): VendorError {
  return new VendorError('slack', kind, code, `${code}: ${message}`, { path });
}
