// Issue comments (on issues and on pull requests' conversations): create, list, get, update, and
// reactions on them. Each write is one pack operation.
import type { ReadView } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import {
  commentOnIssue,
  editComment,
  issueCommentKind,
  type GitHubIssueComment,
} from '../comments.js';
import { issueKey, issueKind } from '../issues.js';
import { pullRequestKind } from '../pull-requests.js';
import { renderComment } from '../render-issue.js';
import type { GitHubRepository } from '../repositories.js';
import { GitHubApiError } from './errors.js';
import { react } from './issues.js';
import { page } from './paging.js';
import {
  numberParam,
  repoOf,
  sinceParam,
  text,
  userOf,
  type GitHubContext,
  type GitHubRouteSpec,
} from './route.js';

/** A comment rendered with the number and page of what it is on. */
function rendered(view: ReadView, repo: GitHubRepository, c: GitHubIssueComment) {
  const target =
    c.on === 'issue' ? issueKind.read(view, c.issue_key) : pullRequestKind.read(view, c.issue_key);
  return renderComment(c, repo, target!.number, target!.html_url, view);
}

async function commentOf(ctx: GitHubContext, repo: GitHubRepository) {
  const id = numberParam(ctx, 'comment_id');
  const c = await ctx.twin.read((view) => issueCommentKind.read(view, id));
  if (c === undefined || !c.issue_key.startsWith(`${repo.id}#`))
    throw new GitHubApiError(404, 'Not Found');
  return c;
}

export const commentRoutes: GitHubRouteSpec[] = [
  {
    method: 'POST',
    path: '/repos/:owner/:repo/issues/:issue_number/comments',
    sdk: 'issues.createComment',
    kind: 'write',
    events: ['issue_comment.created'],
    resource: 'IssueComment',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const comment = await commentOnIssue(ctx.twin, {
        repository: repo.full_name,
        number: numberParam(ctx, 'issue_number'),
        body: text(ctx.input, 'body', 'IssueComment'),
        sender: userOf(ctx).login,
      });
      return answer(201, await ctx.twin.read((view) => rendered(view, repo, comment)));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/issues/:issue_number/comments',
    sdk: 'issues.listComments',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const key = issueKey(repo.id, numberParam(ctx, 'issue_number'));
      const since = sinceParam(ctx, 'IssueComment');
      const list = await ctx.twin.read((view) => {
        if (
          issueKind.read(view, key) === undefined &&
          pullRequestKind.read(view, key) === undefined
        )
          return undefined;
        return issueCommentKind
          .list(view)
          .filter((c) => c.issue_key === key && (since === undefined || c.updated_at >= since))
          .sort((a, b) =>
            a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id,
          )
          .map((c) => rendered(view, repo, c));
      });
      if (list === undefined) throw new GitHubApiError(404, 'Not Found');
      return page(ctx, list);
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/issues/comments/:comment_id',
    sdk: 'issues.getComment',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const c = await commentOf(ctx, repo);
      return ctx.twin.read((view) => rendered(view, repo, c));
    },
  },
  {
    method: 'PATCH',
    path: '/repos/:owner/:repo/issues/comments/:comment_id',
    sdk: 'issues.updateComment',
    kind: 'write',
    resource: 'IssueComment',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const c = await commentOf(ctx, repo);
      const updated = await editComment(ctx.twin, {
        repository: repo.full_name,
        comment_id: c.id,
        body: text(ctx.input, 'body', 'IssueComment'),
        sender: userOf(ctx).login,
      });
      return ctx.twin.read((view) => rendered(view, repo, updated));
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/issues/comments/:comment_id/reactions',
    sdk: 'reactions.createForIssueComment',
    kind: 'write',
    resource: 'Reaction',
    handle: async (ctx) =>
      react(ctx, {
        repository: (await repoOf(ctx)).full_name,
        comment_id: numberParam(ctx, 'comment_id'),
      }),
  },
];
