// Messages posted to a channel. One post is one write; the pack renders it as a `message`
// event and, when the text mentions the workspace app's bot user, also as `app_mention`.
import { commit, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { messageTs } from './ids.js';
import { getChannel, getUser } from './workspace.js';

export type SlackMessage = {
  type: 'message';
  client_msg_id: string;
  text: string;
  user: string;
  ts: string;
  team: string;
  channel: string;
  thread_ts?: string;
};

export interface PostMessageInput {
  channel: string;
  /** The author: a user of the channel's workspace. */
  user: string;
  text: string;
  thread_ts?: string;
}

const check = checker('slack');

export function messageKey(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

/** How a user mention is written in message text. */
export function mention(userId: string): string {
  return `<@${userId}>`;
}

export async function postMessage(twin: Twin, input: PostMessageInput): Promise<SlackMessage> {
  requirePackTwin(twin, 'slack');
  const text = check.string(input?.text, 'text');
  if (text.length > 40_000) throw slackError('msg_too_long', 'text is longer than 40,000 characters', 'text', 'invalid_input');
  return (await twin.applyAtomic((view) => {
    const channel = getChannel(view, input.channel);
    const user = getUser(view, input.user);
    if (user.team_id !== channel.team_id) throw slackError('not_in_channel', `user ${user.id} is not in the workspace of channel ${channel.id}`, 'user', 'invalid_input');
    if (input.thread_ts !== undefined && view.get('message', messageKey(channel.id, input.thread_ts)) === undefined) {
      throw slackError('thread_not_found', `no message ${input.thread_ts} in channel ${channel.id}`, 'thread_ts');
    }
    // ts is unique per channel: two posts in the same millisecond get consecutive microseconds.
    const now = twin.world.clock.now();
    let bump = 0;
    while (view.get('message', messageKey(channel.id, messageTs(now, bump))) !== undefined) bump++;
    const ts = messageTs(now, bump);
    const message: SlackMessage = {
      type: 'message',
      client_msg_id: twin.world.ids.uuid(),
      text,
      user: user.id,
      ts,
      team: channel.team_id,
      channel: channel.id,
      ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
    };
    return commit({ operation: 'message.post', subjectType: 'message', subjectId: messageKey(channel.id, ts), fields: message }, message);
  })).result;
}
