// Which commits a repository holds, as far as the twin can tell. It keeps no object store: a commit
// exists for it when something recorded it — a branch's tip, a commit of a push to a branch (or the
// tip that push moved from), a pull request's head, base or merge commit, a commit status or a
// check suite. A sha none of those name is one GitHub answers "No commit found for SHA" for, and a
// `:ref` of the API (a sha, a unique abbreviation of one, or a branch) resolves against the same.
import type { ReadView, Twin } from '../../src/index.js';
import { branchKey, branchKind, findBranch, type GitCommit, type GitPush } from './branches.js';
import { checkSuiteKind } from './checks.js';
import { pullRequestKind } from './pull-requests.js';
import { statusKind } from './refs.js';
import type { GitHubRepository } from './repositories.js';

const ZERO_SHA = '0000000000000000000000000000000000000000';

function addPush(into: Set<string>, push: GitPush | null | undefined): void {
  if (push === null || push === undefined) return;
  if (push.before !== ZERO_SHA) into.add(push.before);
  for (const c of push.commits ?? []) into.add(c.id);
}

/** The commits of `repo` that the live records name (one read, no log scan). */
function recordedCommits(view: ReadView, repo: GitHubRepository): Set<string> {
  const known = new Set<string>();
  for (const b of branchKind.list(view)) {
    if (b.repository_id !== repo.id) continue;
    known.add(b.sha);
    addPush(known, b.last_push);
  }
  for (const r of view.list('pull_request')) {
    if (!r.id.startsWith(`${repo.id}#`)) continue;
    const p = pullRequestKind.of(r);
    known.add(p.head.sha);
    known.add(p.base.sha);
    if (p.merge_commit_sha !== null) known.add(p.merge_commit_sha);
  }
  for (const s of checkSuiteKind.list(view)) if (s.repository_id === repo.id) known.add(s.head_sha);
  for (const s of statusKind.list(view)) if (s.repository_id === repo.id) known.add(s.sha);
  return known;
}

/**
 * Every commit of `repo` the twin has recorded: the live records, then — only when `wanted` is not
 * among them — every push each live branch has had (a branch keeps only its last push, and an
 * app may name a commit two pushes old).
 */
async function knownCommits(
  twin: Twin,
  repo: GitHubRepository,
  wanted: (sha: string) => boolean,
): Promise<Set<string>> {
  const { known, branches } = await twin.read((view) => ({
    known: recordedCommits(view, repo),
    branches: branchKind
      .list(view)
      .filter((b) => b.repository_id === repo.id)
      .map((b) => b.name),
  }));
  if ([...known].some(wanted)) return known;
  for (const name of branches)
    for (const e of await twin.entriesFor('branch', branchKey(repo.id, name))) {
      const fields = e.fields as { sha?: unknown; last_push?: GitPush | null } | undefined;
      if (typeof fields?.sha === 'string') known.add(fields.sha);
      addPush(known, fields?.last_push);
    }
  return known;
}

/** Whether `sha` (40 hex) names a commit of `repo`. */
export async function commitExists(
  twin: Twin,
  repo: GitHubRepository,
  sha: string,
): Promise<boolean> {
  return (await knownCommits(twin, repo, (k) => k === sha)).has(sha);
}

/**
 * The commit a `:ref` of the REST API names: a branch (`main`, `heads/main` or
 * `refs/heads/main`), a full sha, or an abbreviation of one (7 hex digits or more) that only one
 * known commit starts with. Undefined when it names none.
 */
export async function resolveCommit(
  twin: Twin,
  repo: GitHubRepository,
  ref: string,
): Promise<string | undefined> {
  const name = ref.replace(/^(refs\/)?heads\//, '');
  const tip = await twin.read((view) => findBranch(view, repo, name)?.sha);
  if (tip !== undefined) return tip;
  if (!/^[0-9a-f]{7,40}$/.test(ref)) return undefined;
  const matches = [...(await knownCommits(twin, repo, (k) => k.startsWith(ref)))].filter((k) =>
    k.startsWith(ref),
  );
  return matches.length === 1 ? matches[0] : undefined;
}

/** A commit some push brought, with its first parent (null when the push created the branch). */
export type PushedCommit = { commit: GitCommit; parent: string | null };

function inPush(push: GitPush | null | undefined, sha: string): PushedCommit | undefined {
  const at = push?.commits?.findIndex((c) => c.id === sha) ?? -1;
  if (push === null || push === undefined || at < 0) return undefined;
  const parent = at > 0 ? push.commits[at - 1]!.id : push.before;
  return { commit: push.commits[at]!, parent: parent === ZERO_SHA ? null : parent };
}

/**
 * The push commit `sha` is, from the live branches' last pushes, else from every push each live
 * branch of `repo` has had; undefined for a commit no push brought (a repository's first commit,
 * or a tip a pull request's new head branch was given).
 */
export async function findPushedCommit(
  twin: Twin,
  repo: GitHubRepository,
  sha: string,
): Promise<PushedCommit | undefined> {
  const branches = await twin.read((view) =>
    branchKind.list(view).filter((b) => b.repository_id === repo.id),
  );
  for (const b of branches) {
    const found = inPush(b.last_push, sha);
    if (found !== undefined) return found;
  }
  for (const b of branches)
    for (const e of await twin.entriesFor('branch', branchKey(repo.id, b.name))) {
      const found = inPush(
        (e.fields as { last_push?: GitPush | null } | undefined)?.last_push,
        sha,
      );
      if (found !== undefined) return found;
    }
  return undefined;
}
