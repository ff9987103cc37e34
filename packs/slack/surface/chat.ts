// chat.* and reactions.*: posting (now, later, or to one person only), editing and deleting a
// message, its permalink on the twin's own origin, and emoji reactions. Each write is one of the
// pack's operations — one atomic action — and the events it causes go out after the answer.
import type { JsonObject } from '../../../src/index.js';
import { addReaction, removeReaction } from '../activity.js';
import { deleteMessage, postEphemeral, updateMessage } from '../message-edits.js';
import { messageKey, messageKind, postMessage } from '../messages.js';
import {
  deleteScheduledMessage,
  pendingScheduledMessages,
  scheduleMessage,
  type ScheduledMessage,
} from '../scheduled-messages.js';
import { SlackMethodError } from './errors.js';
import { postTarget } from './targets.js';
import {
  blocksOf,
  channelOf,
  ok,
  optionalStr,
  page,
  renderMessage,
  route,
  str,
  tsBound,
  type SlackRoute,
} from './route.js';

/**
 * A message's content as the SDK sends it: text, blocks and legacy attachments, each where given
 * (text left out stays out: chat.update tells it from text given empty). With blocks or
 * attachments the pack decides whether there is content enough (messages.ts).
 */
function contentArgs(input: JsonObject): {
  text?: string;
  blocks?: JsonObject[];
  attachments?: JsonObject[];
} {
  const blocks = blocksOf(input);
  const attachments = attachmentsOf(input);
  if (input.text === undefined && blocks === undefined && attachments === undefined)
    throw new SlackMethodError('no_text', 'text, blocks or attachments is required');
  return {
    ...(input.text === undefined ? {} : { text: typeof input.text === 'string' ? input.text : '' }),
    ...(blocks === undefined ? {} : { blocks }),
    ...(attachments === undefined ? {} : { attachments: attachments as JsonObject[] }),
  };
}

/** What a post is given: its content, the text '' when left out (only the fallback then). */
const postArgs = (input: JsonObject) => ({ text: '', ...contentArgs(input) });

/**
 * Legacy `attachments`, when given: the JSON the SDK sends, checked by the pack (an array of
 * objects); JSON that does not parse is `invalid_attachments`.
 */
function attachmentsOf(input: JsonObject): unknown {
  const raw = input.attachments;
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new SlackMethodError('invalid_attachments', 'attachments must be a JSON array');
  }
}

function scheduledShown(s: ScheduledMessage): JsonObject {
  return {
    id: s.id,
    channel_id: s.channel,
    post_at: s.post_at,
    date_created: s.date_created,
    text: s.text,
  };
}

export const CHAT_METHODS: readonly SlackRoute[] = [
  route(
    'chat.postMessage',
    'write',
    async ({ principal: p, input }) => {
      const thread = optionalStr(input, 'thread_ts');
      const broadcast = [true, 'true', '1'].includes(input.reply_broadcast as never);
      const content = postArgs(input);
      const message = await postMessage(p.twin, {
        channel: await postTarget(p, str(input, 'channel'), { users: true }),
        user: p.user,
        ...content,
        ...(thread === undefined ? {} : { thread_ts: thread }),
        ...(broadcast ? { reply_broadcast: true } : {}),
      });
      return ok({ channel: message.channel, ts: message.ts, message: renderMessage(message) });
    },
    ['message', 'app_mention'],
  ),
  route(
    'chat.update',
    'write',
    async ({ principal: p, input }) => {
      const channel = str(input, 'channel');
      const message = await updateMessage(p.twin, {
        channel,
        ts: str(input, 'ts'),
        user: p.user,
        ...contentArgs(input),
      });
      return ok({
        channel: message.channel,
        ts: message.ts,
        text: message.text,
        message: renderMessage(message),
      });
    },
    ['message'],
  ),
  route(
    'chat.delete',
    'write',
    async ({ principal: p, input }) => {
      const message = await deleteMessage(p.twin, {
        channel: str(input, 'channel'),
        ts: str(input, 'ts'),
        user: p.user,
      });
      return ok({ channel: message.channel, ts: message.ts });
    },
    ['message'],
  ),
  route('chat.postEphemeral', 'write', async ({ principal: p, input }) => {
    const content = postArgs(input);
    const shown = await postEphemeral(p.twin, {
      channel: await postTarget(p, str(input, 'channel'), { users: false }),
      user: str(input, 'user'),
      author: p.user,
      ...content,
    });
    return ok({ message_ts: shown.ts });
  }),
  route('chat.getPermalink', 'read', async ({ principal: p, input, origin }) => {
    const channel = await channelOf(p.twin, p, str(input, 'channel'));
    const ts = str(input, 'message_ts');
    const message = await p.twin.read((view) => messageKind.read(view, messageKey(channel.id, ts)));
    if (message === undefined)
      throw new SlackMethodError('message_not_found', `no message ${ts} in ${channel.id}`);
    // On the twin's own origin: a test that follows it never leaves the twin.
    const base = `${origin}/archives/${channel.id}/p${ts.replace('.', '')}`;
    const permalink =
      message.thread_ts === undefined || message.thread_ts === ts
        ? base
        : `${base}?thread_ts=${message.thread_ts}&cid=${channel.id}`;
    return ok({ channel: channel.id, permalink });
  }),
  route(
    'chat.scheduleMessage',
    'write',
    async ({ principal: p, input }) => {
      const postAt = Number(str(input, 'post_at'));
      if (!Number.isInteger(postAt))
        throw new SlackMethodError('invalid_time', 'post_at must be a Unix time in seconds');
      const thread = optionalStr(input, 'thread_ts');
      const content = postArgs(input);
      const s = await scheduleMessage(p.twin, {
        channel: await postTarget(p, str(input, 'channel'), { users: false }),
        user: p.user,
        post_at: postAt,
        ...content,
        ...(thread === undefined ? {} : { thread_ts: thread }),
      });
      return ok({
        channel: s.channel,
        scheduled_message_id: s.id,
        post_at: s.post_at,
        message: {
          type: 'delayed_message',
          text: s.text,
          user: s.user,
          ...(p.app === undefined ? {} : { bot_id: p.app.bot_id, app_id: p.app.id }),
          ...(s.blocks === undefined ? {} : { blocks: s.blocks }),
          ...(s.attachments === undefined ? {} : { attachments: s.attachments }),
        },
      });
    },
    ['message', 'app_mention'],
  ),
  route('chat.deleteScheduledMessage', 'write', async ({ principal: p, input }) => {
    await deleteScheduledMessage(p.twin, {
      channel: str(input, 'channel'),
      id: str(input, 'scheduled_message_id'),
      user: p.user,
    });
    return ok({});
  }),
  route('chat.scheduledMessages.list', 'read', async ({ principal: p, input }) => {
    const channel = optionalStr(input, 'channel');
    // Slack's window is on post_at, in Unix seconds, both ends included.
    const oldest = tsBound(input.oldest, 'oldest');
    const latest = tsBound(input.latest, 'latest');
    const mine = (await pendingScheduledMessages(p.twin)).filter(
      (s) =>
        s.user === p.user &&
        (channel === undefined || s.channel === channel) &&
        (oldest === undefined || BigInt(s.post_at) * 1_000_000n >= oldest) &&
        (latest === undefined || BigInt(s.post_at) * 1_000_000n <= latest),
    );
    const { items, next } = page(mine, input);
    return ok({
      scheduled_messages: items.map(scheduledShown),
      response_metadata: { next_cursor: next },
    });
  }),
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
];
