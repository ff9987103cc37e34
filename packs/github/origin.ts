// Where the twin's GitHub lives. Records keep GitHub's own URLs (https://api.github.com/…), so a
// log written without a host reads as GitHub; a host serving the REST surface records its base
// URL once (`github_origin`), and from then on every URL field of a webhook payload — and of an
// API answer — points at that base instead, because Octokit follows the URLs it is given.
import {
  commit,
  recordKind,
  skip,
  type JsonValue,
  type ReadView,
  type Twin,
} from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { validationFailed } from './errors.js';

type GitHubOrigin = {
  /** The REST base an Octokit `baseUrl` names, e.g. http://127.0.0.1:3000/github. */
  api_url: string;
};

const originKind = recordKind<GitHubOrigin>({ type: 'github_origin' });
const ORIGIN_ID = 'api';

/** GitHub's hosts and where each goes under the twin's base. */
const HOSTS: readonly (readonly [string, string])[] = [
  ['https://api.github.com', ''],
  ['https://uploads.github.com', '/uploads'],
  ['https://avatars.githubusercontent.com', '/avatars'],
  ['https://github.com', '/web'],
];

// Fields a user fills in (a status's target_url, a check's details_url, an app's homepage) keep
// what the user gave, even when that is a github.com address.
const USER_GIVEN = new Set(['target_url', 'details_url', 'external_url', 'homepage']);

function isUrlKey(key: string): boolean {
  return (
    !USER_GIVEN.has(key) &&
    (key === 'url' ||
      key.endsWith('_url') ||
      key === 'compare' ||
      key === 'href' ||
      key === 'self' ||
      key === 'html')
  );
}

/** One URL moved from GitHub's hosts onto `base` (anything else stays as it is). */
function rebaseUrl(url: string, base: string): string {
  for (const [host, path] of HOSTS)
    if (url === host || url.startsWith(`${host}/`))
      return `${base}${path}${url.slice(host.length)}`;
  return url;
}

/** A copy of `value` with every URL field on `base`, keys in their order. */
export function rebase(value: JsonValue, base: string | undefined): JsonValue {
  if (base === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => rebase(v, base));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, JsonValue> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = typeof v === 'string' && isUrlKey(key) ? rebaseUrl(v, base) : rebase(v, base);
  return out;
}

/** The base recorded for payloads, if a host has recorded one. */
export function recordedBase(view: Pick<ReadView, 'get'>): string | undefined {
  return originKind.read(view, ORIGIN_ID)?.api_url;
}

/** Records the REST base payloads carry; recording the same base again writes nothing. */
export async function setGitHubOrigin(twin: Twin, apiUrl: string): Promise<void> {
  requirePackTwin(twin, 'github');
  if (typeof apiUrl !== 'string' || !/^https?:\/\/[^/\s]+(\/[^\s]*)?$/.test(apiUrl))
    throw validationFailed(
      'the API base must be an http(s) URL, e.g. http://127.0.0.1:3000/github',
      'api_url',
    );
  const base = apiUrl.replace(/\/+$/, '');
  await twin.applyAtomic((view) => {
    if (recordedBase(view) === base) return skip(undefined);
    return commit(
      {
        operation: 'github_origin.set',
        subjectType: originKind.type,
        subjectId: ORIGIN_ID,
        fields: originKind.json({ api_url: base }),
      },
      undefined,
    );
  });
}
