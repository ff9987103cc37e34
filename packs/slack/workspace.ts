// Workspaces (teams), their users, and public channels.
import { commit, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { slackIds } from './ids.js';
import { recordKind } from '../../src/index.js';

export type SlackTeam = { id: string; name: string; domain: string };

/** The team records of the twin, typed (src/state/record-kind.ts). */
export const teamKind = recordKind<SlackTeam>({ type: 'team' });
export type SlackUser = {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  is_bot: boolean;
  deleted: boolean;
  /** Only when one was given (users.lookupByEmail finds people by it). */
  email?: string;
};

/** The user records of the twin, typed (src/state/record-kind.ts). */
export const userKind = recordKind<SlackUser>({ type: 'user' });
export type SlackChannel = {
  id: string;
  name: string;
  team_id: string;
  created: number;
  creator: string;
  is_channel: boolean;
  is_private: boolean;
  is_archived: boolean;
  /** A direct message between `creator` and `user` (conversations.open): no name, no joining. */
  is_im?: true;
  user?: string;
};

export const CHANNEL_NAME_INDEX = 'name';
/** The channel records of the twin, typed (src/state/record-kind.ts); found by name too. */
export const channelKind = recordKind<SlackChannel>({
  type: 'channel',
  indexes: { [CHANNEL_NAME_INDEX]: 'name' },
});

const check = checker('slack');
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function getTeam(view: ReadView, id: string): SlackTeam {
  const r = view.get('team', id);
  if (r === undefined || r.deleted)
    throw slackError('team_not_found', `no workspace ${id}`, 'team');
  return teamKind.of(r);
}

export function getUser(view: ReadView, id: string, path = 'user'): SlackUser {
  const r = view.get('user', id);
  if (r === undefined || r.deleted) throw slackError('user_not_found', `no user ${id}`, path);
  return userKind.of(r);
}

export function getChannel(view: ReadView, id: string): SlackChannel {
  const r = view.get('channel', id);
  if (r === undefined || r.deleted)
    throw slackError('channel_not_found', `no channel ${id}`, 'channel');
  return channelKind.of(r);
}

/** A direct message is only its two people's: to anyone else it does not exist. */
export function checkSees(channel: SlackChannel, userId: string): void {
  if (channel.is_im === true && channel.creator !== userId && channel.user !== userId)
    throw slackError('channel_not_found', `no channel ${channel.id}`, 'channel');
}

/** A public channel: joining, leaving and the like are not for direct messages. */
export function getPublicChannel(view: ReadView, id: string): SlackChannel {
  const channel = getChannel(view, id);
  if (channel.is_im === true)
    throw slackError(
      'method_not_supported_for_channel_type',
      `${id} is a direct message`,
      'channel',
      'invalid_input',
    );
  return channel;
}

export async function createTeam(
  twin: Twin,
  input: { name: string; domain?: string },
): Promise<SlackTeam> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  const domain = input.domain ?? name.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
  const team: SlackTeam = { id: slackIds.team(twin.world.ids), name, domain };
  await twin.applyWrite({
    operation: 'team.create',
    subjectType: 'team',
    subjectId: team.id,
    fields: team,
  });
  return team;
}

export async function createUser(
  twin: Twin,
  input: { team: string; name: string; real_name?: string; email?: string },
): Promise<SlackUser> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  const email = input.email === undefined ? undefined : check.string(input.email, 'email');
  if (email !== undefined && !EMAIL.test(email))
    throw slackError(
      'invalid_email',
      `"${email}" is not an email address`,
      'email',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    getTeam(view, input.team);
    const user: SlackUser = {
      id: slackIds.user(twin.world.ids),
      team_id: input.team,
      name,
      real_name: input.real_name ?? name,
      is_bot: false,
      deleted: false,
      ...(email === undefined ? {} : { email }),
    };
    return commit(
      { operation: 'user.create', subjectType: 'user', subjectId: user.id, fields: user },
      user,
    );
  });
  return done.result;
}

/** A channel name as Slack checks it, each fault with its own error (conversations.create). */
function checkChannelName(value: unknown): string {
  const name = check.optionalString(value, 'name') ?? '';
  const refuse = (code: string, why: string) => slackError(code, why, 'name', 'invalid_input');
  if (name === '') throw refuse('invalid_name_required', 'a channel needs a name');
  if (name.length > 80)
    throw refuse(
      'invalid_name_maxlength',
      `channel names are at most 80 characters, not ${name.length}`,
    );
  if (!/^[a-z0-9_-]+$/.test(name))
    throw refuse(
      'invalid_name_specials',
      'channel names hold lowercase letters, digits, "-" and "_"',
    );
  if (/^[-_]+$/.test(name))
    throw refuse('invalid_name_punctuation', 'a channel name needs a letter or a digit');
  return name;
}

export async function createChannel(
  twin: Twin,
  input: { team: string; name: string; creator: string },
): Promise<SlackChannel> {
  requirePackTwin(twin, 'slack');
  const name = checkChannelName(input?.name);
  const done = await twin.applyAtomic((view) => {
    getTeam(view, input.team);
    // Names are unique in a workspace, archived channels' included (they keep theirs).
    const named = channelKind.lookup(view, CHANNEL_NAME_INDEX, name);
    if (named.some((c) => c.team_id === input.team))
      throw slackError('name_taken', `a channel is already named #${name}`, 'name', 'conflict');
    const creator = getUser(view, input.creator, 'creator');
    if (creator.team_id !== input.team)
      throw slackError(
        'user_not_found',
        `user ${creator.id} is not in workspace ${input.team}`,
        'creator',
      );
    const channel: SlackChannel = {
      id: slackIds.channel(twin.world.ids),
      name,
      team_id: input.team,
      created: Math.floor(twin.world.clock.now() / 1000),
      creator: creator.id,
      is_channel: true,
      is_private: false,
      is_archived: false,
    };
    return commit(
      {
        operation: 'channel.create',
        subjectType: 'channel',
        subjectId: channel.id,
        fields: channel,
      },
      channel,
    );
  });
  return done.result;
}

/**
 * Whether a user is in a channel: its creator or someone who joined, unless they left since (a
 * member record with `left`).
 */
export function isMember(view: ReadView, channel: SlackChannel, user: string): boolean {
  if (channel.is_im === true) return channel.creator === user || channel.user === user;
  const r = view.get('channel_member', `${channel.id}:${user}`);
  if (r !== undefined && !r.deleted) return r.fields.left !== true;
  return channel.creator === user;
}

/**
 * A person changes their profile (users.profile.set): `user_change` goes to an app subscribed to
 * it. Bots' profiles are their app's.
 */
export async function updateUser(
  twin: Twin,
  input: { user: string; real_name?: string; name?: string; email?: string },
): Promise<SlackUser> {
  requirePackTwin(twin, 'slack');
  const fields: Partial<SlackUser> = {};
  if (input?.real_name !== undefined) fields.real_name = check.string(input.real_name, 'real_name');
  if (input.name !== undefined) fields.name = check.string(input.name, 'name');
  if (input.email !== undefined) {
    const email = check.string(input.email, 'email');
    if (!EMAIL.test(email))
      throw slackError(
        'invalid_email',
        `"${email}" is not an email address`,
        'email',
        'invalid_input',
      );
    fields.email = email;
  }
  if (Object.keys(fields).length === 0)
    throw slackError(
      'invalid_profile',
      'nothing to change: give real_name, name or email',
      'profile',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    const user = getUser(view, input.user);
    if (user.is_bot || user.deleted)
      throw slackError(
        'cannot_update_admin_user',
        `user ${user.id} cannot change a profile`,
        'user',
        'invalid_input',
      );
    return commit(userKind.write('user.update', user.id, fields), { ...user, ...fields });
  });
  return done.result;
}
