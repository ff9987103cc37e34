// The family-specific part of the payloads for reviews, review comments, workflow jobs, branch
// creation and deletion, commit statuses and installation repositories (payload.ts renders the
// rest and adds repository, organization and sender).
import type { JsonObject, JsonValue, ReadView, RenderContext } from '../../src/index.js';
import { installationKind } from './apps.js';
import { branchKind, type GitHubBranch } from './branches.js';
import { renderWorkflowJob, workflowJobKind } from './jobs.js';
import { pullRequestKind, type GitHubPullRequest } from './pull-requests.js';
import { branchesAt, statusKind } from './refs.js';
import { accountOrNull, reactions, renderAccount } from './render-account.js';
import { installationRepository, renderInstallation } from './render-checks.js';
import { renderSimplePullRequest } from './render-pull-request.js';
import { repositoryKind, type GitHubRepository } from './repositories.js';
import {
  reviewCommentKind,
  reviewKind,
  type GitHubReview,
  type GitHubReviewComment,
} from './reviews.js';

type Fields = JsonObject;

function pullOf(view: ReadView, key: string): GitHubPullRequest {
  return pullRequestKind.read(view, key)!;
}

/** `changes` of pull_request.edited: the old title, body and base. */
export function pullRequestChanges(ctx: RenderContext): JsonObject {
  const out: JsonObject = {};
  const written = ctx.entry.fields ?? {};
  for (const key of ['title', 'body'])
    if (key in written) out[key] = { from: (ctx.previous?.[key] ?? '') as JsonValue };
  const base = ctx.previous?.base as JsonObject | undefined;
  if ('base' in written && base !== undefined)
    out.base = { ref: { from: base.ref! }, sha: { from: base.sha! } };
  return out;
}

function renderReview(review: GitHubReview): JsonObject {
  return {
    id: review.id,
    node_id: review.node_id,
    user: renderAccount(review.user),
    body: review.body,
    commit_id: review.commit_id,
    submitted_at: review.submitted_at,
    state: review.state,
    html_url: review.html_url,
    pull_request_url: review.pull_request_url,
    author_association: review.author_association,
    _links: { html: { href: review.html_url }, pull_request: { href: review.pull_request_url } },
  };
}

function renderReviewComment(c: GitHubReviewComment): JsonObject {
  return {
    url: c.url,
    pull_request_review_id: c.pull_request_review_id,
    id: c.id,
    node_id: c.node_id,
    diff_hunk: c.diff_hunk,
    path: c.path,
    position: 1,
    original_position: 1,
    commit_id: c.commit_id,
    original_commit_id: c.commit_id,
    user: renderAccount(c.user),
    body: c.body,
    created_at: c.created_at,
    updated_at: c.updated_at,
    html_url: c.html_url,
    pull_request_url: c.pull_request_url,
    author_association: c.author_association,
    _links: {
      self: { href: c.url },
      html: { href: c.html_url },
      pull_request: { href: c.pull_request_url },
    },
    reactions: reactions(c.url),
    start_line: null,
    original_start_line: null,
    start_side: null,
    line: c.line,
    original_line: c.line,
    side: 'RIGHT',
    subject_type: 'line',
  };
}

/** The commit a status names, as GitHub's status event renders it. */
function statusCommit(view: ReadView, repo: GitHubRepository, sha: string): JsonObject {
  const branches = branchesAt(view, repo, sha);
  const found = branches
    .flatMap((b: GitHubBranch) => b.last_push?.commits ?? [])
    .find((c) => c.id === sha);
  const when = (found?.timestamp ?? repo.created_at.replace(/Z$/, '+00:00')).replace(
    /\+00:00$/,
    'Z',
  );
  const person = (p?: { name: string; email: string }) => ({
    name: p?.name ?? repo.owner.login,
    email: p?.email ?? '',
    date: when,
  });
  return {
    sha,
    node_id: `C_kwDO${sha.slice(0, 12)}`,
    commit: {
      author: person(found?.author),
      committer: person(found?.committer),
      message: found?.message ?? 'Initial commit',
      tree: { sha: found?.tree_id ?? sha, url: `${repo.url}/git/trees/${found?.tree_id ?? sha}` },
      url: `${repo.url}/git/commits/${sha}`,
      comment_count: 0,
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
    },
    url: `${repo.url}/commits/${sha}`,
    html_url: `${repo.html_url}/commit/${sha}`,
    comments_url: `${repo.url}/commits/${sha}/comments`,
    author: null,
    committer: null,
    parents: [],
  };
}

export function activityBody(
  ctx: RenderContext,
  family: string,
  action: string | undefined,
  fields: Fields,
  repo: GitHubRepository | undefined,
): JsonObject | undefined {
  const view = ctx.view;
  switch (family) {
    case 'pull_request_review': {
      const review = reviewKind.from(fields);
      return {
        action: action!,
        review: renderReview(review),
        pull_request: renderSimplePullRequest(pullOf(view, review.pull_key), repo!),
      };
    }
    case 'pull_request_review_comment': {
      const comment = reviewCommentKind.from(fields);
      const pull = renderSimplePullRequest(pullOf(view, comment.pull_key), repo!);
      // This payload's pull request puts auto_merge before author_association.
      const { author_association, active_lock_reason, ...rest } = pull;
      return {
        action: action!,
        comment: renderReviewComment(comment),
        pull_request: {
          ...rest,
          author_association: author_association!,
          active_lock_reason: active_lock_reason!,
        },
      };
    }
    case 'workflow_job':
      return {
        action: action!,
        workflow_job: renderWorkflowJob(workflowJobKind.from(fields), repo!.url, repo!.html_url),
      };
    case 'create':
    case 'delete': {
      const branch = branchKind.from(fields);
      const out: JsonObject = { ref: branch.name, ref_type: 'branch' };
      if (family === 'create') {
        out.master_branch = repo!.default_branch;
        out.description = repo!.description;
      }
      out.pusher_type = 'user';
      return out;
    }
    case 'status': {
      const status = statusKind.from(fields);
      return {
        id: status.id,
        sha: status.sha,
        name: repo!.full_name,
        target_url: status.target_url,
        avatar_url: accountOrNull(status.creator)?.avatar_url ?? null,
        context: status.context,
        description: status.description,
        state: status.state,
        commit: statusCommit(view, repo!, status.sha),
        branches: branchesAt(view, repo!, status.sha).map((b) => ({
          name: b.name,
          commit: { sha: b.sha, url: `${repo!.url}/commits/${b.sha}` },
          protected: false,
        })),
        created_at: status.created_at,
        updated_at: status.updated_at,
      };
    }
    case 'installation_repositories': {
      const inst = installationKind.from(fields);
      const before = new Set((ctx.previous?.repository_ids ?? []) as number[]);
      const addedRepos = inst.repository_ids
        .filter((id) => !before.has(id))
        .map((id) => repositoryKind.read(view, id)!)
        .map(installationRepository);
      return {
        action: action!,
        installation: renderInstallation(inst),
        repository_selection: inst.repository_selection,
        repositories_added: addedRepos,
        repositories_removed: [],
        requester: null,
      };
    }
    default:
      return undefined;
  }
}
