// What Slack sends, per event type. Events API events go in `event_callback` envelopes (token,
// team_id, api_app_id, event_id, event_time, authorizations, event_context) around the inner
// event; url_verification is its own small JSON body; block_actions and slash commands are the
// interactivity payload and the command's fields, which `encodeSlackBody` form-encodes.
import { createHash } from 'node:crypto';
import type {
  JsonObject,
  JsonValue,
  ReadView,
  RecordKind,
  RenderContext,
} from '../../src/index.js';
import type { AppHomeVisit, ChannelMember, SlackReaction } from './activity.js';
import { appOfTeam, type EventSubscription, type SlackApp } from './apps.js';
import type { BlockActionFields, CommandInvocation } from './interactivity.js';
import {
  mention,
  messageKey,
  renderTombstone,
  repliesOf,
  threadSummary,
  type SlackMessage,
} from './messages.js';
import { moreInnerEvents } from './render-events.js';
import { messageTs } from './ids.js';
import { interactivePayload, renderView } from './render-interactive.js';
import { homeKey, viewKind } from './views.js';
import type { SlackChannel, SlackTeam, SlackUser } from './workspace.js';
import { appKind } from './apps.js';
import { channelKind, teamKind, userKind } from './workspace.js';
import { messageKind } from './messages.js';
import { appHomeKind, channelMemberKind, reactionKind } from './activity.js';
import { eventSubscriptionKind } from './apps.js';
import { blockActionKind } from './interactivity.js';
import { commandInvocationKind } from './interactivity.js';

/** Writes that change a posted message, each sent as a `message` event of this subtype. */
export const MESSAGE_SUBTYPES: Readonly<Record<string, string>> = {
  'message.update': 'message_changed',
  'message.delete': 'message_deleted',
  'message.tombstone': 'message_changed',
};

/** Interactivity payloads besides block_actions (render-interactive.ts). */
const INTERACTIVE_TYPES: readonly string[] = ['view_submission', 'shortcut', 'message_action'];

/** Event types delivered as form bodies rather than JSON. */
export const FORM_TYPES: ReadonlySet<string> = new Set([
  'block_actions',
  'slash_command',
  ...INTERACTIVE_TYPES,
]);

/** app_mention goes out only when the message mentions the workspace app's bot user. */
export function mentionsApp(ctx: Pick<RenderContext, 'subject' | 'view'>): boolean {
  const message = ctx.subject?.fields as SlackMessage | undefined;
  if (message === undefined) return false;
  const app = appOfTeam(ctx.view, message.team);
  return app !== undefined && message.text.includes(mention(app.bot_user_id));
}

/** Where a message is: a public channel, or a direct message (conversations.open). */
function channelType(view: ReadView, channel: string): 'channel' | 'im' {
  return channelKind.read(view, channel)?.is_im === true ? 'im' : 'channel';
}

/**
 * Whether the workspace's app takes a message event from this channel: a direct message only
 * when the app's bot is in it and the app subscribes to `message.im` (never as app_mention); a
 * public channel's unless the app subscribes to `message.im` and not `message.channels`.
 */
export function messageSubscribed(
  type: string,
  view: ReadView,
  message: Pick<SlackMessage, 'channel' | 'team'>,
): boolean {
  const app = appOfTeam(view, message.team);
  const events =
    app === undefined ? undefined : eventSubscriptionKind.read(view, app.id)?.bot_events;
  const channel = channelKind.read(view, message.channel);
  if (channel?.is_im === true)
    return (
      type === 'message' &&
      app !== undefined &&
      (channel.creator === app.bot_user_id || channel.user === app.bot_user_id) &&
      events?.includes('message.im') === true
    );
  return !(
    type === 'message' &&
    events?.includes('message.im') === true &&
    !events.includes('message.channels')
  );
}

function messageEvent(
  message: SlackMessage,
  type: string,
  where = 'channel',
  root?: JsonObject,
): JsonObject {
  const event: JsonObject = {
    ...(message.client_msg_id === undefined ? {} : { client_msg_id: message.client_msg_id }),
    type,
    ...(type === 'message' && message.subtype === 'thread_broadcast'
      ? { subtype: message.subtype }
      : {}),
    text: message.text,
    user: message.user,
    ts: message.ts,
    team: message.team,
  };
  if (message.bot_id !== undefined)
    Object.assign(event, { bot_id: message.bot_id, app_id: message.app_id ?? null });
  if (message.blocks !== undefined) event.blocks = message.blocks;
  if (message.attachments !== undefined) event.attachments = message.attachments;
  if (message.thread_ts !== undefined) event.thread_ts = message.thread_ts;
  if (root !== undefined) event.root = root;
  event.channel = message.channel;
  event.event_ts = message.ts;
  if (type === 'message') event.channel_type = where;
  return event;
}

/**
 * A message as an edit event carries it (without the event's own channel, event_ts and
 * channel_type); a deleted thread's parent as its tombstone, with the thread's summary as it is.
 */
function keptMessage(view: ReadView, m: SlackMessage): JsonObject {
  if (m.subtype === 'tombstone')
    return { ...renderTombstone(m), ...threadSummary(repliesOf(view, m.channel, m.ts)) };
  const shown = messageEvent(m, 'message');
  for (const key of ['channel', 'event_ts', 'channel_type']) delete shown[key];
  if (m.edited !== undefined) shown.edited = m.edited;
  return shown;
}

/**
 * A reply broadcast to the channel (subtype thread_broadcast) carries its thread's parent as
 * `root`, with the thread's summary, as Slack's message event does; other messages carry none.
 */
function broadcastRoot(ctx: RenderContext, m: SlackMessage): JsonObject | undefined {
  if (ctx.eventType !== 'message' || m.subtype !== 'thread_broadcast') return undefined;
  const parent = messageKind.read(ctx.view, messageKey(m.channel, m.thread_ts!));
  if (parent === undefined) return undefined;
  const root = keptMessage(ctx.view, parent);
  return parent.subtype === 'tombstone'
    ? root
    : {
        ...root,
        thread_ts: parent.ts,
        ...threadSummary(repliesOf(ctx.view, m.channel, parent.ts)),
      };
}

/**
 * An edit or a deletion of a message: a `message` event whose subtype says which
 * (`message_changed` with the message as it is now, `message_deleted` with its ts), each with
 * the message as it was, hidden from the channel view as Slack marks them.
 */
function messageEdit(
  ctx: RenderContext,
): { event: JsonObject; team: string; channel: string } | undefined {
  const subtype = MESSAGE_SUBTYPES[ctx.entry.operation];
  if (subtype === undefined || ctx.previous === undefined) return undefined;
  const before = messageKind.from(ctx.previous);
  const now = messageTs(ctx.now, 0);
  const event: JsonObject = { type: 'message', subtype, hidden: true };
  if (subtype === 'message_changed')
    event.message = keptMessage(ctx.view, messageKind.from(ctx.subject!.fields));
  else event.deleted_ts = before.ts;
  Object.assign(event, {
    channel: before.channel,
    previous_message: keptMessage(ctx.view, before),
    event_ts: now,
    ts: now,
    channel_type: channelType(ctx.view, before.channel),
  });
  return { event, team: before.team, channel: before.channel };
}

/** The inner event, the workspace it happened in, and the channel its context names. */
function innerEvent(
  ctx: RenderContext,
): { event: JsonObject; team: string; channel: string } | undefined {
  const more = moreInnerEvents(ctx);
  if (more !== undefined) return more;
  const fields = ctx.subject?.fields;
  if (fields === undefined) return undefined;
  switch (ctx.eventType) {
    case 'message':
    case 'app_mention': {
      const edit = messageEdit(ctx);
      if (edit !== undefined) return edit;
      const m = messageKind.from(fields);
      return {
        event: messageEvent(
          m,
          ctx.eventType,
          channelType(ctx.view, m.channel),
          broadcastRoot(ctx, m),
        ),
        team: m.team,
        channel: m.channel,
      };
    }
    case 'reaction_added': {
      const r = reactionKind.from(fields);
      return {
        event: {
          type: 'reaction_added',
          user: r.user,
          reaction: r.reaction,
          item: r.item,
          item_user: r.item_user,
          event_ts: r.event_ts,
        },
        team: r.team,
        channel: r.item.channel,
      };
    }
    case 'member_joined_channel': {
      const m = channelMemberKind.from(fields);
      const event: JsonObject = {
        type: 'member_joined_channel',
        user: m.user,
        channel: m.channel,
        channel_type: 'C',
        team: m.team,
      };
      if (m.inviter !== undefined) event.inviter = m.inviter;
      event.event_ts = m.event_ts;
      return { event, team: m.team, channel: m.channel };
    }
    case 'app_home_opened': {
      const v = appHomeKind.from(fields);
      const event: JsonObject = {
        type: 'app_home_opened',
        user: v.user,
        channel: v.channel,
        tab: v.tab,
        event_ts: v.event_ts,
      };
      // The Home tab the app published for this user (views.publish), when there is one.
      const home = ctx.view.get('home_view', homeKey(v.app_id, v.user))?.fields.view_id;
      if (v.tab === 'home' && typeof home === 'string')
        event.view = renderView(viewKind.fieldsAt(ctx.view, home)!);
      return {
        event,
        team: v.team,
        channel: v.channel,
      };
    }
    default:
      return undefined;
  }
}

/** Slack's opaque event_context: "4-" and base64url JSON naming event type, team, app, channel. */
function eventContext(type: string, team: string, app: string, channel: string): string {
  return `4-${Buffer.from(JSON.stringify({ et: type, tid: team, aid: app, cid: channel })).toString('base64url')}`;
}

function eventCallback(ctx: RenderContext): JsonObject | undefined {
  const inner = innerEvent(ctx);
  if (inner === undefined) return undefined;
  const app = appOfTeam(ctx.view, inner.team);
  // Keys whose value is undefined are dropped when the body is serialised, as the template did.
  return {
    token: app?.verification_token as JsonValue,
    team_id: inner.team,
    context_team_id: inner.team,
    context_enterprise_id: null,
    api_app_id: app?.id as JsonValue,
    event: inner.event,
    type: 'event_callback',
    event_id: ctx.eventId,
    event_time: Math.floor(ctx.now / 1000),
    authorizations: (app === undefined
      ? undefined
      : [
          {
            enterprise_id: null,
            team_id: inner.team,
            user_id: app.bot_user_id,
            is_bot: true,
            is_enterprise_install: false,
          },
        ]) as JsonValue,
    is_ext_shared_channel: false,
    event_context: eventContext(ctx.eventType, inner.team, app?.id ?? '', inner.channel),
  };
}

/** url_verification: {token, challenge, type}. `api_app_id` routes it and is not sent (encodeSlackBody). */
function urlVerification(ctx: RenderContext): JsonObject | undefined {
  const sub = ctx.subject === undefined ? undefined : eventSubscriptionKind.of(ctx.subject);
  const app = sub === undefined ? undefined : appKind.read(ctx.view, sub.app_id);
  if (app === undefined) return undefined;
  // A random-looking challenge, derived from the event id the world drew.
  const challenge = createHash('sha256')
    .update(`challenge:${ctx.eventId}`)
    .digest('base64url')
    .slice(0, 48);
  return { token: app.verification_token, challenge, type: 'url_verification', api_app_id: app.id };
}

function blockActions(ctx: RenderContext): JsonObject | undefined {
  const f = ctx.subject === undefined ? undefined : blockActionKind.of(ctx.subject);
  if (f === undefined) return undefined;
  const app = appKind.read(ctx.view, f.app_id)!;
  const team = teamKind.read(ctx.view, f.team)!;
  const user = userKind.read(ctx.view, f.user)!;
  const channel = channelKind.read(ctx.view, f.channel)!;
  const message = messageKind.read(ctx.view, messageKey(f.channel, f.message_ts))!;
  const { client_msg_id: _c, team: _t, channel: _ch, ...shown } = message;
  return {
    type: 'block_actions',
    user: { id: user.id, username: user.name, name: user.name, team_id: user.team_id },
    api_app_id: app.id,
    token: app.verification_token,
    container: {
      type: 'message',
      message_ts: f.message_ts,
      channel_id: f.channel,
      is_ephemeral: false,
    },
    trigger_id: f.trigger_id,
    team: { id: team.id, domain: team.domain },
    // No `enterprise` outside Enterprise Grid: Slack's payload (and Bolt's BlockAction type, where
    // it is an optional object, never null) leaves it out.
    is_enterprise_install: false,
    channel: { id: channel.id, name: channel.name },
    message: messageKind.json(shown),
    state: { values: {} },
    response_url: f.response_url,
    actions: [blockActionKind.json(f).action ?? null],
  };
}

function slashCommand(ctx: RenderContext): JsonObject | undefined {
  const c = ctx.subject === undefined ? undefined : commandInvocationKind.of(ctx.subject);
  if (c === undefined) return undefined;
  const app = appKind.read(ctx.view, c.app_id)!;
  const team = teamKind.read(ctx.view, c.team_id)!;
  const user = userKind.read(ctx.view, c.user_id)!;
  const channel = channelKind.read(ctx.view, c.channel_id)!;
  // Slack's field order for a command's form body.
  return {
    token: app.verification_token,
    team_id: team.id,
    team_domain: team.domain,
    channel_id: channel.id,
    channel_name: channel.name,
    user_id: user.id,
    user_name: user.name,
    command: c.command,
    text: c.text,
    api_app_id: app.id,
    is_enterprise_install: 'false',
    response_url: c.response_url,
    trigger_id: c.trigger_id,
  };
}

export function envelopeValues(ctx: RenderContext): Record<string, JsonValue | undefined> {
  switch (ctx.eventType) {
    case 'url_verification':
      return { envelope: urlVerification(ctx) };
    case 'block_actions':
      return { envelope: blockActions(ctx) };
    case 'slash_command':
      return { envelope: slashCommand(ctx) };
    case 'view_submission':
    case 'shortcut':
    case 'message_action':
      return { envelope: interactivePayload(ctx) };
    default:
      return { envelope: eventCallback(ctx) };
  }
}

/** JSON for events; `payload=<JSON>` for interactivity; the fields themselves for a command. */
export function encodeSlackBody(rendered: JsonValue | undefined, ctx: RenderContext): string {
  if (ctx.eventType === 'block_actions' || INTERACTIVE_TYPES.includes(ctx.eventType))
    return new URLSearchParams({ payload: JSON.stringify(rendered) }).toString();
  if (ctx.eventType === 'slash_command')
    return new URLSearchParams(rendered as Record<string, string>).toString();
  if (ctx.eventType === 'url_verification') {
    const { api_app_id: _routing, ...body } = rendered as JsonObject;
    return JSON.stringify(body);
  }
  return JSON.stringify(rendered);
}
