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
  is_channel: true;
  is_private: false;
  is_archived: boolean;
};

/** The channel records of the twin, typed (src/state/record-kind.ts). */
export const channelKind = recordKind<SlackChannel>({ type: 'channel' });

const check = checker('slack');

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
  if (email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
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

export async function createChannel(
  twin: Twin,
  input: { team: string; name: string; creator: string },
): Promise<SlackChannel> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  if (!/^[a-z0-9_-]{1,80}$/.test(name))
    throw slackError(
      'invalid_name_specials',
      'channel names hold lowercase letters, digits, "-" and "_" (at most 80)',
      'name',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    getTeam(view, input.team);
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

/** Whether a user is in a channel: its creator, or someone who joined it. */
export function isMember(view: ReadView, channel: SlackChannel, user: string): boolean {
  return (
    channel.creator === user || view.get('channel_member', `${channel.id}:${user}`) !== undefined
  );
}
