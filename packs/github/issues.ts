// Issues: opened, edited (title/body, with `changes`), closed. The write's actor is the user
// who acted, which becomes the payload's `sender`.
import { commit, skip, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { customFieldRefusal, notFound, validationFailed } from './errors.js';
import type { GitHubLabel } from './label.js';
import { githubIds, githubTime } from './ids.js';
import {
  findRepository,
  nextNumber,
  openCountChange,
  type GitHubRepository,
} from './repositories.js';
import { recordKind } from '../../src/index.js';

export type GitHubIssue = {
  url: string;
  repository_url: string;
  labels_url: string;
  comments_url: string;
  events_url: string;
  html_url: string;
  id: number;
  node_id: string;
  number: number;
  title: string;
  user: AccountSummary;
  labels: GitHubLabel[];
  state: 'open' | 'closed';
  locked: boolean;
  assignee: AccountSummary | null;
  assignees: AccountSummary[];
  milestone: null;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  author_association: string;
  active_lock_reason: null;
  body: string | null;
  timeline_url: string;
  performed_via_github_app: null;
  state_reason: 'completed' | 'not_planned' | 'reopened' | null;
  /**
   * Who closed it last, kept by closes through `updateIssue` (the REST surface) and rendered only in
   * REST answers while the issue is closed: GitHub's webhook issue has no `closed_by`. `closeIssue`
   * does not write it yet (its entry is part of the golden walk's log).
   */
  closed_by?: AccountSummary;
};

/** The issue records of the twin, typed (src/state/record-kind.ts). */
export const issueKind = recordKind<GitHubIssue>({ type: 'issue' });

export interface IssueRef {
  /** "owner/name" */
  repository: string;
  number: number;
  /** Login of the user acting. */
  sender: string;
}

export function issueKey(repoId: number, number: number): string {
  return `${repoId}#${number}`;
}

export function authorAssociation(repo: GitHubRepository, userId: number): string {
  return repo.owner.id === userId ? 'OWNER' : 'NONE';
}

function liveIssue(view: ReadView, ref: IssueRef): { repo: GitHubRepository; issue: GitHubIssue } {
  const repo = findRepository(view, ref.repository);
  const r = view.get('issue', issueKey(repo.id, ref.number));
  if (r === undefined || r.deleted)
    throw notFound(`issue #${ref.number} in ${ref.repository}`, 'number');
  return { repo, issue: issueKind.of(r) };
}

function checkTitle(title: unknown): string {
  if (typeof title !== 'string' || title.trim() === '')
    throw validationFailed('title is required', 'title');
  return title;
}

/** GitHub's limit on an issue's body, in characters (code points, not UTF-16 units). */
const BODY_MAX = 65_536;

/** A body over GitHub's limit is GitHub's `custom` 422 on `body`, on create and on update. */
export function checkBody(body: string | null | undefined): void {
  // Code points are at most the UTF-16 length: only a longer string needs counting.
  if (typeof body === 'string' && body.length > BODY_MAX && [...body].length > BODY_MAX)
    throw customFieldRefusal('body', `body is too long (maximum is ${BODY_MAX} characters)`);
}

export async function openIssue(
  twin: Twin,
  input: { repository: string; title: string; body?: string; sender: string },
): Promise<GitHubIssue> {
  requirePackTwin(twin, 'github');
  const title = checkTitle(input?.title);
  checkBody(input.body);
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const { number, projection } = nextNumber(view, repo);
    const ids = twin.world.ids;
    // The repository's counter makes the key new: an optimistic section need not read its row.
    ids.mint?.(issueKey(repo.id, number));
    const now = githubTime(twin.world.clock.now());
    const api = `${repo.url}/issues/${number}`;
    const issue: GitHubIssue = {
      url: api,
      repository_url: repo.url,
      labels_url: `${api}/labels{/name}`,
      comments_url: `${api}/comments`,
      events_url: `${api}/events`,
      html_url: `${repo.html_url}/issues/${number}`,
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'I'),
      number,
      title,
      user: summary(sender),
      labels: [],
      state: 'open',
      locked: false,
      assignee: null,
      assignees: [],
      milestone: null,
      comments: 0,
      created_at: now,
      updated_at: now,
      closed_at: null,
      author_association: authorAssociation(repo, sender.id),
      active_lock_reason: null,
      body: input.body ?? null,
      timeline_url: `${api}/timeline`,
      performed_via_github_app: null,
      state_reason: null,
    };
    return commit(
      {
        operation: 'issue.open',
        subjectType: 'issue',
        subjectId: issueKey(repo.id, number),
        fields: issue,
        actor: actorOf(sender),
        projection: { updates: [projection, openCountChange(repo, 1)] },
      },
      issue,
    );
  });
  return done.result;
}

/** Edits title and/or body; an edit that changes nothing writes nothing and sends nothing. */
export async function editIssue(
  twin: Twin,
  input: IssueRef & { title?: string; body?: string | null },
): Promise<GitHubIssue> {
  requirePackTwin(twin, 'github');
  if (input.title !== undefined) checkTitle(input.title);
  checkBody(input.body);
  const done = await twin.applyAtomic((view) => {
    const { repo, issue } = liveIssue(view, input);
    const sender = findUser(view, input.sender);
    const fields: JsonObject = {};
    if (input.title !== undefined && input.title !== issue.title) fields.title = input.title;
    if (input.body !== undefined && input.body !== issue.body) fields.body = input.body;
    if (Object.keys(fields).length === 0) return skip(issue);
    fields.updated_at = githubTime(twin.world.clock.now());
    return commit(
      {
        operation: 'issue.edit',
        subjectType: 'issue',
        subjectId: issueKey(repo.id, issue.number),
        fields,
        actor: actorOf(sender),
      },
      {
        ...issue,
        ...fields,
      } as GitHubIssue,
    );
  });
  return done.result;
}

/** Closes an open issue; closing a closed one is a no-op, as on GitHub. */
export async function closeIssue(
  twin: Twin,
  input: IssueRef & { state_reason?: 'completed' | 'not_planned' },
): Promise<GitHubIssue> {
  requirePackTwin(twin, 'github');
  const reason = input.state_reason ?? 'completed';
  if (reason !== 'completed' && reason !== 'not_planned')
    throw validationFailed('state_reason must be "completed" or "not_planned"', 'state_reason');
  const done = await twin.applyAtomic((view) => {
    const { repo, issue } = liveIssue(view, input);
    const sender = findUser(view, input.sender);
    if (issue.state === 'closed') return skip(issue);
    const now = githubTime(twin.world.clock.now());
    const fields: JsonObject = {
      state: 'closed',
      state_reason: reason,
      closed_at: now,
      updated_at: now,
    };
    return commit(
      {
        operation: 'issue.close',
        subjectType: 'issue',
        subjectId: issueKey(repo.id, issue.number),
        fields,
        actor: actorOf(sender),
        projection: { updates: [openCountChange(repo, -1)] },
      },
      { ...issue, ...fields } as GitHubIssue,
    );
  });
  return done.result;
}
