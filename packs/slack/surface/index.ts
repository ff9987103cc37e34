// The Slack surface: what @slack/web-api (and a Bolt app, through it) calls, answered by the
// Slack pack under `/api/<method>`. Every answer is HTTP 200 with `ok: true|false` — an unknown
// method too — because the SDK retries any other status for half an hour. See
// docs/slack-surface.md.
import type { JsonObject, Twin } from '../../../src/index.js';
import { defineSurface, type Surface } from '../../../src/host/index.js';
import {
  renderSlackError,
  slackBodyTooLarge,
  SlackMethodError,
  unknownSlackMethod,
} from './errors.js';
import { CHANNEL_INDEX, SLACK_METHODS } from './methods.js';
import { principalOf, tokenOf, type SlackPrincipal } from './principal.js';
import {
  postDueScheduledMessages,
  scheduledDueAt,
  scheduledMessageKind,
} from '../scheduled-messages.js';

export { botToken, userToken, type SlackPrincipal } from './principal.js';
export { SLACK_METHODS } from './methods.js';

/** Arguments the SDK sends JSON-encoded inside the form. */
async function decode(request: Request, url: URL): Promise<JsonObject> {
  const out: JsonObject = Object.fromEntries(url.searchParams);
  const type = request.headers.get('content-type') ?? '';
  const body = request.method === 'GET' ? '' : await request.text();
  if (body === '') return out;
  if (type.includes('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      throw new SlackMethodError(
        'invalid_json',
        `the body is not JSON: ${(error as Error).message}`,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new SlackMethodError('invalid_json', 'the body must be a JSON object');
    return { ...out, ...(parsed as JsonObject) };
  }
  if (!type.includes('application/x-www-form-urlencoded') && type !== '')
    throw new SlackMethodError(
      'invalid_form_data',
      `the body must be form-encoded, not ${type.split(';')[0]}`,
    );
  return { ...out, ...Object.fromEntries(new URLSearchParams(body)) };
}

/**
 * `twin` is the Slack pack's twin, registered with the host so its webhooks are sent
 * (`host.packTwin(slack.pack)`).
 */
export function slackSurface(options: { twin: Twin }): Surface<SlackPrincipal> {
  const twin = options.twin;
  twin.declareIndex({ type: 'message', name: CHANNEL_INDEX, field: 'channel' });
  scheduledMessageKind.declareOn(twin);
  const slack = () => twin;
  return defineSurface<SlackPrincipal>({
    name: 'slack',
    prefix: '/api/',
    routes: SLACK_METHODS,
    decode,
    async auth(request) {
      const url = new URL(request.url);
      // The token may come in the form too: read a copy, leaving the body for decode.
      const input =
        request.method === 'POST'
          ? await decode(request.clone(), url)
          : Object.fromEntries(url.searchParams);
      return principalOf(slack(), tokenOf(request, input));
    },
    renderError: (error) => renderSlackError(error),
    unknownRoute: () => unknownSlackMethod(),
    tooLarge: slackBodyTooLarge,
    // Scheduled messages post as the world clock reaches them, with every other vendor's due work.
    clock: {
      dueAt: () => scheduledDueAt(twin),
      runDue: () => postDueScheduledMessages(twin),
    },
  });
}
