// The Web API methods the Slack surface serves, each onto the Slack pack's operations (one atomic
// action per write) or its state (reads never append). Arguments arrive form-encoded, as
// @slack/web-api sends them; lists page with Slack's cursors (response_metadata.next_cursor).
import type { JsonObject, JsonValue, Twin } from '../../../src/index.js';
import type { Route, RouteContext } from '../../../src/host/index.js';
import { addReaction, joinChannel, removeReaction } from '../activity.js';
import { updateEventSubscription, type SlackApp } from '../apps.js';
import { postMessage, type SlackMessage } from '../messages.js';
import { renderChannelCreated, renderUser } from '../render-events.js';
import { renderView } from '../render-interactive.js';
import { openView, publishView, type ViewInput } from '../views.js';
import { createChannel, type SlackChannel, type SlackTeam, type SlackUser } from '../workspace.js';
import { SlackMethodError } from './errors.js';
import type { SlackPrincipal } from './principal.js';

type Ctx = RouteContext<SlackPrincipal>;
export const CHANNEL_INDEX = 'channel';

function str(input: JsonObject, key: string): string {
  const v = input[key];
  if (typeof v !== 'string' || v === '')
    throw new SlackMethodError(
      key === 'channel' ? 'channel_not_found' : 'invalid_arguments',
      `${key} is required`,
    );
  return v;
}

function limitOf(input: JsonObject, max = 1000): number {
  const raw = input.limit;
  if (raw === undefined || raw === '') return 100;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new SlackMethodError('invalid_limit', 'limit must be a positive integer');
  return Math.min(n, max);
}

/** Slack's opaque cursor: here the offset of the next item, base64-encoded. */
function offsetOf(input: JsonObject): number {
  const cursor = input.cursor;
  if (cursor === undefined || cursor === '') return 0;
  const m = /^next:(\d+)$/.exec(Buffer.from(String(cursor), 'base64').toString('utf8'));
  if (m === null)
    throw new SlackMethodError('invalid_cursor', 'the cursor was not one this API gave');
  return Number(m[1]);
}

function page<T>(items: readonly T[], input: JsonObject): { items: T[]; next: string } {
  const offset = offsetOf(input);
  const limit = limitOf(input);
  const slice = items.slice(offset, offset + limit);
  const next =
    offset + limit < items.length ? Buffer.from(`next:${offset + limit}`).toString('base64') : '';
  return { items: slice, next };
}

async function channelOf(twin: Twin, p: SlackPrincipal, id: string): Promise<SlackChannel> {
  const r = await twin.get('channel', id);
  if (r === undefined || r.deleted || r.fields.team_id !== p.team)
    throw new SlackMethodError('channel_not_found', `no channel ${id}`);
  return r.fields as unknown as SlackChannel;
}

function renderMessage(m: SlackMessage): JsonObject {
  const { client_msg_id: _c, channel: _ch, ...shown } = m;
  return shown as unknown as JsonObject;
}

function renderChannel(c: SlackChannel): JsonObject {
  return {
    ...renderChannelCreated(c),
    is_member: true,
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 },
  };
}

function parsed(input: JsonObject, key: string): JsonValue | undefined {
  const v = input[key];
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as JsonValue;
  } catch {
    throw new SlackMethodError('invalid_arguments', `${key} must be JSON`);
  }
}

const ok = (body: JsonObject): JsonObject => ({ ok: true, ...body });

function route(
  name: string,
  kind: 'read' | 'write',
  handle: (ctx: Ctx) => Promise<JsonObject>,
  events?: string[],
): Route<SlackPrincipal> {
  return {
    method: 'POST',
    path: `/api/${name}`,
    sdk: name,
    kind,
    handle,
    ...(events === undefined ? {} : { events }),
  };
}

export const SLACK_METHODS: readonly Route<SlackPrincipal>[] = [
  route('auth.test', 'read', async ({ principal: p, origin }) => {
    const team = (await p.twin.get('team', p.team))!.fields as unknown as SlackTeam;
    const user = (await p.twin.get('user', p.user))!.fields as unknown as SlackUser;
    return ok({
      url: `${origin}/`,
      team: team.name,
      user: user.name,
      team_id: team.id,
      user_id: user.id,
      ...(p.app === undefined ? {} : { bot_id: p.app.bot_id, app_id: p.app.id }),
      is_enterprise_install: false,
    });
  }),
  route('team.info', 'read', async ({ principal: p }) => {
    const team = (await p.twin.get('team', p.team))!.fields as unknown as SlackTeam;
    return ok({
      team: { id: team.id, name: team.name, domain: team.domain, email_domain: '', icon: {} },
    });
  }),
  route('users.info', 'read', async ({ principal: p, input }) => {
    const r = await p.twin.get('user', str(input, 'user'));
    if (r === undefined || r.fields.team_id !== p.team)
      throw new SlackMethodError('user_not_found', `no user ${String(input.user)}`);
    return ok({ user: renderUser(r.fields as unknown as SlackUser, 0) });
  }),
  route(
    'chat.postMessage',
    'write',
    async ({ principal: p, input }) => {
      const blocks = parsed(input, 'blocks') as JsonObject[] | undefined;
      if (input.text === undefined && blocks === undefined)
        throw new SlackMethodError('no_text', 'text or blocks is required');
      const message = await postMessage(p.twin, {
        channel: str(input, 'channel'),
        user: p.user,
        text: typeof input.text === 'string' ? input.text : '',
        ...(typeof input.thread_ts === 'string' ? { thread_ts: input.thread_ts } : {}),
        ...(blocks === undefined ? {} : { blocks }),
      });
      return ok({ channel: message.channel, ts: message.ts, message: renderMessage(message) });
    },
    ['message', 'app_mention'],
  ),
  route(
    'reactions.add',
    'write',
    async ({ principal: p, input }) => {
      await addReaction(p.twin, {
        channel: str(input, 'channel'),
        ts: str(input, 'timestamp'),
        user: p.user,
        name: str(input, 'name'),
      });
      return ok({});
    },
    ['reaction_added'],
  ),
  route(
    'reactions.remove',
    'write',
    async ({ principal: p, input }) => {
      await removeReaction(p.twin, {
        channel: str(input, 'channel'),
        ts: str(input, 'timestamp'),
        user: p.user,
        name: str(input, 'name'),
      });
      return ok({});
    },
    ['reaction_removed'],
  ),
  route('conversations.history', 'read', async ({ principal: p, input }) => {
    const channel = await channelOf(p.twin, p, str(input, 'channel'));
    const messages = (await p.twin.lookup('message', CHANNEL_INDEX, channel.id))
      .filter((r) => !r.deleted)
      .map((r) => r.fields as unknown as SlackMessage)
      .sort((a, b) => (a.ts < b.ts ? 1 : -1));
    const { items, next } = page(messages, input);
    return ok({
      messages: items.map(renderMessage),
      has_more: next !== '',
      response_metadata: { next_cursor: next },
    });
  }),
  route('conversations.info', 'read', async ({ principal: p, input }) =>
    ok({ channel: renderChannel(await channelOf(p.twin, p, str(input, 'channel'))) }),
  ),
  route('conversations.list', 'read', async ({ principal: p, input }) => {
    const channels = (await p.twin.list('channel'))
      .map((r) => r.fields as unknown as SlackChannel)
      .filter((c) => c.team_id === p.team)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const { items, next } = page(channels, input);
    return ok({ channels: items.map(renderChannel), response_metadata: { next_cursor: next } });
  }),
  route(
    'conversations.create',
    'write',
    async ({ principal: p, input }) => {
      const channel = await createChannel(p.twin, {
        team: p.team,
        name: str(input, 'name'),
        creator: p.user,
      });
      return ok({ channel: renderChannel(channel) });
    },
    ['channel_created'],
  ),
  route(
    'conversations.join',
    'write',
    async ({ principal: p, input }) => {
      const channel = await channelOf(p.twin, p, str(input, 'channel'));
      try {
        await joinChannel(p.twin, { channel: channel.id, user: p.user });
      } catch (error) {
        // Joining a channel one is in already is a success on Slack, with a warning.
        if ((error as { vendorCode?: string }).vendorCode !== 'already_in_channel') throw error;
        return ok({ channel: renderChannel(channel), warning: 'already_in_channel' });
      }
      return ok({ channel: renderChannel(channel) });
    },
    ['member_joined_channel'],
  ),
  route('views.open', 'write', async ({ principal: p, input }) => {
    const app = botApp(p);
    const trigger = await triggerUser(p.twin, str(input, 'trigger_id'));
    const view = await openView(p.twin, {
      app: app.id,
      user: trigger,
      view: parsed(input, 'view') as unknown as ViewInput,
    });
    return ok({ view: renderView(view) });
  }),
  route('views.publish', 'write', async ({ principal: p, input }) => {
    const app = botApp(p);
    const view = await publishView(p.twin, {
      app: app.id,
      user: str(input, 'user_id'),
      view: parsed(input, 'view') as unknown as ViewInput,
    });
    return ok({ view: renderView(view) });
  }),
  route(
    'apps.manifest.update',
    'write',
    async ({ principal: p, input }) => {
      const app = botApp(p);
      if (input.app_id !== undefined && input.app_id !== app.id)
        throw new SlackMethodError('invalid_app_id', `the token belongs to app ${app.id}`);
      const manifest = parsed(input, 'manifest') as
        { settings?: { event_subscriptions?: { request_url?: string } } } | undefined;
      const url = manifest?.settings?.event_subscriptions?.request_url;
      if (typeof url !== 'string')
        throw new SlackMethodError(
          'invalid_manifest',
          'manifest.settings.event_subscriptions.request_url is required',
        );
      await updateEventSubscription(p.twin, app.id, { request_url: url });
      return ok({ app_id: app.id, permissions_updated: false });
    },
    ['url_verification'],
  ),
];

function botApp(p: SlackPrincipal): SlackApp {
  if (p.app === undefined)
    throw new SlackMethodError('not_allowed_token_type', 'this method takes a bot token (xoxb-)');
  return p.app;
}

/** The person a trigger_id (from an interactive payload) was issued to. */
async function triggerUser(twin: Twin, triggerId: string): Promise<string> {
  for (const type of ['block_action', 'command_invocation', 'shortcut_run', 'view_submission']) {
    const r = await twin.get(type, triggerId);
    if (r !== undefined) return String(r.fields.user ?? r.fields.user_id);
  }
  throw new SlackMethodError('invalid_trigger_id', `no interaction issued trigger_id ${triggerId}`);
}
