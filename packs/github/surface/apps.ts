// Who am I: the authenticated user (a user token), the authenticated App (its JWT), and the App's
// installation access tokens — minted only with the App's JWT, for an installation of that App.
import type { JsonObject } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import { installationKind } from '../apps.js';
import { githubTime } from '../ids.js';
import { renderAccount } from '../render-account.js';
import { renderApp, renderInstallation } from '../render-checks.js';
import { mintInstallationToken } from './credentials.js';
import { forbidden, GitHubApiError, requiresAuthentication } from './errors.js';
import { numberParam, type GitHubContext, type GitHubRouteSpec } from './route.js';

function appOf(ctx: GitHubContext) {
  const p = ctx.principal;
  if (p.kind === 'app') return p.app;
  if (p.kind === 'anonymous') throw requiresAuthentication();
  throw forbidden(
    'A JSON web token could not be decoded: this endpoint needs the App itself (its JWT as a bearer token)',
  );
}

export const appRoutes: GitHubRouteSpec[] = [
  {
    method: 'GET',
    path: '/user',
    sdk: 'users.getAuthenticated',
    kind: 'read',
    async handle(ctx) {
      const p = ctx.principal;
      if (p.kind === 'anonymous') throw requiresAuthentication();
      if (p.kind !== 'user') throw forbidden('Resource not accessible by integration');
      const repos = await ctx.twin.read(
        (view) =>
          view.list('repository').filter((r) => (r.fields.owner as JsonObject).id === p.user.id)
            .length,
      );
      return {
        ...renderAccount(p.user),
        name: null,
        company: null,
        blog: '',
        location: null,
        email: null,
        hireable: null,
        bio: null,
        twitter_username: null,
        public_repos: repos,
        public_gists: 0,
        followers: 0,
        following: 0,
      };
    },
  },
  {
    method: 'GET',
    path: '/app',
    sdk: 'apps.getAuthenticated',
    kind: 'read',
    handle: (ctx) => renderApp(appOf(ctx)),
  },
  {
    method: 'GET',
    path: '/app/installations',
    sdk: 'apps.listInstallations',
    kind: 'read',
    async handle(ctx) {
      const app = appOf(ctx);
      const all = await ctx.twin.read((view) => installationKind.list(view));
      return all.filter((i) => i.app_id === app.id).map(renderInstallation);
    },
  },
  {
    // Mints a credential and records nothing: tokens live in world.secrets, never in the log.
    method: 'POST',
    path: '/app/installations/:installation_id/access_tokens',
    sdk: 'apps.createInstallationAccessToken',
    kind: 'write',
    resource: 'InstallationAccessToken',
    async handle(ctx) {
      const app = appOf(ctx);
      const id = numberParam(ctx, 'installation_id');
      const inst = await ctx.twin.read((view) => installationKind.read(view, id));
      if (inst === undefined || inst.app_id !== app.id) throw new GitHubApiError(404, 'Not Found');
      const { token, expires } = await mintInstallationToken(ctx.twin, id);
      return answer(201, {
        token,
        expires_at: githubTime(expires),
        permissions: inst.permissions,
        repository_selection: inst.repository_selection,
      });
    },
  },
];
