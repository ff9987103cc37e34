// Branches made and deleted by themselves (GitHub's `create` and `delete` events — a push that
// creates a branch sends `push` instead, see branches.ts), and commit statuses (`status`): the
// state an external CI reports on a commit, which must be the tip of one of the repository's
// branches.
import { commit, recordKind, type ReadView, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { branchKey, branchKind, findBranch, type GitHubBranch } from './branches.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository, type GitHubRepository } from './repositories.js';
import { STATUS_SHA_INDEX } from './commit-indexes.js';

/** Index of branches by their tip, to find the branches a status's commit is on. */
export const SHA_INDEX = 'sha';
const BRANCH = /^(?!\/|.*(?:\/\/|\.\.|@\{|\\))[^\s~^:?*[\]]{1,200}(?<![./])$/;

export type StatusState = 'error' | 'failure' | 'pending' | 'success';

export type GitHubStatus = {
  id: number;
  node_id: string;
  url: string;
  sha: string;
  state: StatusState;
  description: string | null;
  target_url: string | null;
  context: string;
  created_at: string;
  updated_at: string;
  creator: AccountSummary;
  repository_id: number;
};

/** The commit_status records of the twin, typed (src/state/record-kind.ts). */
export const statusKind = recordKind<GitHubStatus>({ type: 'commit_status' });
/** Statuses read from the index at a time when listing a commit's. */
const STATUS_PAGE_ROWS = 100;

export async function createBranch(
  twin: Twin,
  input: { repository: string; branch: string; from?: string; sender: string },
): Promise<GitHubBranch> {
  requirePackTwin(twin, 'github');
  if (typeof input?.branch !== 'string' || !BRANCH.test(input.branch))
    throw validationFailed(
      'branch must be a valid git branch name, e.g. "feature/login"',
      'branch',
    );
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    if (findBranch(view, repo, input.branch) !== undefined)
      throw validationFailed('Reference already exists', 'ref');
    const from = input.from ?? repo.default_branch;
    const source = findBranch(view, repo, from);
    if (source === undefined) throw notFound(`branch ${from} in ${repo.full_name}`, 'from');
    const branch: GitHubBranch = {
      repository_id: repo.id,
      name: input.branch,
      sha: source.sha,
      last_push: null,
    };
    return commit(
      {
        operation: 'branch.create',
        subjectType: 'branch',
        subjectId: branchKey(repo.id, input.branch),
        fields: branchKind.json(branch),
        actor: actorOf(sender),
      },
      branch,
    );
  });
  return done.result;
}

export async function deleteBranch(
  twin: Twin,
  input: { repository: string; branch: string; sender: string },
): Promise<void> {
  requirePackTwin(twin, 'github');
  await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    if (findBranch(view, repo, input.branch) === undefined)
      throw validationFailed('Reference does not exist', 'ref');
    if (input.branch === repo.default_branch)
      throw validationFailed('Cannot delete the default branch', 'ref');
    return commit(
      {
        operation: 'branch.delete',
        subjectType: 'branch',
        subjectId: branchKey(repo.id, input.branch),
        delete: true,
        actor: actorOf(sender),
      },
      undefined,
    );
  });
}

const STATES = new Set(['error', 'failure', 'pending', 'success']);

/** Branches of `repo` whose tip is `sha`. */
export function branchesAt(view: ReadView, repo: GitHubRepository, sha: string): GitHubBranch[] {
  return view
    .lookup('branch', SHA_INDEX, sha)
    .filter((r) => !r.deleted && r.fields.repository_id === repo.id)
    .map((r) => branchKind.of(r))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

export async function createCommitStatus(
  twin: Twin,
  input: {
    repository: string;
    sha: string;
    state: StatusState;
    context?: string;
    description?: string;
    target_url?: string;
    sender: string;
    /**
     * The REST surface found `sha` among every commit the repository is known to hold
     * (known-commits.ts, which reads the log); without it, the commit must be a branch's tip.
     */
    commitKnown?: boolean;
  },
): Promise<GitHubStatus> {
  requirePackTwin(twin, 'github');
  if (!STATES.has(input?.state))
    throw validationFailed('state must be one of error, failure, pending, success', 'state');
  if (typeof input.sha !== 'string' || !/^[0-9a-f]{40}$/.test(input.sha))
    throw validationFailed('sha must be a 40-character commit SHA', 'sha');
  if (
    input.description !== undefined &&
    (typeof input.description !== 'string' || input.description.length > 140)
  )
    throw validationFailed('description must be a string of at most 140 characters', 'description');
  if (
    input.target_url !== undefined &&
    (typeof input.target_url !== 'string' || !/^https?:\/\//.test(input.target_url))
  )
    throw validationFailed('target_url must be an http(s) URL', 'target_url');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    if (input.commitKnown !== true && branchesAt(view, repo, input.sha).length === 0)
      throw validationFailed(`No commit found for SHA: ${input.sha}`, 'sha');
    const ids = twin.world.ids;
    const id = githubIds.numeric(ids);
    const now = githubTime(twin.world.clock.now());
    const status: GitHubStatus = {
      id,
      node_id: githubIds.node(ids, 'SC'),
      url: `${repo.url}/statuses/${input.sha}`,
      sha: input.sha,
      state: input.state,
      description: input.description ?? null,
      target_url: input.target_url ?? null,
      context: input.context ?? 'default',
      created_at: now,
      updated_at: now,
      creator: summary(sender),
      repository_id: repo.id,
    };
    return commit(
      {
        operation: 'status.create',
        subjectType: 'commit_status',
        subjectId: String(id),
        fields: statusKind.json(status),
        actor: actorOf(sender),
      },
      status,
    );
  });
  return done.result;
}

/**
 * The statuses of `sha` in `repo`, newest first: read through the statuses-by-commit index a page
 * at a time, so listing one commit's statuses costs what that commit has, not what the twin holds.
 */
export function statusesOf(view: ReadView, repo: GitHubRepository, sha: string): GitHubStatus[] {
  const out: GitHubStatus[] = [];
  if (view.range === undefined) throw new Error('statusesOf: this view reads no ranges');
  for (let after: string | undefined; ;) {
    const rows = view.range('commit_status', STATUS_SHA_INDEX, {
      key: sha,
      limit: STATUS_PAGE_ROWS,
      descending: true,
      ...(after === undefined ? {} : { after }),
    });
    for (const r of rows)
      if (!r.deleted && r.fields.repository_id === repo.id) out.push(statusKind.of(r));
    if (rows.length < STATUS_PAGE_ROWS) return out;
    after = rows.at(-1)!.id;
  }
}
