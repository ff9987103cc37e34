// Messages scheduled for later (chat.scheduleMessage): kept as records with their `post_at`, and
// posted when the world clock reaches it — by whoever moves the clock (the host's clock control,
// a Stripe test clock), so they fire in instant order with every other vendor's due work. Due
// work is read from the log through the `state` index, not from timers, so a world reopened later
// catches up; each post is one commit (the message and the record's new state) whose decide
// re-checks the record, so running it twice posts nothing twice.
import { commit, skip, type JsonObject, type Twin } from '../../src/index.js';
import { recordKind } from '../../src/index.js';
import { isVendorError } from '../kit/errors.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { upperId } from '../kit/ids.js';
import { draftMessage, messageContent, messageKey, messageKind } from './messages.js';
import { checkSees, getChannel, getUser } from './workspace.js';

export type ScheduledMessage = {
  id: string;
  channel: string;
  team: string;
  user: string;
  text: string;
  blocks?: JsonObject[];
  /** Legacy attachments, posted with it. */
  attachments?: JsonObject[];
  thread_ts?: string;
  /** Unix seconds. */
  post_at: number;
  date_created: number;
  state: 'pending' | 'posted' | 'deleted' | 'failed';
  /** The posted message's ts, once posted. */
  ts?: string;
  /** Why it could not be posted (the channel went, …). */
  error?: string;
};

const SCHEDULED_STATE_INDEX = 'state';

/** The scheduled_message records of the twin, typed (src/state/record-kind.ts). */
export const scheduledMessageKind = recordKind<ScheduledMessage>({
  type: 'scheduled_message',
  indexes: { [SCHEDULED_STATE_INDEX]: 'state' },
});

/** Slack takes post_at up to 120 days ahead. */
const HORIZON_S = 120 * 86_400;

export interface ScheduleMessageInput {
  channel: string;
  user: string;
  text: string;
  post_at: number;
  blocks?: JsonObject[];
  attachments?: JsonObject[];
  thread_ts?: string;
}

export async function scheduleMessage(
  twin: Twin,
  input: ScheduleMessageInput,
): Promise<ScheduledMessage> {
  requirePackTwin(twin, 'slack');
  const { text, blocks, attachments } = messageContent(
    input?.text,
    input.blocks,
    input.attachments,
  );
  const postAt = input.post_at;
  if (!Number.isInteger(postAt))
    throw slackError(
      'invalid_time',
      'post_at must be a Unix time in seconds',
      'post_at',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    const now = Math.floor(twin.world.clock.now() / 1000);
    if (postAt <= now)
      throw slackError(
        'time_in_past',
        `post_at ${postAt} is not after now (${now})`,
        'post_at',
        'invalid_input',
      );
    if (postAt > now + HORIZON_S)
      throw slackError(
        'time_too_far',
        'post_at is more than 120 days ahead',
        'post_at',
        'invalid_input',
      );
    const channel = getChannel(view, input.channel);
    const user = getUser(view, input.user);
    if (user.team_id !== channel.team_id)
      throw slackError(
        'not_in_channel',
        `user ${user.id} is not in the workspace of ${channel.id}`,
        'user',
        'invalid_input',
      );
    // Refused now, as the post would be when it falls due.
    checkSees(channel, user.id);
    if (
      input.thread_ts !== undefined &&
      messageKind.read(view, messageKey(channel.id, input.thread_ts)) === undefined
    )
      throw slackError(
        'thread_not_found',
        `no message ${input.thread_ts} in channel ${channel.id}`,
        'thread_ts',
      );
    const scheduled: ScheduledMessage = {
      id: upperId(twin.world.ids, 'Q'),
      channel: channel.id,
      team: channel.team_id,
      user: user.id,
      text,
      ...(blocks === undefined ? {} : { blocks }),
      ...(attachments === undefined ? {} : { attachments }),
      ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
      post_at: postAt,
      date_created: now,
      state: 'pending',
    };
    return commit(
      scheduledMessageKind.write('scheduled_message.create', scheduled.id, scheduled),
      scheduled,
    );
  });
  return done.result;
}

/** chat.deleteScheduledMessage: only a pending one, in its channel, by its author. */
export async function deleteScheduledMessage(
  twin: Twin,
  input: { channel: string; id: string; user: string },
): Promise<void> {
  requirePackTwin(twin, 'slack');
  await twin.applyAtomic((view) => {
    const s = scheduledMessageKind.read(view, input?.id);
    if (
      s === undefined ||
      s.state !== 'pending' ||
      s.channel !== input.channel ||
      s.user !== input.user
    )
      throw slackError(
        'invalid_scheduled_message_id',
        `no pending scheduled message ${input.id} of yours in ${input.channel}`,
        'scheduled_message_id',
      );
    return commit(
      scheduledMessageKind.write('scheduled_message.delete', s.id, { state: 'deleted' }),
    );
  });
}

/**
 * The messages waiting to be posted, earliest first: read through the state index, so the cost is
 * what is pending, not every message ever scheduled.
 */
export async function pendingScheduledMessages(twin: Twin): Promise<ScheduledMessage[]> {
  return (
    await twin.read((view) => scheduledMessageKind.lookup(view, SCHEDULED_STATE_INDEX, 'pending'))
  ).sort((a, b) => a.post_at - b.post_at || (a.id < b.id ? -1 : 1));
}

/** When the earliest pending scheduled message falls due (epoch ms). */
export async function scheduledDueAt(twin: Twin): Promise<number | undefined> {
  const first = (await pendingScheduledMessages(twin))[0];
  return first === undefined ? undefined : first.post_at * 1000;
}

/** Posts every scheduled message due at the world clock's now; answers how many it settled. */
export async function postDueScheduledMessages(twin: Twin): Promise<number> {
  let ran = 0;
  for (const s of await pendingScheduledMessages(twin)) {
    if (s.post_at * 1000 > twin.world.clock.now()) break;
    const done = await twin.applyAtomic((view) => {
      const current = scheduledMessageKind.read(view, s.id);
      if (current?.state !== 'pending') return skip(false);
      try {
        const message = draftMessage(
          twin,
          view,
          {
            channel: current.channel,
            user: current.user,
            text: current.text,
            ...(current.attachments === undefined ? {} : { attachments: current.attachments }),
            ...(current.thread_ts === undefined ? {} : { thread_ts: current.thread_ts }),
          },
          current.blocks,
        );
        return commit(
          [
            messageKind.write('message.post', messageKey(message.channel, message.ts), message),
            scheduledMessageKind.write('scheduled_message.post', s.id, {
              state: 'posted',
              ts: message.ts,
            }),
          ],
          true,
        );
      } catch (error) {
        // What Slack would have refused at posting time: the record says so, nothing is posted.
        if (!isVendorError(error)) throw error;
        return commit(
          scheduledMessageKind.write('scheduled_message.fail', s.id, {
            state: 'failed',
            error: error.vendorCode,
          }),
          true,
        );
      }
    });
    if (done.result) ran++;
  }
  return ran;
}
