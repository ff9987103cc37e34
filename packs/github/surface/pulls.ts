// Pull requests: create, get, list, update (title, body, base — or state), merge, reviews and the
// files changed. Each write is one pack operation; merging is closing with merge, so the app gets
// `pull_request.closed` with `merged: true` and the base branch's `push`.
import type { JsonObject } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import { branchKind } from '../branches.js';
import {
  closePullRequest,
  editPullRequest,
  openPullRequest,
  pullRequestKind,
  reopenPullRequest,
  type GitHubPullRequest,
} from '../pull-requests.js';
import { renderAccount } from '../render-account.js';
import { renderPullRequest } from '../render-pull-request.js';
import type { GitHubRepository } from '../repositories.js';
import { reviewKind, submitReview, type GitHubReview } from '../reviews.js';
import { githubTime } from '../ids.js';
import { issueKey } from '../issues.js';
import { requestReviewers } from '../triage.js';
import { GitHubApiError, invalidField } from './errors.js';
import { page } from './paging.js';
import {
  choiceParam,
  descending,
  type GitHubContext,
  type GitHubRouteSpec,
  numberParam,
  optionalText,
  repoOf,
  text,
  userOf,
} from './route.js';

async function pullOf(ctx: GitHubContext, repo: GitHubRepository): Promise<GitHubPullRequest> {
  const key = issueKey(repo.id, numberParam(ctx, 'pull_number'));
  const pull = await ctx.twin.read((view) => pullRequestKind.read(view, key));
  if (pull === undefined) throw new GitHubApiError(404, 'Not Found');
  return pull;
}

/** `owner:branch` (a fork's notation) or `branch`: the twin has no forks, so the owner must match. */
function branchName(value: string, repo: GitHubRepository, field: string): string {
  const at = value.indexOf(':');
  if (at < 0) return value;
  if (value.slice(0, at) !== repo.owner.login)
    throw invalidField('PullRequest', field, 'invalid', 'forks are not modelled by this twin');
  return value.slice(at + 1);
}

/**
 * `head` and `base` of GET /pulls, as GitHub reads them: `head` is `owner:branch` (the owner's
 * case aside), and a bare branch name is no filter at all — GitHub ignores it and lists every pull
 * request; `base` is a branch name.
 */
function pullFilter(input: JsonObject): (p: GitHubPullRequest) => boolean {
  const head = input.head;
  const base = input.base;
  for (const [field, v] of [
    ['head', head],
    ['base', base],
  ] as const)
    if (v !== undefined && typeof v !== 'string')
      throw invalidField('PullRequest', field, 'invalid', `${field} must be a string`);
  const at = typeof head === 'string' ? head.indexOf(':') : -1;
  const owner = at < 0 ? undefined : (head as string).slice(0, at).toLowerCase();
  const branch = at < 0 ? undefined : (head as string).slice(at + 1);
  return (p) =>
    (owner === undefined || (p.head.user.login.toLowerCase() === owner && p.head.ref === branch)) &&
    (typeof base !== 'string' || base === '' || p.base.ref === base);
}

type PullSort = 'created' | 'updated' | 'popularity' | 'long-running';

/**
 * `sort` of GET /pulls and `direction` (desc for created, the default; asc for the others), as
 * GitHub documents them: popularity is the number of comments; long-running is by creation and
 * keeps only pull requests open for more than a month that had activity within the last month.
 */
function pullOrder(input: JsonObject): { sort: PullSort; desc: boolean } {
  const sort = choiceParam<PullSort>(
    input,
    'PullRequest',
    'sort',
    ['created', 'updated', 'popularity', 'long-running'],
    'created',
  )!;
  return { sort, desc: descending(input, 'PullRequest', sort === 'created' ? 'desc' : 'asc') };
}

/** GitHub's order of `sort` and `direction`; ties (and created) by number, the order of creation. */
function comparePulls(order: { sort: PullSort; desc: boolean }) {
  const key = (p: GitHubPullRequest): string | number =>
    order.sort === 'updated' ? p.updated_at : order.sort === 'popularity' ? p.comments : 0;
  return (a: GitHubPullRequest, b: GitHubPullRequest) => {
    const [x, y] = [key(a), key(b)];
    const by = x < y ? -1 : x > y ? 1 : a.number - b.number;
    return order.desc ? -by : by;
  };
}

/**
 * What sort=long-running keeps, at `nowMs` of the world's clock: open (until now, or until it
 * closed) for more than a calendar month, and updated within the last one.
 */
function longRunning(nowMs: number): (p: GitHubPullRequest) => boolean {
  const at = new Date(nowMs);
  at.setUTCMonth(at.getUTCMonth() - 1);
  const monthAgo = githubTime(at.getTime());
  return (p) => {
    const ended = new Date(Date.parse(p.closed_at ?? githubTime(nowMs)));
    ended.setUTCMonth(ended.getUTCMonth() - 1);
    return p.created_at < githubTime(ended.getTime()) && p.updated_at >= monthAgo;
  };
}

function renderReview(r: GitHubReview): JsonObject {
  return {
    id: r.id,
    node_id: r.node_id,
    user: renderAccount(r.user),
    body: r.body ?? '',
    state: r.state.toUpperCase(),
    html_url: r.html_url,
    pull_request_url: r.pull_request_url,
    author_association: r.author_association,
    _links: { html: { href: r.html_url }, pull_request: { href: r.pull_request_url } },
    submitted_at: r.submitted_at,
    commit_id: r.commit_id,
  };
}

export const pullRoutes: GitHubRouteSpec[] = [
  {
    method: 'POST',
    path: '/repos/:owner/:repo/pulls',
    sdk: 'pulls.create',
    kind: 'write',
    events: ['pull_request.opened'],
    resource: 'PullRequest',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const body = optionalText(ctx.input, 'body', 'PullRequest');
      const base = optionalText(ctx.input, 'base', 'PullRequest');
      const draft = ctx.input.draft;
      const title = ctx.input.title;
      const pull = await openPullRequest(ctx.twin, {
        repository: repo.full_name,
        title: typeof title === 'string' ? title : '',
        head: branchName(text(ctx.input, 'head', 'PullRequest'), repo, 'head'),
        ...(base === undefined ? {} : { base: branchName(base, repo, 'base') }),
        ...(body === undefined ? {} : { body }),
        ...(typeof draft === 'boolean' ? { draft } : {}),
        sender: userOf(ctx).login,
        restChecks: true,
      });
      return answer(201, renderPullRequest(pull, repo));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/pulls/:pull_number',
    sdk: 'pulls.get',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      return renderPullRequest(await pullOf(ctx, repo), repo);
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/pulls',
    sdk: 'pulls.list',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const state = ctx.input.state ?? 'open';
      if (state !== 'open' && state !== 'closed' && state !== 'all')
        throw invalidField('PullRequest', 'state', 'invalid', 'state must be open, closed or all');
      const order = pullOrder(ctx.input);
      const wanted = pullFilter(ctx.input);
      const kept =
        order.sort === 'long-running' ? longRunning(ctx.twin.world.clock.now()) : () => true;
      const pulls = await ctx.twin.read((view) =>
        view
          .list('pull_request')
          .filter((r) => r.id.startsWith(`${repo.id}#`))
          .map((r) => pullRequestKind.of(r))
          .filter((p) => (state === 'all' || p.state === state) && wanted(p) && kept(p))
          .sort(comparePulls(order)),
      );
      return page(
        ctx,
        pulls.map((p) => renderPullRequest(p, repo)),
      );
    },
  },
  {
    method: 'PATCH',
    path: '/repos/:owner/:repo/pulls/:pull_number',
    sdk: 'pulls.update',
    kind: 'write',
    events: ['pull_request.edited', 'pull_request.closed', 'pull_request.reopened'],
    resource: 'PullRequest',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const pull = await pullOf(ctx, repo);
      const sender = userOf(ctx).login;
      const { title, body, base, state } = ctx.input;
      const edits = [title, body, base].some((v) => v !== undefined);
      if (state !== undefined && state !== 'open' && state !== 'closed')
        throw invalidField('PullRequest', 'state', 'invalid', 'state must be "open" or "closed"');
      if (edits && state !== undefined && state !== pull.state)
        throw invalidField(
          'PullRequest',
          'state',
          'custom',
          'this twin changes a pull request’s state and its other fields in separate requests',
        );
      const at = { repository: repo.full_name, number: pull.number, sender };
      let after = pull;
      if (state === 'closed') after = await closePullRequest(ctx.twin, at);
      else if (state === 'open') after = await reopenPullRequest(ctx.twin, at);
      else if (edits)
        after = await editPullRequest(ctx.twin, {
          ...at,
          ...(title === undefined ? {} : { title: String(title) }),
          ...(body === undefined ? {} : { body: body === null ? null : String(body) }),
          ...(base === undefined ? {} : { base: branchName(String(base), repo, 'base') }),
        });
      return renderPullRequest(after, repo);
    },
  },
  {
    method: 'PUT',
    path: '/repos/:owner/:repo/pulls/:pull_number/merge',
    sdk: 'pulls.merge',
    kind: 'write',
    events: ['pull_request.closed', 'push'],
    resource: 'PullRequest',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const pull = await pullOf(ctx, repo);
      if (pull.state !== 'open') throw new GitHubApiError(405, 'Pull Request is not mergeable');
      const sha = ctx.input.sha;
      if (typeof sha === 'string' && sha !== pull.head.sha)
        throw new GitHubApiError(409, 'Head branch was modified. Review and try the merge again.');
      const merged = await closePullRequest(ctx.twin, {
        repository: repo.full_name,
        number: pull.number,
        sender: userOf(ctx).login,
        merge: true,
      });
      return {
        sha: merged.merge_commit_sha,
        merged: true,
        message: 'Pull Request successfully merged',
      };
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/pulls/:pull_number/merge',
    sdk: 'pulls.checkIfMerged',
    kind: 'read',
    async handle(ctx) {
      const pull = await pullOf(ctx, await repoOf(ctx));
      if (!pull.merged) throw new GitHubApiError(404, 'Not Found');
      return answer(204, null);
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/pulls/:pull_number/requested_reviewers',
    sdk: 'pulls.requestReviewers',
    kind: 'write',
    events: ['pull_request.review_requested'],
    resource: 'PullRequest',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const pull = await pullOf(ctx, repo);
      const reviewers = ctx.input.reviewers;
      if (!Array.isArray(reviewers) || reviewers.some((r) => typeof r !== 'string'))
        throw invalidField(
          'PullRequest',
          'reviewers',
          'invalid',
          'reviewers must be an array of logins',
        );
      if (ctx.input.team_reviewers !== undefined)
        throw invalidField(
          'PullRequest',
          'team_reviewers',
          'custom',
          'teams are not modelled by this twin',
        );
      await requestReviewers(ctx.twin, {
        repository: repo.full_name,
        number: pull.number,
        reviewers: reviewers as string[],
        sender: userOf(ctx).login,
      });
      return answer(201, renderPullRequest(await pullOf(ctx, repo), repo));
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/pulls/:pull_number/reviews',
    sdk: 'pulls.createReview',
    kind: 'write',
    events: ['pull_request_review.submitted'],
    resource: 'PullRequestReview',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const pull = await pullOf(ctx, repo);
      const event = optionalText(ctx.input, 'event', 'PullRequestReview');
      const body = optionalText(ctx.input, 'body', 'PullRequestReview');
      if (ctx.input.comments !== undefined)
        throw invalidField(
          'PullRequestReview',
          'comments',
          'custom',
          'line comments in a review are not modelled by this twin',
        );
      const review = await submitReview(ctx.twin, {
        repository: repo.full_name,
        number: pull.number,
        sender: userOf(ctx).login,
        ...(event === undefined ? {} : { event }),
        ...(body === undefined ? {} : { body }),
      });
      return renderReview(review);
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/pulls/:pull_number/reviews',
    sdk: 'pulls.listReviews',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const pull = await pullOf(ctx, repo);
      const key = issueKey(repo.id, pull.number);
      const reviews = await ctx.twin.read((view) =>
        reviewKind
          .list(view)
          .filter((r) => r.pull_key === key)
          .sort((a, b) =>
            a.submitted_at < b.submitted_at ? -1 : a.submitted_at > b.submitted_at ? 1 : 0,
          ),
      );
      return page(ctx, reviews.map(renderReview));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/pulls/:pull_number/files',
    sdk: 'pulls.listFiles',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const pull = await pullOf(ctx, repo);
      // The files the head branch's last push touched (the twin keeps no trees or diffs).
      const push = await ctx.twin.read(
        (view) => branchKind.read(view, pull.head_key)?.last_push ?? null,
      );
      const files = new Map<string, 'added' | 'removed' | 'modified'>();
      for (const c of push?.commits ?? []) {
        for (const f of c.added) files.set(f, 'added');
        for (const f of c.modified) files.set(f, files.get(f) === 'added' ? 'added' : 'modified');
        for (const f of c.removed) files.set(f, 'removed');
      }
      if (files.size === 0) files.set('README.md', 'modified');
      const raw = `https://github.com/${repo.full_name}`;
      return page(
        ctx,
        [...files].map(([filename, status]) => ({
          sha: pull.head.sha,
          filename,
          status,
          additions: status === 'removed' ? 0 : 1,
          deletions: status === 'added' ? 0 : 1,
          changes: status === 'modified' ? 2 : 1,
          blob_url: `${raw}/blob/${pull.head.sha}/${filename}`,
          raw_url: `${raw}/raw/${pull.head.sha}/${filename}`,
          contents_url: `${repo.url}/contents/${filename}?ref=${pull.head.sha}`,
          patch: status === 'modified' ? '@@ -1 +1 @@\n-\n+' : '@@ -0,0 +1 @@\n+',
        })),
      );
    },
  },
];
