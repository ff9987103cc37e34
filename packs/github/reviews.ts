// Pull request reviews and review comments. A review is submitted with a verdict (approve,
// request changes, comment) on the head commit; a comment on a line of the diff belongs to a
// review — a lone one makes its own "commented" review, as GitHub does — so it sends both
// `pull_request_review.submitted` and `pull_request_review_comment.created`, in one commit.
import { commit, type JsonObject, type Twin, type Write } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary, type GitHubUser } from './accounts.js';
import { validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { authorAssociation, issueKey } from './issues.js';
import { livePull, type GitHubPullRequest } from './pull-requests.js';
import type { GitHubRepository } from './repositories.js';

type ReviewState = 'approved' | 'changes_requested' | 'commented';

export type GitHubReview = {
  id: number;
  node_id: string;
  user: AccountSummary;
  body: string | null;
  commit_id: string;
  submitted_at: string;
  state: ReviewState;
  html_url: string;
  pull_request_url: string;
  author_association: string;
  /** Twin bookkeeping: `<repo id>#<number>` of the pull request. */
  pull_key: string;
};

export type GitHubReviewComment = {
  id: number;
  node_id: string;
  pull_request_review_id: number;
  diff_hunk: string;
  path: string;
  line: number;
  commit_id: string;
  user: AccountSummary;
  body: string;
  created_at: string;
  updated_at: string;
  url: string;
  html_url: string;
  pull_request_url: string;
  author_association: string;
  pull_key: string;
};

const EVENTS: Record<string, ReviewState> = {
  APPROVE: 'approved',
  REQUEST_CHANGES: 'changes_requested',
  COMMENT: 'commented',
};

function reviewWrite(
  twin: Twin,
  repo: GitHubRepository,
  pull: GitHubPullRequest,
  sender: GitHubUser,
  state: ReviewState,
  body: string | null,
  now: string,
): { review: GitHubReview; write: Write } {
  const ids = twin.world.ids;
  const id = githubIds.numeric(ids);
  const review: GitHubReview = {
    id,
    node_id: githubIds.node(ids, 'PRR'),
    user: summary(sender),
    body,
    commit_id: pull.head.sha,
    submitted_at: now,
    state,
    html_url: `${pull.html_url}#pullrequestreview-${id}`,
    pull_request_url: pull.url,
    author_association: authorAssociation(repo, sender.id),
    pull_key: issueKey(repo.id, pull.number),
  };
  return {
    review,
    write: {
      operation: 'pull_request_review.submit',
      subjectType: 'pull_request_review',
      subjectId: String(id),
      fields: review as unknown as JsonObject,
      actor: actorOf(sender),
    },
  };
}

/** Submits a review of an open pull request; its author may only comment. */
export async function submitReview(
  twin: Twin,
  input: { repository: string; number: number; sender: string; event?: string; body?: string },
): Promise<GitHubReview> {
  requirePackTwin(twin, 'github');
  const state = EVENTS[input?.event ?? 'COMMENT'];
  if (state === undefined)
    throw validationFailed('event must be APPROVE, REQUEST_CHANGES or COMMENT', 'event');
  if (input.body !== undefined && typeof input.body !== 'string')
    throw validationFailed('body must be a string', 'body');
  if (state !== 'approved' && (input.body ?? '').trim() === '')
    throw validationFailed(`a ${input.event ?? 'COMMENT'} review needs a body`, 'body');
  const done = await twin.applyAtomic((view) => {
    const { repo, pull } = livePull(view, input.repository, input.number);
    const sender = findUser(view, input.sender);
    if (pull.state !== 'open')
      throw validationFailed('Can not review a closed pull request', 'number');
    if (state !== 'commented' && sender.id === pull.user.id)
      throw validationFailed(
        'Can not approve or request changes on your own pull request',
        'event',
      );
    const now = githubTime(twin.world.clock.now());
    const { review, write } = reviewWrite(twin, repo, pull, sender, state, input.body ?? null, now);
    return commit(write, review);
  });
  return done.result;
}

/** Comments on a line of a file the pull request changes, in a review of its own. */
export async function commentOnPullRequestLine(
  twin: Twin,
  input: {
    repository: string;
    number: number;
    sender: string;
    path: string;
    line: number;
    body: string;
  },
): Promise<GitHubReviewComment> {
  requirePackTwin(twin, 'github');
  if (typeof input?.body !== 'string' || input.body.trim() === '')
    throw validationFailed('body is required', 'body');
  if (typeof input.path !== 'string' || input.path === '' || input.path.startsWith('/'))
    throw validationFailed('path must be a file path relative to the repository root', 'path');
  if (!Number.isInteger(input.line) || input.line < 1)
    throw validationFailed('line must be a positive integer', 'line');
  const done = await twin.applyAtomic((view) => {
    const { repo, pull } = livePull(view, input.repository, input.number);
    const sender = findUser(view, input.sender);
    const now = githubTime(twin.world.clock.now());
    const { review, write } = reviewWrite(twin, repo, pull, sender, 'commented', '', now);
    const ids = twin.world.ids;
    const id = githubIds.numeric(ids);
    const comment: GitHubReviewComment = {
      id,
      node_id: githubIds.node(ids, 'PRRC'),
      pull_request_review_id: review.id,
      diff_hunk: `@@ -${input.line},1 +${input.line},1 @@`,
      path: input.path,
      line: input.line,
      commit_id: pull.head.sha,
      user: summary(sender),
      body: input.body,
      created_at: now,
      updated_at: now,
      url: `${repo.url}/pulls/comments/${id}`,
      html_url: `${pull.html_url}#discussion_r${id}`,
      pull_request_url: pull.url,
      author_association: authorAssociation(repo, sender.id),
      pull_key: issueKey(repo.id, pull.number),
    };
    return commit(
      [
        write,
        {
          operation: 'pull_request_review_comment.create',
          subjectType: 'pull_request_review_comment',
          subjectId: String(id),
          fields: comment as unknown as JsonObject,
          actor: actorOf(sender),
        },
      ],
      comment,
    );
  });
  return done.result;
}
