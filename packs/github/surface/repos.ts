// Repositories (get, create for the user and in an organization, list the user's) and commit
// statuses (create, list for a ref). Each write is one pack operation: one atomic action.
import type { JsonObject } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import { findOrganization } from '../accounts.js';
import { findBranch } from '../branches.js';
import { createCommitStatus, statusKind, type StatusState } from '../refs.js';
import { renderAccount } from '../render-account.js';
import { renderRepository } from '../render-repository.js';
import { createRepository, findRepository, repositoryKind } from '../repositories.js';
import { GitHubApiError, invalidField } from './errors.js';
import { page } from './paging.js';
import {
  optionalText,
  repoOf,
  withRepo,
  text,
  userOf,
  type GitHubContext,
  type GitHubRouteSpec,
} from './route.js';

function flag(input: JsonObject, field: string): boolean | undefined {
  const v = input[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean')
    throw invalidField('Repository', field, 'invalid', `${field} must be a boolean`);
  return v;
}

async function create(ctx: GitHubContext, owner: string) {
  const name = text(ctx.input, 'name', 'Repository');
  const description = optionalText(ctx.input, 'description', 'Repository');
  const isPrivate =
    flag(ctx.input, 'private') ?? (ctx.input.visibility === 'private' ? true : undefined);
  const repo = await createRepository(ctx.twin, {
    owner,
    name,
    ...(description === undefined ? {} : { description }),
    ...(isPrivate === undefined ? {} : { private: isPrivate }),
  });
  return answer(201, renderRepository(repo));
}

/** A status as the API answers it (the webhook's `status` payload is another shape). */
function renderStatus(s: ReturnType<typeof statusKind.from>): JsonObject {
  return {
    url: s.url,
    avatar_url: renderAccount(s.creator).avatar_url ?? null,
    id: s.id,
    node_id: s.node_id,
    state: s.state,
    description: s.description,
    target_url: s.target_url,
    context: s.context,
    created_at: s.created_at,
    updated_at: s.updated_at,
    creator: renderAccount(s.creator),
  };
}

export const repoRoutes: GitHubRouteSpec[] = [
  {
    method: 'GET',
    path: '/repos/:owner/:repo',
    sdk: 'repos.get',
    kind: 'read',
    handle: (ctx) => withRepo(ctx, (_view, repo) => renderRepository(repo)),
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/branches/:branch',
    sdk: 'repos.getBranch',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const branch = await ctx.twin.read((view) => findBranch(view, repo, ctx.params.branch!));
      if (branch === undefined) throw new GitHubApiError(404, 'Branch not found');
      const url = `${repo.url}/branches/${encodeURIComponent(branch.name)}`;
      return {
        name: branch.name,
        commit: { sha: branch.sha, url: `${repo.url}/commits/${branch.sha}` },
        _links: { self: url, html: `${repo.html_url}/tree/${branch.name}` },
        protected: false,
        protection_url: `${url}/protection`,
      };
    },
  },
  {
    method: 'POST',
    path: '/user/repos',
    sdk: 'repos.createForAuthenticatedUser',
    kind: 'write',
    resource: 'Repository',
    handle: (ctx) => create(ctx, userOf(ctx).login),
  },
  {
    method: 'POST',
    path: '/orgs/:org/repos',
    sdk: 'repos.createInOrg',
    kind: 'write',
    resource: 'Repository',
    async handle(ctx) {
      userOf(ctx);
      const org = await ctx.twin.read((view) => findOrganization(view, ctx.params.org!));
      return create(ctx, org.login);
    },
  },
  {
    method: 'GET',
    path: '/user/repos',
    sdk: 'repos.listForAuthenticatedUser',
    kind: 'read',
    async handle(ctx) {
      const user = userOf(ctx);
      const repos = await ctx.twin.read((view) => repositoryKind.list(view));
      return page(
        ctx,
        repos.filter((r) => r.owner.id === user.id).map((r) => renderRepository(r)),
      );
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/statuses/:sha',
    sdk: 'repos.createCommitStatus',
    kind: 'write',
    events: ['status'],
    resource: 'Status',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const description = optionalText(ctx.input, 'description', 'Status');
      const target = optionalText(ctx.input, 'target_url', 'Status');
      const context = optionalText(ctx.input, 'context', 'Status');
      const status = await createCommitStatus(ctx.twin, {
        repository: repo.full_name,
        sha: ctx.params.sha!,
        state: text(ctx.input, 'state', 'Status') as StatusState,
        ...(description === undefined ? {} : { description }),
        ...(target === undefined ? {} : { target_url: target }),
        ...(context === undefined ? {} : { context }),
        sender: userOf(ctx).login,
      });
      return answer(201, renderStatus(status));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/commits/:ref/statuses',
    sdk: 'repos.listCommitStatusesForRef',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const ref = ctx.params.ref!;
      const statuses = await ctx.twin.read((view) => {
        const sha = /^[0-9a-f]{40}$/.test(ref)
          ? ref
          : (findBranch(view, findRepository(view, repo.full_name), ref)?.sha ?? ref);
        return statusKind
          .list(view)
          .filter((s) => s.repository_id === repo.id && s.sha === sha)
          .reverse();
      });
      return page(ctx, statuses.map(renderStatus));
    },
  },
];
