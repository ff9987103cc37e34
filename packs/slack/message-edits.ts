// What happens to a message after it is posted, and the messages that never enter a channel's
// history: its author edits it (chat.update) or deletes it (chat.delete), and an app shows one
// person a message only they see (chat.postEphemeral). Only the author may edit or delete, as on
// Slack for a bot's own messages.
import { commit, type JsonObject, type ReadView, type Twin, type Write } from '../../src/index.js';
import { recordKind } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { messageTs } from './ids.js';
import {
  messageContent,
  messageKey,
  messageKind,
  repliesOf,
  TOMBSTONE_TEXT,
  TOMBSTONE_USER,
  tsTaken,
  type SlackMessage,
} from './messages.js';
import { checkSees, getChannel, getUser, isMember } from './workspace.js';

export type EphemeralMessage = {
  channel: string;
  /** Who sees it. */
  user: string;
  /** Who sent it. */
  author: string;
  text: string;
  ts: string;
  blocks?: JsonObject[];
  attachments?: JsonObject[];
};

/** The ephemeral_message records of the twin, typed (src/state/record-kind.ts). */
const ephemeralKind = recordKind<EphemeralMessage>({ type: 'ephemeral_message' });

function ownMessage(
  view: ReadView,
  channel: string,
  ts: string,
  user: string,
  verb: string,
): SlackMessage {
  const c = getChannel(view, channel);
  const message = messageKind.read(view, messageKey(c.id, ts));
  if (message === undefined)
    throw slackError('message_not_found', `no message ${ts} in channel ${c.id}`, 'ts');
  if (message.user !== user)
    throw slackError(
      `cant_${verb}_message`,
      `message ${ts} was posted by ${message.user}; only its author may ${verb} it`,
      'ts',
      'invalid_input',
    );
  return message;
}

/** What chat.update gives: a message's new content, each part optional as Slack takes it. */
export interface MessageEdit {
  channel: string;
  ts: string;
  user: string;
  /** Absent, the message is left no text (its blocks or attachments say it all). */
  text?: string;
  /** Absent keeps the old blocks unless text is given; an empty array removes them. */
  blocks?: JsonObject[];
  /** Absent keeps the old attachments; an empty array removes them. */
  attachments?: JsonObject[];
}

/**
 * The content a message holds after an edit, by Slack's documented rules for chat.update: given
 * blocks or attachments replace the old ones (an empty array removes them); attachments left out
 * are kept; blocks left out are kept only when no text is given — new text alone is rendered
 * instead of the old blocks, so they go. The edit itself must have content (`no_text`).
 */
function editedContent(
  input: MessageEdit,
): (before: SlackMessage) => Pick<SlackMessage, 'text' | 'blocks' | 'attachments'> {
  const clearsBlocks = Array.isArray(input?.blocks) && input.blocks.length === 0;
  const given = messageContent(
    input?.text,
    clearsBlocks ? undefined : input.blocks,
    input.attachments,
  );
  return (before) => {
    const blocks =
      given.blocks ?? (input.text === undefined && !clearsBlocks ? before.blocks : undefined);
    const attachments = input.attachments === undefined ? before.attachments : given.attachments;
    return {
      text: given.text,
      ...(blocks === undefined ? {} : { blocks }),
      ...(attachments === undefined ? {} : { attachments }),
    };
  };
}

/**
 * The author changes a message's content (editedContent); it keeps its ts and gains `edited`.
 * An edit that takes blocks or attachments away replaces the whole record (a record merge keeps
 * every field it is not given); one that does not merges, as it always has.
 */
export async function updateMessage(twin: Twin, input: MessageEdit): Promise<SlackMessage> {
  requirePackTwin(twin, 'slack');
  const contentOf = editedContent(input);
  const done = await twin.applyAtomic((view) => {
    const message = ownMessage(view, input.channel, input.ts, input.user, 'update');
    const next = contentOf(message);
    const edited = { user: input.user, ts: messageTs(twin.world.clock.now(), 0) };
    const { blocks: _b, attachments: _a, ...kept } = message;
    const changed: SlackMessage = { ...kept, ...next, edited };
    const key = messageKey(message.channel, message.ts);
    const removes =
      (message.blocks !== undefined && next.blocks === undefined) ||
      (message.attachments !== undefined && next.attachments === undefined);
    const write = messageKind.write('message.update', key, { ...next, edited });
    return commit(
      removes
        ? {
            ...write,
            projection: {
              creates: [{ type: 'message', id: key, fields: messageKind.json(changed) }],
            },
          }
        : write,
      changed,
    );
  });
  return done.result;
}

/**
 * The author deletes a message. It leaves the channel's history, unless it leads a thread that has
 * replies: then, as on Slack, it becomes a tombstone (Slackbot's "This message was deleted."),
 * which history and the thread still show, its replies kept (sent as `message_changed`). Deleting
 * the last reply of a tombstone's thread takes the tombstone too (two `message_deleted`).
 */
export async function deleteMessage(
  twin: Twin,
  input: { channel: string; ts: string; user: string },
): Promise<SlackMessage> {
  requirePackTwin(twin, 'slack');
  const done = await twin.applyAtomic((view) => {
    const message = ownMessage(view, input?.channel, input.ts, input.user, 'delete');
    const key = messageKey(message.channel, message.ts);
    const leads = message.thread_ts === undefined || message.thread_ts === message.ts;
    if (leads && repliesOf(view, message.channel, message.ts).length > 0)
      return commit(
        messageKind.write('message.tombstone', key, {
          subtype: 'tombstone',
          text: TOMBSTONE_TEXT,
          user: TOMBSTONE_USER,
        }),
        message,
      );
    const writes: Write[] = [removal(key)];
    if (!leads) {
      const parent = messageKind.read(view, messageKey(message.channel, message.thread_ts!));
      if (
        parent?.subtype === 'tombstone' &&
        repliesOf(view, message.channel, parent.ts).length === 1
      )
        writes.push(removal(messageKey(parent.channel, parent.ts)));
    }
    return commit(writes, message);
  });
  return done.result;
}

function removal(key: string): Write {
  return { operation: 'message.delete', subjectType: 'message', subjectId: key, delete: true };
}

/**
 * A message only `user` sees, in a channel they are in: it never enters the channel's history
 * and causes no event; the record keeps what was shown, for a test to read.
 */
export async function postEphemeral(
  twin: Twin,
  input: {
    channel: string;
    user: string;
    author: string;
    text?: string;
    blocks?: JsonObject[];
    attachments?: JsonObject[];
  },
): Promise<EphemeralMessage> {
  requirePackTwin(twin, 'slack');
  const shown = messageContent(input?.text, input?.blocks, input?.attachments);
  const done = await twin.applyAtomic((view) => {
    const channel = getChannel(view, input.channel);
    const user = getUser(view, input.user);
    const author = getUser(view, input.author, 'author');
    // The author posts as in any channel: it must see it, from its own workspace.
    if (author.team_id !== channel.team_id)
      throw slackError('channel_not_found', `no channel ${channel.id}`, 'channel');
    checkSees(channel, author.id);
    if (user.team_id !== channel.team_id || !isMember(view, channel, user.id))
      throw slackError(
        'user_not_in_channel',
        `user ${user.id} is not in channel ${channel.id}`,
        'user',
        'invalid_input',
      );
    // Its ts is unique in the channel, among messages and everyone's ephemeral ones alike (kept
    // under the same key as a message, so a post skips its ts too: messages.ts).
    const now = twin.world.clock.now();
    let bump = 0;
    while (tsTaken(view, channel.id, messageTs(now, bump))) bump++;
    const ts = messageTs(now, bump);
    const message: EphemeralMessage = {
      channel: channel.id,
      user: user.id,
      author: input.author,
      ts,
      ...shown,
    };
    return commit(
      ephemeralKind.write('ephemeral_message.post', messageKey(channel.id, ts), message),
      message,
    );
  });
  return done.result;
}
