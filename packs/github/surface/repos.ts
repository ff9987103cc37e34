// Repositories (get, create for the user and in an organization, list the user's) and commit
// statuses (create, list for a ref). Each write is one pack operation: one atomic action.
import type { JsonObject } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import {
  findOrganization,
  lookupAccount,
  summary,
  userKind,
  type AccountSummary,
} from '../accounts.js';
import { findBranch } from '../branches.js';
import { commitExists, findPushedCommit } from '../known-commits.js';
import { createCommitStatus, statusesOf, type GitHubStatus, type StatusState } from '../refs.js';
import { renderAccount } from '../render-account.js';
import { renderCommit } from '../render-commit.js';
import { renderRepository } from '../render-repository.js';
import {
  createRepository,
  findRepository,
  repositoryKind,
  type GitHubRepository,
} from '../repositories.js';
import { GitHubApiError, invalidField, noCommitFound } from './errors.js';
import { page } from './paging.js';
import {
  choiceParam,
  descending,
  type GitHubContext,
  type GitHubRouteSpec,
  optionalText,
  repoOf,
  text,
  userOf,
  withRepo,
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

/** `sort` of GET /user/repos and the field it orders by. */
const SORT_FIELDS = {
  created: 'created_at',
  updated: 'updated_at',
  pushed: 'pushed_at',
  full_name: 'full_name',
} as const;
type RepoSort = keyof typeof SORT_FIELDS;

/** GitHub's `sort` (full_name by default) and `direction` (asc for full_name, else desc). */
function repoOrder(input: JsonObject): { sort: RepoSort; desc: boolean } {
  const sort = input.sort ?? 'full_name';
  if (typeof sort !== 'string' || !(sort in SORT_FIELDS))
    throw invalidField(
      'Repository',
      'sort',
      'invalid',
      'sort must be one of created, updated, pushed, full_name',
    );
  return {
    sort: sort as RepoSort,
    desc: descending(input, 'Repository', sort === 'full_name' ? 'asc' : 'desc'),
  };
}

const oneOf = (field: string, allowed: readonly string[], value: unknown): string | undefined =>
  choiceParam({ [field]: value } as JsonObject, 'Repository', field, allowed);

/**
 * Which of the user's repositories GET /user/repos lists: `visibility` (all, public, private) and
 * `affiliation` (owner, collaborator, organization_member, comma-separated), or `type` (all,
 * owner, public, private, member) instead of both, as GitHub takes them. The twin lists the user's
 * own repositories (it keeps no collaborators or members), so an affiliation without `owner` and
 * `type=member` list none.
 */
function repoSelection(input: JsonObject): (r: GitHubRepository) => boolean {
  const visibility = oneOf('visibility', ['all', 'public', 'private'], input.visibility);
  const affiliation = input.affiliation;
  if (affiliation !== undefined && typeof affiliation !== 'string')
    throw invalidField('Repository', 'affiliation', 'invalid', 'affiliation must be a string');
  const affiliations =
    affiliation === undefined || affiliation === ''
      ? undefined
      : affiliation.split(',').map((a) => a.trim());
  for (const a of affiliations ?? [])
    oneOf('affiliation', ['owner', 'collaborator', 'organization_member'], a);
  const type = oneOf('type', ['all', 'owner', 'public', 'private', 'member'], input.type);
  if (type !== undefined && (visibility !== undefined || affiliations !== undefined))
    throw invalidField(
      'Repository',
      'type',
      'invalid',
      'If you specify visibility or affiliation, you cannot specify type.',
    );
  const wanted = type === 'public' || type === 'private' ? type : visibility;
  const owned = type !== 'member' && (affiliations === undefined || affiliations.includes('owner'));
  return (r) =>
    owned && (wanted === undefined || wanted === 'all' || (wanted === 'private') === r.private);
}

/**
 * The repositories in GitHub's order. Times tie within a tick of the virtual clock; a tie is broken
 * by the order the repositories were made (the seq of each one's first log entry), in the same
 * direction, so "created, desc" is newest first even then.
 */
async function sortRepos(
  ctx: GitHubContext,
  repos: GitHubRepository[],
  order: { sort: RepoSort; desc: boolean },
): Promise<GitHubRepository[]> {
  const field = SORT_FIELDS[order.sort];
  const made =
    order.sort === 'full_name'
      ? repos.map(() => 0)
      : await Promise.all(
          repos.map(
            async (r) => (await ctx.twin.entriesFor('repository', String(r.id)))[0]?.seq ?? 0,
          ),
        );
  const keyed = repos.map((r, i) => ({ r, key: String(r[field]).toLowerCase(), made: made[i]! }));
  keyed.sort((x, y) => {
    const by = x.key < y.key ? -1 : x.key > y.key ? 1 : x.made - y.made;
    return order.desc ? -by : by;
  });
  return keyed.map(({ r }) => r);
}

/** A status as the API answers it (the webhook's `status` payload is another shape). */
function renderStatus(s: GitHubStatus): JsonObject {
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
      const pushed = await findPushedCommit(ctx.twin, repo, branch.sha);
      const accounts = await ctx.twin.read((view) => {
        const of = (login: string | undefined): AccountSummary | null => {
          const found = login === undefined ? undefined : lookupAccount(view, 'user', login);
          return found === undefined ? null : summary(userKind.of(found));
        };
        if (pushed === undefined) {
          const owner = repo.owner.type === 'User' ? repo.owner : null;
          return { author: owner, committer: owner };
        }
        const { author, committer } = pushed.commit;
        return { author: of(author.username), committer: of(committer.username) };
      });
      const url = `${repo.url}/branches/${encodeURIComponent(branch.name)}`;
      return {
        name: branch.name,
        commit: renderCommit(repo, branch.sha, pushed, accounts),
        _links: { self: url, html: `${repo.html_url}/tree/${branch.name}` },
        protected: false,
        // What GitHub answers for a branch without protection rules.
        protection: {
          enabled: false,
          required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] },
        },
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
      const order = repoOrder(ctx.input);
      const shown = repoSelection(ctx.input);
      const repos = await ctx.twin.read((view) => repositoryKind.list(view));
      const mine = repos.filter((r) => r.owner.id === user.id && shown(r));
      return page(
        ctx,
        (await sortRepos(ctx, mine, order)).map((r) => renderRepository(r)),
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
      // Any commit of the repository, not only a tip; GitHub's refusal carries no errors[].
      const sha = ctx.params.sha!;
      if (!(await commitExists(ctx.twin, repo, sha))) throw noCommitFound(sha);
      const status = await createCommitStatus(ctx.twin, {
        repository: repo.full_name,
        sha: ctx.params.sha!,
        state: text(ctx.input, 'state', 'Status') as StatusState,
        ...(description === undefined ? {} : { description }),
        ...(target === undefined ? {} : { target_url: target }),
        ...(context === undefined ? {} : { context }),
        sender: userOf(ctx).login,
        commitKnown: true,
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
        return statusesOf(view, repo, sha);
      });
      return page(ctx, statuses.map(renderStatus));
    },
  },
];
