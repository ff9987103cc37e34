// Messages posted to a channel. One post is one write; the pack renders it as a `message`
// event and, when the text mentions the workspace app's bot user, also as `app_mention`. A post
// may carry Block Kit blocks (a bot's buttons, which users then click: interactivity.ts).
import { commit, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { messageTs } from './ids.js';
import { appOfTeam } from './apps.js';
import { checkSees, getChannel, getUser } from './workspace.js';
import { recordKind } from '../../src/index.js';

export type SlackMessage = {
  type: 'message';
  /** Set by Slack's own client on what a person types; an app's bot posts carry none. */
  client_msg_id?: string;
  text: string;
  user: string;
  ts: string;
  team: string;
  channel: string;
  thread_ts?: string;
  /** Block Kit blocks, when the post has any. */
  blocks?: JsonObject[];
  /** Legacy secondary attachments, kept as given (chat.postMessage, chat.update, scheduled). */
  attachments?: JsonObject[];
  /** Set when a bot user posted it. */
  bot_id?: string;
  app_id?: string;
  /** Set once its author edits it (chat.update). */
  edited?: { user: string; ts: string };
  /**
   * `tombstone` once its author deleted it while it had replies: Slack keeps the thread, its
   * parent shown as "This message was deleted." by Slackbot (message-edits.ts).
   * `thread_broadcast` for a reply posted with reply_broadcast: shown in the channel's history
   * too, not only in its thread.
   */
  subtype?: 'tombstone' | 'thread_broadcast';
};

/** A channel's messages (thread replies too), looked up without a scan. */
const MESSAGE_CHANNEL_INDEX = 'channel';

/** The message records of the twin, typed (src/state/record-kind.ts). */
export const messageKind = recordKind<SlackMessage>({
  type: 'message',
  indexes: { [MESSAGE_CHANNEL_INDEX]: 'channel' },
});

/** Who a tombstone is by, and what it says, as Slack shows a deleted thread's parent. */
export const TOMBSTONE_USER = 'USLACKBOT';
export const TOMBSTONE_TEXT = 'This message was deleted.';

/** The replies of the thread `ts` leads in `channel`, oldest first. */
export function repliesOf(view: ReadView, channel: string, ts: string): SlackMessage[] {
  return messageKind
    .lookup(view, MESSAGE_CHANNEL_INDEX, channel)
    .filter((m) => m.thread_ts === ts && m.ts !== ts)
    .sort((a, b) => (a.ts < b.ts ? -1 : 1));
}

/**
 * A deleted thread parent as Slack shows it (history, replies, events): Slackbot's hidden
 * tombstone; what the author wrote is gone. The caller adds the thread's summary.
 */
export function renderTombstone(m: SlackMessage): JsonObject {
  return {
    type: 'message',
    subtype: 'tombstone',
    text: TOMBSTONE_TEXT,
    user: TOMBSTONE_USER,
    hidden: true,
    ts: m.ts,
    thread_ts: m.ts,
    parent_user_id: TOMBSTONE_USER,
    is_locked: false,
    subscribed: false,
  };
}

/** The summary a thread's parent carries: reply_count, reply_users(_count), latest_reply. */
export function threadSummary(replies: readonly SlackMessage[]): JsonObject {
  const users = [...new Set(replies.map((r) => r.user))];
  return {
    reply_count: replies.length,
    reply_users: users,
    reply_users_count: users.length,
    latest_reply: replies.length === 0 ? '0000000000.000000' : replies[replies.length - 1]!.ts,
  };
}

export interface PostMessageInput {
  channel: string;
  /** The author: a user of the channel's workspace. */
  user: string;
  text: string;
  thread_ts?: string;
  blocks?: JsonObject[];
  /** Legacy attachments, checked by messageContent; content enough without text or blocks. */
  attachments?: JsonObject[];
  /** With thread_ts: the reply is also shown in the channel (subtype thread_broadcast). */
  reply_broadcast?: boolean;
}

const check = checker('slack');

export function messageKey(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

/** Whether a message, or an ephemeral one (message-edits.ts), holds `ts` in the channel already. */
export function tsTaken(view: ReadView, channel: string, ts: string): boolean {
  const key = messageKey(channel, ts);
  return view.get('message', key) !== undefined || view.get('ephemeral_message', key) !== undefined;
}

/** How a user mention is written in message text. */
export function mention(userId: string): string {
  return `<@${userId}>`;
}

/** Slack refuses message text over 40,000 characters (msg_too_long). */
function checkMessageLength(text: string): void {
  if (text.length > 40_000)
    throw slackError(
      'msg_too_long',
      'text is longer than 40,000 characters',
      'text',
      'invalid_input',
    );
}

/**
 * A message's content as Slack takes it: text, Block Kit blocks, or both — and, where given, legacy
 * attachments. With blocks or attachments the text is only the notifications' fallback and may be
 * left out (or empty); with none of them, no text or blank text is `no_text`. Text that is not a
 * string is `invalid_arguments`.
 */
export function messageContent(
  text: unknown,
  blocks: unknown,
  attachments?: unknown,
): { text: string; blocks?: JsonObject[]; attachments?: JsonObject[] } {
  if (text !== undefined && typeof text !== 'string')
    throw slackError('invalid_arguments', 'text must be a string', 'text', 'invalid_input');
  const t = text ?? '';
  const kept = attachments === undefined ? undefined : checkAttachments(attachments);
  if (blocks === undefined && kept === undefined && t.trim() === '')
    throw slackError('no_text', 'text, blocks or attachments is required', 'text', 'invalid_input');
  checkMessageLength(t);
  return {
    text: t,
    ...(blocks === undefined ? {} : { blocks: checkBlocks(blocks) }),
    ...(kept === undefined ? {} : { attachments: kept }),
  };
}

/**
 * Legacy attachments: an array of objects, at most 100 (`too_many_attachments`), kept as given —
 * the twin does not render them. Anything else is `invalid_attachments`; an empty array is none.
 */
function checkAttachments(value: unknown): JsonObject[] | undefined {
  if (
    !Array.isArray(value) ||
    value.some((a) => a === null || typeof a !== 'object' || Array.isArray(a))
  )
    throw slackError(
      'invalid_attachments',
      'attachments must be an array of attachment objects',
      'attachments',
      'invalid_input',
    );
  if (value.length > 100)
    throw slackError(
      'too_many_attachments',
      'a message takes at most 100 attachments',
      'attachments',
      'invalid_input',
    );
  return value.length === 0 ? undefined : (value as JsonObject[]);
}

export async function postMessage(twin: Twin, input: PostMessageInput): Promise<SlackMessage> {
  requirePackTwin(twin, 'slack');
  const { text, blocks, attachments } = messageContent(
    input?.text,
    input.blocks,
    input.attachments,
  );
  const done = await twin.applyAtomic((view) => {
    const message = draftMessage(
      twin,
      view,
      { ...input, text, ...(attachments === undefined ? {} : { attachments }) },
      blocks,
    );
    return commit(
      messageKind.write('message.post', messageKey(message.channel, message.ts), message),
      message,
    );
  });
  return done.result;
}

/**
 * The message a post makes, at the world clock's now, checked against the view (channel, author,
 * thread); throws Slack's refusal. A scheduled message is drafted the same way when it falls due.
 */
export function draftMessage(
  twin: Twin,
  view: ReadView,
  input: PostMessageInput,
  blocks: JsonObject[] | undefined,
): SlackMessage {
  const text = input.text;
  const channel = getChannel(view, input.channel);
  const user = getUser(view, input.user);
  if (user.team_id !== channel.team_id)
    throw slackError(
      'not_in_channel',
      `user ${user.id} is not in the workspace of channel ${channel.id}`,
      'user',
      'invalid_input',
    );
  checkSees(channel, user.id);
  if (
    input.thread_ts !== undefined &&
    view.get('message', messageKey(channel.id, input.thread_ts)) === undefined
  ) {
    throw slackError(
      'thread_not_found',
      `no message ${input.thread_ts} in channel ${channel.id}`,
      'thread_ts',
    );
  }
  // ts is unique per channel: two posts in the same millisecond get consecutive microseconds.
  const now = twin.world.clock.now();
  let bump = 0;
  while (tsTaken(view, channel.id, messageTs(now, bump))) bump++;
  const ts = messageTs(now, bump);
  // Drawn for every post, kept only for a person's: the ids drawn after it stay where they were.
  const clientMsgId = twin.world.ids.uuid();
  const message: SlackMessage = {
    type: 'message',
    // Slack ignores reply_broadcast on a message that is not a reply.
    ...(input.reply_broadcast === true && input.thread_ts !== undefined
      ? { subtype: 'thread_broadcast' as const }
      : {}),
    client_msg_id: clientMsgId,
    text,
    user: user.id,
    ts,
    team: channel.team_id,
    channel: channel.id,
    ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
    ...(blocks === undefined ? {} : { blocks }),
    ...(input.attachments === undefined ? {} : { attachments: input.attachments }),
  };
  if (user.is_bot) {
    const app = appOfTeam(view, channel.team_id);
    if (app !== undefined && app.bot_user_id === user.id) {
      Object.assign(message, { bot_id: app.bot_id, app_id: app.id });
      delete message.client_msg_id;
    }
  }
  return message;
}

/** Blocks must be Block Kit objects with a type; buttons need an action_id (what a click reports). */
function checkBlocks(value: unknown): JsonObject[] {
  const blocks = check.object({ blocks: value }, 'blocks').blocks;
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50)
    throw slackError(
      'invalid_blocks',
      'blocks must be an array of 1 to 50 Block Kit blocks',
      'blocks',
      'invalid_input',
    );
  blocks.forEach((block, i) => {
    if (
      block === null ||
      typeof block !== 'object' ||
      Array.isArray(block) ||
      typeof block.type !== 'string'
    )
      throw slackError(
        'invalid_blocks',
        `blocks[${i}] must be an object with a type`,
        `blocks[${i}]`,
        'invalid_input',
      );
    const elements = block.elements;
    if (
      block.type === 'actions' &&
      (!Array.isArray(elements) ||
        elements.some(
          (e) =>
            e === null ||
            typeof e !== 'object' ||
            Array.isArray(e) ||
            typeof e.action_id !== 'string' ||
            typeof e.type !== 'string',
        ))
    ) {
      throw slackError(
        'invalid_blocks',
        `blocks[${i}].elements must be interactive elements, each with a type and an action_id`,
        `blocks[${i}].elements`,
        'invalid_input',
      );
    }
  });
  return blocks as JsonObject[];
}
