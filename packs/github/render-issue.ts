// GitHub's issue and issue-comment objects, rendered whole. A pull request's conversation is an
// issue too: commenting on one renders the issue GitHub shows for it, with `pull_request` links.
// Their `reactions` rollups are counted from the view (reaction-rollup.ts).
import type { JsonObject, ReadView } from '../../src/index.js';
import type { GitHubIssueComment } from './comments.js';
import { issueKey, type GitHubIssue } from './issues.js';
import type { GitHubPullRequest } from './pull-requests.js';
import { commentSubject, issueSubject, reactionRollup } from './reaction-rollup.js';
import { accountOrNull, renderAccount } from './render-account.js';
import type { GitHubRepository } from './repositories.js';
import type { GitHubLabel } from './label.js';

/** Labels as GitHub renders them (kept ones carry the twin's repository_id, never shown). */
export function renderLabels(labels: readonly GitHubLabel[] | undefined): JsonObject[] {
  return (labels ?? []).map((l) => ({
    id: l.id,
    node_id: l.node_id,
    url: l.url,
    name: l.name,
    color: l.color,
    default: l.default,
    description: l.description,
  }));
}

type Lookup = Pick<ReadView, 'lookup'>;

export function renderIssue(issue: GitHubIssue, repositoryId: number, view: Lookup): JsonObject {
  return {
    url: issue.url,
    repository_url: issue.repository_url,
    labels_url: issue.labels_url,
    comments_url: issue.comments_url,
    events_url: issue.events_url,
    html_url: issue.html_url,
    id: issue.id,
    node_id: issue.node_id,
    number: issue.number,
    title: issue.title,
    user: renderAccount(issue.user),
    labels: renderLabels(issue.labels),
    state: issue.state,
    locked: issue.locked,
    assignee: accountOrNull(issue.assignee),
    assignees: (issue.assignees ?? []).map(renderAccount),
    milestone: null,
    comments: issue.comments,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    author_association: issue.author_association,
    active_lock_reason: null,
    body: issue.body,
    reactions: reactionRollup(view, issueSubject(issueKey(repositoryId, issue.number)), issue.url),
    timeline_url: issue.timeline_url,
    performed_via_github_app: null,
    state_reason: issue.state_reason,
  };
}

/**
 * The issue as the REST API answers it: GitHub's `closed_by` (who closed it; null while it is open)
 * beside what a webhook carries, whose issue object has no such key.
 */
export function renderRestIssue(
  issue: GitHubIssue,
  repositoryId: number,
  view: Lookup,
): JsonObject {
  const closedBy = issue.state === 'closed' ? accountOrNull(issue.closed_by) : null;
  return { ...renderIssue(issue, repositoryId, view), closed_by: closedBy };
}

/** The issue side of a pull request, as issue_comment payloads carry it. */
export function renderPullRequestIssue(
  pull: GitHubPullRequest,
  repo: GitHubRepository,
  view: Lookup,
): JsonObject {
  const api = `${repo.url}/issues/${pull.number}`;
  return {
    url: api,
    repository_url: repo.url,
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: pull.html_url,
    id: pull.id,
    node_id: pull.node_id,
    number: pull.number,
    title: pull.title,
    user: renderAccount(pull.user),
    labels: renderLabels(pull.labels),
    state: pull.state,
    locked: pull.locked,
    assignee: accountOrNull(pull.assignee),
    assignees: (pull.assignees ?? []).map(renderAccount),
    milestone: null,
    comments: pull.comments,
    created_at: pull.created_at,
    updated_at: pull.updated_at,
    closed_at: pull.closed_at,
    author_association: pull.author_association,
    active_lock_reason: null,
    draft: pull.draft,
    pull_request: {
      url: pull.url,
      html_url: pull.html_url,
      diff_url: pull.diff_url,
      patch_url: pull.patch_url,
      merged_at: pull.merged_at,
    },
    body: pull.body,
    reactions: reactionRollup(view, issueSubject(issueKey(repo.id, pull.number)), api),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: null,
  };
}

export function renderComment(
  comment: GitHubIssueComment,
  repo: GitHubRepository,
  number: number,
  htmlBase: string,
  view: Lookup,
): JsonObject {
  const api = `${repo.url}/issues/comments/${comment.id}`;
  return {
    url: api,
    html_url: `${htmlBase}#issuecomment-${comment.id}`,
    issue_url: `${repo.url}/issues/${number}`,
    id: comment.id,
    node_id: comment.node_id,
    user: accountOrNull(comment.user) ?? renderAccount(comment.user),
    created_at: comment.created_at,
    updated_at: comment.updated_at,
    author_association: comment.author_association,
    body: comment.body,
    reactions: reactionRollup(view, commentSubject(comment.id), api),
    performed_via_github_app: null,
  };
}
