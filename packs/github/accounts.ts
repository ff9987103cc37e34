// Users and organizations: the accounts that own repositories, send events (`sender`) and
// scope organization hooks. Logins are unique across both, as on GitHub.
import { commit, type ReadView, type Resource, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { recordKind } from '../../src/index.js';

export const LOGIN_INDEX = 'login';

export type GitHubUser = {
  login: string;
  id: number;
  node_id: string;
  avatar_url: string;
  gravatar_id: string;
  url: string;
  html_url: string;
  type: 'User';
  site_admin: boolean;
};

/** The user records of the twin, typed (src/state/record-kind.ts). */
export const userKind = recordKind<GitHubUser>({ type: 'user' });

export type GitHubOrganization = {
  login: string;
  id: number;
  node_id: string;
  url: string;
  repos_url: string;
  events_url: string;
  hooks_url: string;
  issues_url: string;
  members_url: string;
  public_members_url: string;
  avatar_url: string;
  description: string | null;
  created_at: string;
};

/** The organization records of the twin, typed (src/state/record-kind.ts). */
export const organizationKind = recordKind<GitHubOrganization>({ type: 'organization' });

/** The account summary GitHub embeds as `owner`, `user`, `sender`. */
export type AccountSummary = Omit<GitHubUser, 'type'> & { type: 'User' | 'Organization' };

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

function checkLogin(login: unknown): string {
  if (typeof login !== 'string' || !LOGIN.test(login))
    throw validationFailed(
      'login may hold only alphanumerics and single hyphens, at most 39 characters, not starting or ending with a hyphen',
      'login',
    );
  return login;
}

/**
 * The account of `type` with this login, whatever its case: GitHub matches logins
 * case-insensitively, and the login index keeps its keys in lower case (pack.ts).
 */
export function lookupAccount(
  view: Pick<ReadView, 'lookup'>,
  type: 'user' | 'organization',
  login: string,
): Resource | undefined {
  return view.lookup(type, LOGIN_INDEX, login)[0];
}

function takenLogin(view: ReadView, login: string): boolean {
  return (
    lookupAccount(view, 'user', login) !== undefined ||
    lookupAccount(view, 'organization', login) !== undefined
  );
}

export function findUser(view: ReadView, login: string, path = 'sender'): GitHubUser {
  const user = lookupAccount(view, 'user', login);
  if (user === undefined) throw notFound(`user ${login}`, path);
  return userKind.of(user);
}

export function findOrganization(
  view: ReadView,
  login: string,
  path = 'organization',
): GitHubOrganization {
  const org = lookupAccount(view, 'organization', login);
  if (org === undefined) throw notFound(`organization ${login}`, path);
  return organizationKind.of(org);
}

export function summary(account: GitHubUser | GitHubOrganization): AccountSummary {
  const isOrg = !('type' in account);
  return {
    login: account.login,
    id: account.id,
    node_id: account.node_id,
    avatar_url: account.avatar_url,
    gravatar_id: '',
    url: `https://api.github.com/${isOrg ? 'orgs' : 'users'}/${account.login}`,
    html_url: `https://github.com/${account.login}`,
    type: isOrg ? 'Organization' : 'User',
    site_admin: false,
  };
}

export async function createUser(twin: Twin, input: { login: string }): Promise<GitHubUser> {
  requirePackTwin(twin, 'github');
  const login = checkLogin(input?.login);
  const done = await twin.applyAtomic((view) => {
    if (takenLogin(view, login))
      throw validationFailed(`login "${login}" is already taken`, 'login');
    const ids = twin.world.ids;
    const id = githubIds.numeric(ids);
    const user: GitHubUser = {
      login,
      id,
      node_id: githubIds.node(ids, 'U'),
      avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
      gravatar_id: '',
      url: `https://api.github.com/users/${login}`,
      html_url: `https://github.com/${login}`,
      type: 'User',
      site_admin: false,
    };
    return commit(
      { operation: 'user.create', subjectType: 'user', subjectId: String(id), fields: user },
      user,
    );
  });
  return done.result;
}

export async function createOrganization(
  twin: Twin,
  input: { login: string; description?: string },
): Promise<GitHubOrganization> {
  requirePackTwin(twin, 'github');
  const login = checkLogin(input?.login);
  const done = await twin.applyAtomic((view) => {
    if (takenLogin(view, login))
      throw validationFailed(`login "${login}" is already taken`, 'login');
    const ids = twin.world.ids;
    const id = githubIds.numeric(ids);
    const api = `https://api.github.com/orgs/${login}`;
    const org: GitHubOrganization = {
      login,
      id,
      node_id: githubIds.node(ids, 'O'),
      url: api,
      repos_url: `${api}/repos`,
      events_url: `${api}/events`,
      hooks_url: `${api}/hooks`,
      issues_url: `${api}/issues`,
      members_url: `${api}/members{/member}`,
      public_members_url: `${api}/public_members{/member}`,
      avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
      description: input.description ?? null,
      created_at: githubTime(twin.world.clock.now()),
    };
    return commit(
      {
        operation: 'organization.create',
        subjectType: 'organization',
        subjectId: String(id),
        fields: org,
      },
      org,
    );
  });
  return done.result;
}

/** The `actor` of a write a user made: how the payload finds its `sender`. */
export function actorOf(user: GitHubUser): string {
  return `user:${user.id}`;
}
