// What people do around messages besides posting: react with an emoji (reaction_added), join a
// channel (member_joined_channel), open the app's Home tab (app_home_opened). Each is one write
// whose subject keeps the facts its event renders.
import { commit, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { isKnownEmoji } from './emoji.js';
import { slackError } from './errors.js';
import { messageTs, slackIds } from './ids.js';
import { messageKey, messageKind, type SlackMessage } from './messages.js';
import { checkSees, getChannel, getPublicChannel, getUser, isMember } from './workspace.js';
import { recordKind } from '../../src/index.js';

/** The key of the DM between two people (direct-messages.ts keeps the record). */
export function imKey(a: string, b: string): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

export type SlackReaction = {
  reaction: string;
  user: string;
  item: { type: 'message'; channel: string; ts: string };
  item_user: string;
  team: string;
  event_ts: string;
};

/** The reaction records of the twin, typed (src/state/record-kind.ts). */
export const REACTION_CHANNEL_INDEX = 'channel';
/** Reactions are read by the channel their message is in (conversations.history shows them). */
export const reactionKind = recordKind<SlackReaction>({
  type: 'reaction',
  indexes: { [REACTION_CHANNEL_INDEX]: 'item.channel' },
});
export type ChannelMember = {
  channel: string;
  user: string;
  team: string;
  inviter?: string;
  event_ts: string;
  /** Set when the person left the channel (and false once back). */
  left?: boolean;
};

/** The channel_member records of the twin, typed (src/state/record-kind.ts). */
export const channelMemberKind = recordKind<ChannelMember>({ type: 'channel_member' });
export type AppHomeVisit = {
  app_id: string;
  user: string;
  channel: string;
  tab: 'home' | 'messages';
  team: string;
  event_ts: string;
};

/** The app_home records of the twin, typed (src/state/record-kind.ts). */
export const appHomeKind = recordKind<AppHomeVisit>({ type: 'app_home' });

const check = checker('slack');
const EMOJI = /^[a-z0-9_+'-]{1,100}(::skin-tone-[2-6])?$/;

/**
 * The message a reaction is given to or taken from. A deleted thread parent kept as a tombstone
 * (message-edits.ts) is no message any more: Slack answers `message_not_found` for it, as for a
 * ts nothing holds.
 */
function reactable(view: ReadView, channel: string, ts: string): SlackMessage {
  const message = messageKind.read(view, messageKey(channel, ts));
  if (message === undefined || message.subtype === 'tombstone')
    throw slackError('message_not_found', `no message ${ts} in channel ${channel}`, 'ts');
  return message;
}

export async function addReaction(
  twin: Twin,
  input: { channel: string; ts: string; user: string; name: string },
): Promise<SlackReaction> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  // Slack knows standard emoji and the workspace's custom ones; the twin keeps no custom emoji.
  if (!EMOJI.test(name) || !isKnownEmoji(name))
    throw slackError(
      'invalid_name',
      `"${name}" is not a standard emoji name (e.g. thumbsup, white_check_mark)`,
      'name',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    const channel = getChannel(view, input.channel);
    const user = getUser(view, input.user);
    checkSees(channel, user.id);
    const message = reactable(view, channel.id, input.ts);
    if (user.team_id !== channel.team_id)
      throw slackError(
        'not_in_channel',
        `user ${user.id} is not in the workspace of channel ${channel.id}`,
        'user',
        'invalid_input',
      );
    const key = `${channel.id}:${input.ts}:${name}:${user.id}`;
    const kept = view.get('reaction', key);
    if (kept !== undefined && !kept.deleted)
      throw slackError(
        'already_reacted',
        `${user.id} already reacted with :${name}: to ${input.ts}`,
        'name',
        'conflict',
      );
    const reaction: SlackReaction = {
      reaction: name,
      user: user.id,
      item: { type: 'message', channel: channel.id, ts: input.ts },
      item_user: message.user,
      team: channel.team_id,
      event_ts: messageTs(twin.world.clock.now(), 0),
    };
    return commit(
      { operation: 'reaction.add', subjectType: 'reaction', subjectId: key, fields: reaction },
      reaction,
    );
  });
  return done.result;
}

/** Takes back a reaction (`reaction_removed`); one that is not there is `no_reaction`. */
export async function removeReaction(
  twin: Twin,
  input: { channel: string; ts: string; user: string; name: string },
): Promise<SlackReaction> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  const done = await twin.applyAtomic((view) => {
    const channel = getChannel(view, input.channel);
    const user = getUser(view, input.user);
    checkSees(channel, user.id);
    reactable(view, channel.id, input.ts);
    const key = `${channel.id}:${input.ts}:${name}:${user.id}`;
    const kept = view.get('reaction', key);
    if (kept === undefined || kept.deleted)
      throw slackError(
        'no_reaction',
        `${user.id} has no :${name}: on ${input.ts}`,
        'name',
        'invalid_input',
      );
    const reaction = {
      ...reactionKind.of(kept),
      event_ts: messageTs(twin.world.clock.now(), 0),
    };
    // reaction_removed's event_ts is the removal's instant (the commit's world time).
    return commit(
      { operation: 'reaction.remove', subjectType: 'reaction', subjectId: key, delete: true },
      reaction,
    );
  });
  return done.result;
}

/** A user joins a public channel (invited by `inviter`, or on their own). The creator is a member from the start. */
export async function joinChannel(
  twin: Twin,
  input: { channel: string; user: string; inviter?: string },
): Promise<ChannelMember> {
  requirePackTwin(twin, 'slack');
  const done = await twin.applyAtomic((view) => {
    const channel = getPublicChannel(view, input.channel);
    const user = getUser(view, input.user);
    if (user.team_id !== channel.team_id)
      throw slackError(
        'user_not_found',
        `user ${user.id} is not in the workspace of channel ${channel.id}`,
        'user',
      );
    if (input.inviter !== undefined) getUser(view, input.inviter, 'inviter');
    const key = `${channel.id}:${user.id}`;
    if (isMember(view, channel, user.id))
      throw slackError(
        'already_in_channel',
        `${user.id} is already in ${channel.id}`,
        'user',
        'conflict',
      );
    const member: ChannelMember = {
      channel: channel.id,
      user: user.id,
      team: channel.team_id,
      ...(input.inviter === undefined ? {} : { inviter: input.inviter }),
      event_ts: messageTs(twin.world.clock.now(), 0),
      // Back after leaving: the record says so (a first join writes no such field).
      ...(view.get('channel_member', key) === undefined ? {} : { left: false }),
    };
    return commit(
      {
        operation: 'channel_member.join',
        subjectType: 'channel_member',
        subjectId: key,
        fields: member,
      },
      member,
    );
  });
  return done.result;
}

/** A user leaves a public channel (member_left_channel); nobody leaves #general. */
export async function leaveChannel(
  twin: Twin,
  input: { channel: string; user: string },
): Promise<ChannelMember> {
  requirePackTwin(twin, 'slack');
  const done = await twin.applyAtomic((view) => {
    const channel = getPublicChannel(view, input?.channel);
    const user = getUser(view, input.user);
    if (channel.name === 'general')
      throw slackError('cant_leave_general', 'nobody leaves #general', 'channel', 'invalid_input');
    if (!isMember(view, channel, user.id))
      throw slackError(
        'not_in_channel',
        `${user.id} is not in ${channel.id}`,
        'user',
        'invalid_input',
      );
    const member: ChannelMember = {
      channel: channel.id,
      user: user.id,
      team: channel.team_id,
      event_ts: messageTs(twin.world.clock.now(), 0),
      left: true,
    };
    return commit(
      channelMemberKind.write('channel_member.leave', `${channel.id}:${user.id}`, member),
      member,
    );
  });
  return done.result;
}

/** A user opens the app's Home (or Messages) tab; the app's DM with the user is its channel. */
export async function openAppHome(
  twin: Twin,
  input: { app: string; user: string; tab?: 'home' | 'messages' },
): Promise<AppHomeVisit> {
  requirePackTwin(twin, 'slack');
  const tab = input?.tab ?? 'home';
  if (tab !== 'home' && tab !== 'messages')
    throw slackError(
      'invalid_arguments',
      'tab must be "home" or "messages"',
      'tab',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    const app = view.get('app', input.app);
    if (app === undefined || app.deleted)
      throw slackError('app_not_found', `no app ${input.app}`, 'app');
    const user = getUser(view, input.user);
    if (user.team_id !== app.fields.team_id)
      throw slackError('user_not_found', `user ${user.id} is not in the app's workspace`, 'user');
    const key = `${app.id}:${user.id}`;
    // The DM channel between the app's bot and the user: drawn once, kept for later visits.
    const dm =
      appHomeKind.fieldsAt(view, key)?.channel ??
      // A DM the bot and the person opened already (conversations.open) is the same channel.
      view.get('im', imKey(String(app.fields.bot_user_id), user.id))?.fields.id?.toString() ??
      slackIds.dm(twin.world.ids);
    const visit: AppHomeVisit = {
      app_id: app.id,
      user: user.id,
      channel: dm,
      tab,
      team: user.team_id,
      event_ts: messageTs(twin.world.clock.now(), 0),
    };
    return commit(
      { operation: 'app_home.open', subjectType: 'app_home', subjectId: key, fields: visit },
      visit,
    );
  });
  return done.result;
}
