// The GitHub surface: what unmodified @octokit/rest calls with only `baseUrl` set (to the host's
// origin plus /github), answered by the GitHub pack. Routes are declared per family beside this
// file; this puts them together with GitHub's JSON codec, its credentials, its error envelope and
// its request-id header. See docs/github-surface.md.
import type { JsonObject, Twin } from '../../../src/index.js';
import { defineSurface, requestId, type Surface } from '../../../src/host/index.js';
import { appRoutes } from './apps.js';
import { checkRoutes } from './checks.js';
import { commentRoutes } from './comments.js';
import {
  gitHubBodyTooLarge,
  GitHubApiError,
  renderGitHubError,
  unknownGitHubRoute,
} from './errors.js';
import { hookRoutes, type Redeliver } from './hooks.js';
import { issueRoutes } from './issues.js';
import { principalOf, type GitHubPrincipal } from './principal.js';
import { pullRoutes } from './pulls.js';
import { repoRoutes } from './repos.js';
import { GITHUB_PREFIX, githubRoute, type GitHubRouteSpec } from './route.js';

export type { GitHubPrincipal } from './principal.js';
export { generateAppKey, mintUserToken } from './credentials.js';

export interface GitHubSurfaceOptions {
  /** The GitHub pack's twin, registered with the host (`host.packTwin(github.pack)`). */
  readonly twin: Twin;
  /** One operator attempt of a delivery record: the host's `dispatcher.redeliver`. */
  readonly redeliver: Redeliver;
}

/** Every route's spec, for a host and for the coverage table. */
export function githubRouteSpecs(redeliver: Redeliver): GitHubRouteSpec[] {
  return [
    ...appRoutes,
    ...repoRoutes,
    ...issueRoutes,
    ...commentRoutes,
    ...pullRoutes,
    ...checkRoutes,
    ...hookRoutes(redeliver),
  ];
}

/** GitHub takes JSON bodies; a GET's parameters are its query. */
async function decode(request: Request, url: URL): Promise<JsonObject> {
  const query: JsonObject = Object.fromEntries(url.searchParams);
  if (request.method === 'GET') return query;
  const text = await request.text();
  if (text.trim() === '') return query;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GitHubApiError(400, 'Problems parsing JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new GitHubApiError(400, 'Body should be a JSON object');
  return { ...query, ...(parsed as JsonObject) };
}

export function githubSurface(options: GitHubSurfaceOptions): Surface<GitHubPrincipal> {
  const twin = options.twin;
  // What base this host has recorded for payloads (origin.ts); shared by every route.
  const recorded: { base?: string } = {};
  return defineSurface<GitHubPrincipal>({
    name: 'github',
    prefix: `${GITHUB_PREFIX}/`,
    routes: githubRouteSpecs(options.redeliver).map((spec) => githubRoute(spec, recorded)),
    decode,
    auth: (request) => principalOf(twin, request),
    renderError: (error) => renderGitHubError(error),
    unknownRoute: unknownGitHubRoute,
    tooLarge: gitHubBodyTooLarge,
    headers: () => ({
      'x-github-request-id': requestId('').toUpperCase(),
      'x-github-api-version-selected': '2022-11-28',
    }),
  });
}
