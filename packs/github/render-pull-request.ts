// GitHub's pull request object, rendered whole: links, head and base with the repository as it
// is now, review and merge fields. `mergeable` is null, as GitHub sends it before it has computed.
import type { JsonObject } from '../../src/index.js';
import type { BranchRef, GitHubPullRequest } from './pull-requests.js';
import { accountOrNull, renderAccount } from './render-account.js';
import { renderLabels } from './render-issue.js';
import { renderRepository } from './render-repository.js';
import type { GitHubRepository } from './repositories.js';

function side(ref: BranchRef, repo: GitHubRepository): JsonObject {
  return {
    label: ref.label,
    ref: ref.ref,
    sha: ref.sha,
    user: renderAccount(ref.user),
    repo: renderRepository(repo),
  };
}

export function renderPullRequest(pull: GitHubPullRequest, repo: GitHubRepository): JsonObject {
  const issue = `${repo.url}/issues/${pull.number}`;
  return {
    url: pull.url,
    id: pull.id,
    node_id: pull.node_id,
    html_url: pull.html_url,
    diff_url: pull.diff_url,
    patch_url: pull.patch_url,
    issue_url: pull.issue_url,
    number: pull.number,
    state: pull.state,
    locked: pull.locked,
    title: pull.title,
    user: renderAccount(pull.user),
    body: pull.body,
    created_at: pull.created_at,
    updated_at: pull.updated_at,
    closed_at: pull.closed_at,
    merged_at: pull.merged_at,
    merge_commit_sha: pull.merge_commit_sha,
    assignee: accountOrNull(pull.assignee),
    assignees: (pull.assignees ?? []).map(renderAccount),
    requested_reviewers: (pull.requested_reviewers ?? []).map(renderAccount),
    requested_teams: [],
    labels: renderLabels(pull.labels),
    milestone: null,
    draft: pull.draft,
    commits_url: `${pull.url}/commits`,
    review_comments_url: `${pull.url}/comments`,
    review_comment_url: `${repo.url}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: `${repo.url}/statuses/${pull.head.sha}`,
    head: side(pull.head, repo),
    base: side(pull.base, repo),
    _links: {
      self: { href: pull.url },
      html: { href: pull.html_url },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${pull.url}/comments` },
      review_comment: { href: `${repo.url}/pulls/comments{/number}` },
      commits: { href: `${pull.url}/commits` },
      statuses: { href: `${repo.url}/statuses/${pull.head.sha}` },
    },
    author_association: pull.author_association,
    auto_merge: null,
    active_lock_reason: null,
    merged: pull.merged,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: accountOrNull(pull.merged_by),
    comments: pull.comments,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: pull.commits,
    additions: pull.additions,
    deletions: pull.deletions,
    changed_files: pull.changed_files,
  };
}

/** `{url, id, number, head, base}`: how check runs, suites and workflow runs list pull requests. */
export function pullRequestRef(pull: GitHubPullRequest, repo: GitHubRepository): JsonObject {
  const ref = { id: repo.id, url: repo.url, name: repo.name };
  return {
    url: pull.url,
    id: pull.id,
    number: pull.number,
    head: { ref: pull.head.ref, sha: pull.head.sha, repo: ref },
    base: { ref: pull.base.ref, sha: pull.base.sha, repo: ref },
  };
}

// The keys of GitHub's "simple pull request" (review payloads): the whole one up to
// active_lock_reason, without merge state and counts.
const SIMPLE_KEYS = new Set([
  'merged',
  'mergeable',
  'rebaseable',
  'mergeable_state',
  'merged_by',
  'comments',
  'review_comments',
  'maintainer_can_modify',
  'commits',
  'additions',
  'deletions',
  'changed_files',
]);

export function renderSimplePullRequest(
  pull: GitHubPullRequest,
  repo: GitHubRepository,
): JsonObject {
  return Object.fromEntries(
    Object.entries(renderPullRequest(pull, repo)).filter(([k]) => !SIMPLE_KEYS.has(k)),
  );
}
