// Comments on issues and pull requests (GitHub's issue comments; a pull request's conversation is
// its issue's). A comment moves the issue's or pull request's `comments` count in the same commit.
import { commit, skip, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { authorAssociation, issueKey } from './issues.js';
import { findRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

export type GitHubIssueComment = {
  id: number;
  node_id: string;
  user: AccountSummary;
  created_at: string;
  updated_at: string;
  author_association: string;
  body: string;
  // Twin bookkeeping: which issue or pull request (`<repo id>#<number>`) and which kind it is.
  issue_key: string;
  on: 'issue' | 'pull_request';
};

/** The issue_comment records of the twin, typed (src/state/record-kind.ts). */
export const issueCommentKind = recordKind<GitHubIssueComment>({ type: 'issue_comment' });

export async function commentOnIssue(
  twin: Twin,
  input: { repository: string; number: number; body: string; sender: string },
): Promise<GitHubIssueComment> {
  requirePackTwin(twin, 'github');
  if (typeof input?.body !== 'string' || input.body.trim() === '')
    throw validationFailed('body is required', 'body');
  if (input.body.length > 65_536)
    throw validationFailed('body is too long (maximum is 65536 characters)', 'body');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const key = issueKey(repo.id, input.number);
    const target = (
      [
        ['issue', view.get('issue', key)],
        ['pull_request', view.get('pull_request', key)],
      ] as const
    ).find(([, r]) => r !== undefined && !r.deleted);
    if (target === undefined)
      throw notFound(`issue #${input.number} in ${input.repository}`, 'number');
    const [on, resource] = target;
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const comment: GitHubIssueComment = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'IC'),
      user: summary(sender),
      created_at: now,
      updated_at: now,
      author_association: authorAssociation(repo, sender.id),
      body: input.body,
      issue_key: key,
      on,
    };
    const count = Number(resource!.fields.comments ?? 0) + 1;
    return commit(
      {
        operation: 'issue_comment.create',
        subjectType: 'issue_comment',
        subjectId: String(comment.id),
        fields: comment,
        actor: actorOf(sender),
        projection: {
          updates: [{ type: on, id: key, fields: { comments: count, updated_at: now } }],
        },
      },
      comment,
    );
  });
  return done.result;
}

/** Edits a comment's body (recorded as `issue_comment.edit`; no webhook is sent for it yet). */
export async function editComment(
  twin: Twin,
  input: { repository: string; comment_id: number; body: string; sender: string },
): Promise<GitHubIssueComment> {
  requirePackTwin(twin, 'github');
  if (typeof input?.body !== 'string' || input.body.trim() === '')
    throw validationFailed('body is required', 'body');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const comment = issueCommentKind.read(view, input.comment_id);
    if (comment === undefined || !comment.issue_key.startsWith(`${repo.id}#`))
      throw notFound(`comment ${input.comment_id} in ${input.repository}`, 'comment_id');
    if (comment.body === input.body) return skip(comment);
    const fields = { body: input.body, updated_at: githubTime(twin.world.clock.now()) };
    return commit(
      issueCommentKind.write('issue_comment.edit', String(comment.id), fields, {
        actor: actorOf(sender),
      }),
      { ...comment, ...fields },
    );
  });
  return done.result;
}
