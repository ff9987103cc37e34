// Events API `event_callback` envelopes: the inner event (message or app_mention) wrapped with
// token, team_id, api_app_id, event_id, event_time, authorizations and event_context, rendered
// for the workspace's app.
import type { JsonObject, JsonValue, RenderContext } from '../../src/index.js';
import { appOfTeam } from './apps.js';
import { mention, type SlackMessage } from './messages.js';

type Ctx = Pick<RenderContext, 'subject' | 'view' | 'eventType'>;

/** app_mention goes out only when the message mentions the workspace app's bot user. */
export function mentionsApp(ctx: Pick<RenderContext, 'subject' | 'view'>): boolean {
  const message = ctx.subject?.fields as SlackMessage | undefined;
  if (message === undefined) return false;
  const app = appOfTeam(ctx.view, message.team);
  return app !== undefined && message.text.includes(mention(app.bot_user_id));
}

function innerEvent(message: SlackMessage, type: string): JsonObject {
  const event: JsonObject = { client_msg_id: message.client_msg_id, type, text: message.text, user: message.user, ts: message.ts, team: message.team };
  if (message.thread_ts !== undefined) event.thread_ts = message.thread_ts;
  event.channel = message.channel;
  event.event_ts = message.ts;
  if (type === 'message') event.channel_type = 'channel';
  return event;
}

/** Slack's opaque event_context: "4-" and base64url JSON naming event type, team, app, channel. */
function eventContext(type: string, team: string, app: string, channel: string): string {
  return `4-${Buffer.from(JSON.stringify({ et: type, tid: team, aid: app, cid: channel })).toString('base64url')}`;
}

export function envelopeValues(ctx: Ctx): Record<string, JsonValue | undefined> {
  const message = ctx.subject?.fields as SlackMessage | undefined;
  if (message === undefined) return { token: undefined, teamId: undefined, appId: undefined, event: undefined, authorizations: undefined, eventContext: undefined };
  const app = appOfTeam(ctx.view, message.team);
  return {
    token: app?.verification_token,
    teamId: message.team,
    appId: app?.id,
    event: innerEvent(message, ctx.eventType),
    authorizations: app === undefined ? undefined : [{ enterprise_id: null, team_id: message.team, user_id: app.bot_user_id, is_bot: true, is_enterprise_install: false }],
    eventContext: eventContext(ctx.eventType, message.team, app?.id ?? '', message.channel),
  };
}
