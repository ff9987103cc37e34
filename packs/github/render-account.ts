// GitHub's account object (`sender`, `owner`, `user`, `author`, …) rendered whole from the few
// facts the twin keeps — login, id, node_id, type — with every URL GitHub derives from them.
import type { JsonObject, JsonValue } from '../../src/index.js';

type AccountType = 'User' | 'Organization' | 'Bot';

/** The facts an account rendering needs. */
export type AccountFacts = { login: string; id: number; node_id: string; type?: string };

export function renderAccount(facts: AccountFacts): JsonObject {
  // GitHub's simple-user uses /users/ for organizations and bots too.
  const api = `https://api.github.com/users/${facts.login}`;
  return {
    login: facts.login,
    id: facts.id,
    node_id: facts.node_id,
    avatar_url: `https://avatars.githubusercontent.com/u/${facts.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url:
      facts.type === 'Bot'
        ? `https://github.com/apps/${facts.login.replace(/\[bot\]$/, '')}`
        : `https://github.com/${facts.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: (facts.type ?? 'User') as AccountType,
    site_admin: false,
  };
}

/** Renders a kept account summary (or null); anything that is not one renders as null. */
export function accountOrNull(value: JsonValue | undefined): JsonObject | null {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value))
    return null;
  const v = value as Partial<AccountFacts>;
  if (typeof v.login !== 'string' || typeof v.id !== 'number' || typeof v.node_id !== 'string')
    return null;
  return renderAccount(v as AccountFacts);
}

/** The empty reaction rollup GitHub attaches to issues, comments and releases. */
export function reactions(apiUrl: string): JsonObject {
  return {
    url: `${apiUrl}/reactions`,
    total_count: 0,
    '+1': 0,
    '-1': 0,
    laugh: 0,
    hooray: 0,
    confused: 0,
    heart: 0,
    rocket: 0,
    eyes: 0,
  };
}
