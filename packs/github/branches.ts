// Branches and pushes. A branch keeps its tip and the last push that moved it (what the `push`
// event renders); a push to the head branch of open pull requests synchronizes them in the same
// commit, and merging a pull request pushes its merge commit to the base branch.
import {
  commit,
  type JsonObject,
  type ProjectedResource,
  type ReadView,
  type Twin,
  type Write,
} from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, type GitHubUser } from './accounts.js';
import { validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository, type GitHubRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

/** Index of pull requests by their head branch (`<repo id>:<ref>`), for synchronize. */
export const HEAD_INDEX = 'head';
const ZERO_SHA = '0000000000000000000000000000000000000000';

export type GitActor = { name: string; email: string; username?: string };

export type GitCommit = {
  id: string;
  tree_id: string;
  message: string;
  timestamp: string;
  author: GitActor;
  committer: GitActor;
  added: string[];
  removed: string[];
  modified: string[];
};

export type GitPush = {
  ref: string;
  before: string;
  after: string;
  created: boolean;
  forced: boolean;
  commits: GitCommit[];
  pusher: GitActor;
};

export type GitHubBranch = {
  repository_id: number;
  name: string;
  sha: string;
  /** The push that last moved the branch; null for a branch made without one (auto-init). */
  last_push: GitPush | null;
};

/** The branch records of the twin, typed (src/state/record-kind.ts). */
export const branchKind = recordKind<GitHubBranch>({ type: 'branch' });

export function branchKey(repoId: number, name: string): string {
  return `${repoId}:${name}`;
}

export function findBranch(
  view: ReadView,
  repo: GitHubRepository,
  name: string,
): GitHubBranch | undefined {
  const r = view.get('branch', branchKey(repo.id, name));
  return r === undefined || r.deleted ? undefined : branchKind.of(r);
}

/** The branch's tip, or a new one (projected) when the twin has not seen the branch yet. */
export function tipOrCreate(
  view: ReadView,
  twin: Twin,
  repo: GitHubRepository,
  name: string,
): { sha: string; projection?: ProjectedResource } {
  const branch = findBranch(view, repo, name);
  if (branch !== undefined) return { sha: branch.sha };
  const sha = githubIds.sha(twin.world.ids);
  const fields: GitHubBranch = { repository_id: repo.id, name, sha, last_push: null };
  return {
    sha,
    projection: {
      type: 'branch',
      id: branchKey(repo.id, name),
      fields: branchKind.json(fields),
    },
  };
}

export function gitActor(user: GitHubUser): GitActor {
  return {
    name: user.login,
    email: `${user.id}+${user.login}@users.noreply.github.com`,
    username: user.login,
  };
}

/** Commits from messages, chained from the branch's tip; files touched are the twin's stand-in. */
function makeCommits(
  twin: Twin,
  author: GitHubUser,
  messages: readonly string[],
  nowIso: string,
): GitCommit[] {
  const ids = twin.world.ids;
  return messages.map((message) => ({
    id: githubIds.sha(ids),
    tree_id: githubIds.sha(ids),
    message,
    timestamp: nowIso.replace(/Z$/, '+00:00'),
    author: gitActor(author),
    committer: gitActor(author),
    added: [],
    removed: [],
    modified: ['README.md'],
  }));
}

/** The writes of a push: the branch moves, the repository's pushed_at, open pull requests on it synchronize. */
export function pushWrites(
  view: ReadView,
  repo: GitHubRepository,
  name: string,
  sender: GitHubUser,
  commits: GitCommit[],
  nowIso: string,
  options: { forced?: boolean } = {},
): { writes: Write[]; push: GitPush } {
  const branch = findBranch(view, repo, name);
  const after = commits[commits.length - 1]!.id;
  const push: GitPush = {
    ref: `refs/heads/${name}`,
    before: branch?.sha ?? ZERO_SHA,
    after,
    created: branch === undefined,
    forced: options.forced ?? false,
    commits,
    pusher: { name: sender.login, email: gitActor(sender).email },
  };
  const fields: GitHubBranch = { repository_id: repo.id, name, sha: after, last_push: push };
  const writes: Write[] = [
    {
      operation: 'branch.push',
      subjectType: 'branch',
      subjectId: branchKey(repo.id, name),
      fields: branchKind.json(fields),
      actor: actorOf(sender),
      projection: {
        updates: [
          {
            type: 'repository',
            id: String(repo.id),
            fields: { pushed_at: nowIso, updated_at: nowIso },
          },
        ],
      },
    },
  ];
  for (const r of view.lookup('pull_request', HEAD_INDEX, branchKey(repo.id, name))) {
    const pull = r.fields as {
      state?: string;
      head?: JsonObject;
      commits?: number;
      number?: number;
    };
    if (pull.state !== 'open' || pull.head === undefined) continue;
    writes.push({
      operation: 'pull_request.synchronize',
      subjectType: 'pull_request',
      subjectId: r.id,
      fields: {
        head: { ...pull.head, sha: after },
        updated_at: nowIso,
        commits: (pull.commits ?? 0) + commits.length,
      },
      actor: actorOf(sender),
    });
  }
  return { writes, push };
}

export interface PushInput {
  repository: string;
  /** Branch name (no refs/heads/); created by the push when new. */
  branch: string;
  sender: string;
  /** One commit per message; one "Update README.md" commit when omitted. */
  messages?: string[];
  forced?: boolean;
}

const BRANCH = /^(?!\/|.*(?:\/\/|\.\.|@\{|\\))[^\s~^:?*[\]]{1,200}(?<![./])$/;

export async function push(twin: Twin, input: PushInput): Promise<GitPush> {
  requirePackTwin(twin, 'github');
  if (typeof input?.branch !== 'string' || !BRANCH.test(input.branch))
    throw validationFailed(
      'branch must be a valid git branch name, e.g. "main" or "feature/login"',
      'branch',
    );
  const messages = input.messages ?? ['Update README.md'];
  if (
    !Array.isArray(messages) ||
    messages.length === 0 ||
    messages.some((m) => typeof m !== 'string' || m.trim() === '')
  ) {
    throw validationFailed('messages must be a non-empty array of commit messages', 'messages');
  }
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const now = githubTime(twin.world.clock.now());
    const { writes, push: made } = pushWrites(
      view,
      repo,
      input.branch,
      sender,
      makeCommits(twin, sender, messages, now),
      now,
      { forced: input.forced === true },
    );
    return commit(writes, made);
  });
  return done.result;
}
