// Who is calling and who is in the workspace: auth.test (Bolt calls it at start), team.info and
// the users.* reads. Reads never append.
import type { JsonObject } from '../../../src/index.js';
import { renderUser } from '../render-events.js';
import { teamKind, updateUser, userKind, type SlackUser } from '../workspace.js';
import { SlackMethodError } from './errors.js';
import { ok, page, parsed, route, str, type SlackRoute } from './route.js';

const shown = (u: SlackUser): JsonObject => renderUser(u, 0);

export const PEOPLE_METHODS: readonly SlackRoute[] = [
  route('auth.test', 'read', async ({ principal: p, origin }) => {
    const [team, user] = await p.twin.read((view) => [
      teamKind.read(view, p.team)!,
      userKind.read(view, p.user)!,
    ]);
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
    const team = (await p.twin.read((view) => teamKind.read(view, p.team)))!;
    return ok({
      team: { id: team.id, name: team.name, domain: team.domain, email_domain: '', icon: {} },
    });
  }),
  route('users.info', 'read', async ({ principal: p, input }) => {
    const id = str(input, 'user');
    const user = await p.twin.read((view) => userKind.fieldsAt(view, id));
    if (user === undefined || user.team_id !== p.team)
      throw new SlackMethodError('user_not_found', `no user ${id}`);
    return ok({ user: shown(user) });
  }),
  route('users.list', 'read', async ({ principal: p, input }) => {
    const people = (await p.twin.read((view) => userKind.list(view))).filter(
      (u) => u.team_id === p.team,
    );
    const { items, next } = page(people, input);
    return ok({
      members: items.map(shown),
      cache_ts: 0,
      response_metadata: { next_cursor: next },
    });
  }),
  route('users.lookupByEmail', 'read', async ({ principal: p, input }) => {
    const email = str(input, 'email').toLowerCase();
    const user = (await p.twin.read((view) => userKind.list(view))).find(
      (u) => u.team_id === p.team && u.email?.toLowerCase() === email && !u.deleted,
    );
    if (user === undefined)
      throw new SlackMethodError('users_not_found', `no one in the workspace has ${email}`);
    return ok({ user: shown(user) });
  }),
  route('users.profile.get', 'read', async ({ principal: p, input }) => {
    const id = typeof input.user === 'string' && input.user !== '' ? input.user : p.user;
    const user = await p.twin.read((view) => userKind.read(view, id));
    if (user === undefined || user.team_id !== p.team)
      throw new SlackMethodError('user_not_found', `no user ${id}`);
    return ok({ profile: shown(user).profile ?? {} });
  }),
  route(
    'users.profile.set',
    'write',
    async ({ principal: p, input }) => {
      // The caller's own profile: setting another person's takes an admin, which the twin has not.
      if (typeof input.user === 'string' && input.user !== '' && input.user !== p.user)
        throw new SlackMethodError('cannot_update_admin_user', 'only your own profile');
      const given = parsed(input, 'profile');
      const profile: Record<string, unknown> =
        given !== null && typeof given === 'object' && !Array.isArray(given) ? { ...given } : {};
      if (typeof input.name === 'string' && typeof input.value === 'string')
        profile[input.name] = input.value;
      const text = (key: string) =>
        typeof profile[key] === 'string' ? { [key]: profile[key] as string } : {};
      const user = await updateUser(p.twin, {
        user: p.user,
        ...text('real_name'),
        ...text('email'),
        ...(typeof profile.display_name === 'string' ? { name: profile.display_name } : {}),
      });
      return ok({ profile: shown(user).profile ?? {} });
    },
    ['user_change'],
  ),
];
