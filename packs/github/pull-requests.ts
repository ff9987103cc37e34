// Pull requests: opened, synchronized by pushes to their head branch (see branches.ts), and
// closed — merged or not; a merge pushes its merge commit to the base branch in the same commit.
// They take numbers from the repository's issue sequence and count toward open_issues_count.
import {
  commit,
  skip,
  type JsonObject,
  type ProjectedResource,
  type ReadView,
  type Twin,
  type Write,
} from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { customRefusal, notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import {
  branchKey,
  findBranch,
  gitActor,
  HEAD_INDEX,
  pushWrites,
  tipOrCreate,
} from './branches.js';
import { authorAssociation, issueKey } from './issues.js';
import type { GitHubLabel } from './label.js';
import {
  findRepository,
  nextNumber,
  openCountChange,
  type GitHubRepository,
} from './repositories.js';
import { recordKind } from '../../src/index.js';

/** A branch tip as kept; the payload adds the repository object when it renders `head`/`base`. */
export type BranchRef = { label: string; ref: string; sha: string; user: AccountSummary };

export type GitHubPullRequest = {
  url: string;
  id: number;
  node_id: string;
  html_url: string;
  diff_url: string;
  patch_url: string;
  issue_url: string;
  number: number;
  state: 'open' | 'closed';
  locked: boolean;
  title: string;
  user: AccountSummary;
  body: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  merge_commit_sha: string | null;
  assignee: AccountSummary | null;
  assignees: AccountSummary[];
  requested_reviewers: AccountSummary[];
  labels: GitHubLabel[];
  draft: boolean;
  head: BranchRef;
  base: BranchRef;
  author_association: string;
  merged: boolean;
  mergeable: null;
  merged_by: AccountSummary | null;
  comments: number;
  commits: number;
  additions: number;
  deletions: number;
  changed_files: number;
  /** Twin bookkeeping (never rendered): `<repo id>:<head ref>`, indexed for synchronize. */
  head_key: string;
};

/** The pull_request records of the twin, typed (src/state/record-kind.ts). */
export const pullRequestKind = recordKind<GitHubPullRequest>({ type: 'pull_request' });

export interface OpenPullRequestInput {
  repository: string;
  title: string;
  /** Branch to merge from. */
  head: string;
  /** Branch to merge into; the repository's default branch when omitted. */
  base?: string;
  body?: string;
  draft?: boolean;
  sender: string;
  /**
   * The REST API's refusals: a base branch the twin has not seen (422 on base), and a second open
   * pull request for the same head and base. Off for the pack's own scenarios, where both branches
   * may come into being with the pull request and each trigger opens one anew.
   */
  restChecks?: boolean;
}

export function livePull(
  view: ReadView,
  repository: string,
  number: number,
): { repo: GitHubRepository; pull: GitHubPullRequest } {
  const repo = findRepository(view, repository);
  const r = view.get('pull_request', issueKey(repo.id, number));
  if (r === undefined || r.deleted)
    throw notFound(`pull request #${number} in ${repository}`, 'number');
  return { repo, pull: pullRequestKind.of(r) };
}

export async function openPullRequest(
  twin: Twin,
  input: OpenPullRequestInput,
): Promise<GitHubPullRequest> {
  requirePackTwin(twin, 'github');
  if (typeof input?.title !== 'string' || input.title.trim() === '')
    throw validationFailed('title is required', 'title');
  if (typeof input.head !== 'string' || input.head === '')
    throw validationFailed('head must name a branch', 'head');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const base = input.base ?? repo.default_branch;
    if (base === input.head)
      throw validationFailed(`No commits between ${base} and ${input.head}`, 'head');
    if (input.restChecks === true && findBranch(view, repo, base) === undefined)
      throw validationFailed(`base ${base} is not a branch of ${repo.full_name}`, 'base');
    // GitHub keeps one open pull request per head and base.
    const open = view
      .lookup('pull_request', HEAD_INDEX, branchKey(repo.id, input.head))
      .map((r) => pullRequestKind.of(r))
      .find((p) => p.state === 'open' && p.base.ref === base);
    if (input.restChecks === true && open !== undefined)
      throw customRefusal(
        'PullRequest',
        `A pull request already exists for ${repo.owner.login}:${input.head}.`,
      );
    const { number, projection } = nextNumber(view, repo);
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const api = `${repo.url}/pulls/${number}`;
    const html = `${repo.html_url}/pull/${number}`;
    // Branches the twin has not seen yet come into being with the pull request (pushed earlier).
    const projected: ProjectedResource[] = [];
    const branch = (ref: string): BranchRef => {
      const tip = tipOrCreate(view, twin, repo, ref);
      if (tip.projection !== undefined) projected.push(tip.projection);
      return { label: `${repo.owner.login}:${ref}`, ref, sha: tip.sha, user: repo.owner };
    };
    const head = branch(input.head);
    const baseRef = branch(base);
    const pull: GitHubPullRequest = {
      url: api,
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'PR'),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: `${repo.url}/issues/${number}`,
      number,
      state: 'open',
      locked: false,
      title: input.title,
      user: summary(sender),
      body: input.body ?? null,
      created_at: now,
      updated_at: now,
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      labels: [],
      draft: input.draft ?? false,
      head,
      base: baseRef,
      author_association: authorAssociation(repo, sender.id),
      merged: false,
      mergeable: null,
      merged_by: null,
      comments: 0,
      commits: 1,
      additions: 1,
      deletions: 0,
      changed_files: 1,
      head_key: branchKey(repo.id, input.head),
    };
    return commit(
      {
        operation: 'pull_request.open',
        subjectType: 'pull_request',
        subjectId: issueKey(repo.id, number),
        fields: pull,
        actor: actorOf(sender),
        projection: {
          updates: [projection, openCountChange(repo, 1)],
          ...(projected.length === 0 ? {} : { creates: projected }),
        },
      },
      pull,
    );
  });
  return done.result;
}

/** Closes an open pull request, merging it when `merge` is true (payload action is still "closed"). */
export async function closePullRequest(
  twin: Twin,
  input: { repository: string; number: number; sender: string; merge?: boolean },
): Promise<GitHubPullRequest> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const { repo, pull } = livePull(view, input.repository, input.number);
    const sender = findUser(view, input.sender);
    if (pull.state === 'closed') return skip(pull);
    const now = githubTime(twin.world.clock.now());
    const merged = input.merge === true;
    // The merge commit is what lands on the base branch: one push, in the same commit as the close.
    let pushed: Write[] = [];
    let mergeSha: string | null = null;
    if (merged) {
      const ids = twin.world.ids;
      const mergeCommit = {
        id: githubIds.sha(ids),
        tree_id: githubIds.sha(ids),
        message: `Merge pull request #${pull.number} from ${pull.head.label.replace(':', '/')}\n\n${pull.title}`,
        timestamp: now.replace(/Z$/, '+00:00'),
        author: gitActor(sender),
        committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
        added: [],
        removed: [],
        modified: ['README.md'],
      };
      mergeSha = mergeCommit.id;
      pushed = pushWrites(view, repo, pull.base.ref, sender, [mergeCommit], now).writes;
    }
    const fields: JsonObject = {
      state: 'closed',
      closed_at: now,
      updated_at: now,
      merged,
      merged_at: merged ? now : null,
      merge_commit_sha: mergeSha,
      merged_by: merged ? summary(sender) : null,
    };
    return commit(
      [
        {
          operation: 'pull_request.close',
          subjectType: 'pull_request',
          subjectId: issueKey(repo.id, pull.number),
          fields,
          actor: actorOf(sender),
          projection: { updates: [openCountChange(repo, -1)] },
        },
        ...pushed,
      ],
      { ...pull, ...fields } as GitHubPullRequest,
    );
  });
  return done.result;
}

/** Edits title, body or base; `changes` in the event holds what they were. No change, no write. */
export async function editPullRequest(
  twin: Twin,
  input: {
    repository: string;
    number: number;
    sender: string;
    title?: string;
    body?: string | null;
    base?: string;
  },
): Promise<GitHubPullRequest> {
  requirePackTwin(twin, 'github');
  if (input?.title !== undefined && (typeof input.title !== 'string' || input.title.trim() === ''))
    throw validationFailed('title must not be blank', 'title');
  if (input.body !== undefined && input.body !== null && typeof input.body !== 'string')
    throw validationFailed('body must be a string or null', 'body');
  const done = await twin.applyAtomic((view) => {
    const { repo, pull } = livePull(view, input.repository, input.number);
    const sender = findUser(view, input.sender);
    const fields: JsonObject = {};
    if (input.title !== undefined && input.title !== pull.title) fields.title = input.title;
    if (input.body !== undefined && input.body !== pull.body) fields.body = input.body;
    if (input.base !== undefined && input.base !== pull.base.ref) {
      if (pull.state !== 'open')
        throw validationFailed('Cannot change the base branch of a closed pull request.', 'base');
      if (input.base === pull.head.ref)
        throw validationFailed(`No commits between ${input.base} and ${pull.head.ref}`, 'base');
      const tip = findBranch(view, repo, input.base);
      if (tip === undefined)
        throw validationFailed(`base branch ${input.base} does not exist`, 'base');
      fields.base = {
        ...pull.base,
        label: `${repo.owner.login}:${input.base}`,
        ref: input.base,
        sha: tip.sha,
      };
    }
    if (Object.keys(fields).length === 0) return skip(pull);
    fields.updated_at = githubTime(twin.world.clock.now());
    return commit(
      {
        operation: 'pull_request.edit',
        subjectType: 'pull_request',
        subjectId: issueKey(repo.id, pull.number),
        fields,
        actor: actorOf(sender),
      },
      { ...pull, ...fields } as GitHubPullRequest,
    );
  });
  return done.result;
}

/** Reopens a closed, unmerged pull request (GitHub refuses to reopen a merged one). */
export async function reopenPullRequest(
  twin: Twin,
  input: { repository: string; number: number; sender: string },
): Promise<GitHubPullRequest> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const { repo, pull } = livePull(view, input.repository, input.number);
    const sender = findUser(view, input.sender);
    if (pull.state === 'open') return skip(pull);
    if (pull.merged)
      throw validationFailed('state cannot be changed. The pull request has been merged.', 'state');
    const now = githubTime(twin.world.clock.now());
    const fields: JsonObject = { state: 'open', closed_at: null, updated_at: now };
    return commit(
      {
        operation: 'pull_request.reopen',
        subjectType: 'pull_request',
        subjectId: issueKey(repo.id, pull.number),
        fields,
        actor: actorOf(sender),
        projection: { updates: [openCountChange(repo, 1)] },
      },
      { ...pull, ...fields } as GitHubPullRequest,
    );
  });
  return done.result;
}
