// Which commits a repository holds, as far as the twin can tell. It keeps no object store: a commit
// exists for it when something recorded it — a branch's tip, a commit of a push to a branch (or the
// tip that push moved from), a pull request's head, base or merge commit, a commit status or a
// check suite. A sha none of those name is one GitHub answers "No commit found for SHA" for, and a
// `:ref` of the API (a sha, a unique abbreviation of one, or a branch) resolves against the same.
//
// Every question is a handful of index lookups by key (commit-indexes.ts), whatever the twin holds.
// A commit inside a branch's last push is found among the repository's live branches (a push's
// commits are an array of objects, which no index path reaches): one lookup, as many rows as the
// repository has branches, however often they were pushed. The one exception is a commit older than its branch's last push and named by no status, suite
// or pull request: a branch keeps only its last push, and a push's commits are an array of objects
// no index reaches, so only the log remembers it. That read comes last, after every lookup failed,
// and covers only the repository's live branches (see walkOlder).
import type { ReadView, Resource, Twin } from '../../src/index.js';
import { branchKey, branchKind, findBranch, type GitCommit, type GitPush } from './branches.js';
import {
  BASE_SHA_INDEX,
  HEAD_SHA_INDEX,
  MERGE_SHA_INDEX,
  PUSHED_FROM_INDEX,
  REPOSITORY_INDEX,
  STATUS_SHA_INDEX,
} from './commit-indexes.js';
import { SHA_INDEX } from './refs.js';
import type { GitHubRepository } from './repositories.js';

const ZERO_SHA = '0000000000000000000000000000000000000000';
const FULL_SHA = /^[0-9a-f]{40}$/;
const ABBREVIATION = /^[0-9a-f]{7,39}$/;
/**
 * How many of a repository's newest check suites and statuses an abbreviation is matched against.
 * The view has no prefix lookup (`range` pages one key, `lookupUpTo` starts at the smallest), so an
 * abbreviation resolves among commits a bounded read can list, not every commit ever recorded.
 */
const RECENT = 100;
/** Statuses read to find one of this repository (shas are the twin's own, so one repository's). */
const STATUS_PAGE = 10;

/** A page of an ordered index; every read section's view reads ranges (ReadView.range). */
function page(view: ReadView, type: string, index: string, key: string, limit: number): Resource[] {
  if (view.range === undefined) throw new Error(`known-commits: this view reads no ranges`);
  return view.range(type, index, { key, limit, descending: true });
}

const inRepo = (repo: GitHubRepository) => (r: Resource) =>
  !r.deleted && r.fields.repository_id === repo.id;

/** Whether a record other than a branch's pushes names `sha` in `repo`: a few lookups by key. */
function namedByRecord(view: ReadView, repo: GitHubRepository, sha: string): boolean {
  const mine = inRepo(repo);
  // Pull request ids are `<repository id>#<number>`.
  const minePull = (r: Resource) => !r.deleted && r.id.startsWith(`${repo.id}#`);
  return (
    view.lookup('branch', SHA_INDEX, sha).some(mine) ||
    view.lookup('branch', PUSHED_FROM_INDEX, sha).some(mine) ||
    [HEAD_SHA_INDEX, BASE_SHA_INDEX, MERGE_SHA_INDEX].some((index) =>
      view.lookup('pull_request', index, sha).some(minePull),
    ) ||
    view.lookup('check_suite', HEAD_SHA_INDEX, sha).some(mine) ||
    page(view, 'commit_status', STATUS_SHA_INDEX, sha, STATUS_PAGE).some(mine)
  );
}

/** The repository's live branches: as many as it has, however often they were pushed. */
function branchesOf(view: ReadView, repo: GitHubRepository) {
  return view
    .lookup('branch', REPOSITORY_INDEX, String(repo.id))
    .filter(inRepo(repo))
    .map((r) => branchKind.of(r));
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
 * Each older state of `branches` from the log, until `visit` says it has what it wanted. The only
 * read here whose cost grows with history (the branches' pushes): callers reach it only when every
 * lookup failed — a commit two pushes old that no status, suite or pull request names, or a sha
 * that names nothing. Remembering old pushes in a record would bound it, but changes what a push
 * writes (and so the golden walks' bytes).
 */
async function walkOlder(
  twin: Twin,
  repoId: number,
  branches: readonly string[],
  visit: (fields: { sha?: unknown; last_push?: GitPush | null }) => boolean,
): Promise<void> {
  for (const name of branches)
    for (const e of await twin.entriesFor('branch', branchKey(repoId, name)))
      if (visit((e.fields ?? {}) as { sha?: unknown; last_push?: GitPush | null })) return;
}

/** Whether `sha` (40 hex) names a commit of `repo`. */
export async function commitExists(
  twin: Twin,
  repo: GitHubRepository,
  sha: string,
): Promise<boolean> {
  const { known, branches } = await twin.read((view) => {
    if (namedByRecord(view, repo, sha)) return { known: true, branches: [] };
    const live = branchesOf(view, repo);
    return {
      known: live.some((b) => inPush(b.last_push, sha) !== undefined),
      branches: live.map((b) => b.name),
    };
  });
  if (known) return true;
  let seen = false;
  await walkOlder(twin, repo.id, branches, (f) => {
    seen = f.sha === sha || f.last_push?.before === sha || inPush(f.last_push, sha) !== undefined;
    return seen;
  });
  return seen;
}

/** The commits a bounded read lists for `repo`: branch tips and last pushes, newest suites and statuses. */
function recentCommits(view: ReadView, repo: GitHubRepository): Set<string> {
  const known = new Set<string>();
  for (const b of branchesOf(view, repo)) {
    known.add(b.sha);
    if (b.last_push === null) continue;
    if (b.last_push.before !== ZERO_SHA) known.add(b.last_push.before);
    for (const c of b.last_push.commits ?? []) known.add(c.id);
  }
  const key = String(repo.id);
  for (const r of page(view, 'check_suite', REPOSITORY_INDEX, key, RECENT))
    known.add(String(r.fields.head_sha));
  for (const r of page(view, 'commit_status', REPOSITORY_INDEX, key, RECENT))
    known.add(String(r.fields.sha));
  return known;
}

/**
 * The commit a `:ref` of the REST API names: a branch (`main`, `heads/main` or
 * `refs/heads/main`), a full sha, or an abbreviation of one (7 hex digits or more) that only one
 * commit starts with among those recentCommits lists (an older commit with no status or check
 * suite is named by its full sha). Undefined when it names none.
 */
export async function resolveCommit(
  twin: Twin,
  repo: GitHubRepository,
  ref: string,
): Promise<string | undefined> {
  const name = ref.replace(/^(refs\/)?heads\//, '');
  const tip = await twin.read((view) => findBranch(view, repo, name)?.sha);
  if (tip !== undefined) return tip;
  if (FULL_SHA.test(ref)) return (await commitExists(twin, repo, ref)) ? ref : undefined;
  if (!ABBREVIATION.test(ref)) return undefined;
  const known = await twin.read((view) => recentCommits(view, repo));
  const matches = [...known].filter((k) => k.startsWith(ref));
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * The push commit `sha` is: from the last push of the branches it is the tip of, else of the
 * repository's other live branches, else (the log) their older pushes; undefined for a commit no
 * push brought (a repository's first commit, or a tip a pull request's new head branch was given).
 */
export async function findPushedCommit(
  twin: Twin,
  repo: GitHubRepository,
  sha: string,
): Promise<PushedCommit | undefined> {
  const { found, branches } = await twin.read((view) => {
    const at = view
      .lookup('branch', SHA_INDEX, sha)
      .filter(inRepo(repo))
      .map((r) => branchKind.of(r));
    for (const b of at) {
      const hit = inPush(b.last_push, sha);
      if (hit !== undefined) return { found: hit, branches: [] };
    }
    const live = branchesOf(view, repo);
    for (const b of live) {
      const hit = inPush(b.last_push, sha);
      if (hit !== undefined) return { found: hit, branches: [] };
    }
    return { found: undefined, branches: live.map((b) => b.name) };
  });
  if (found !== undefined) return found;
  let older: PushedCommit | undefined;
  await walkOlder(twin, repo.id, branches, (f) => (older = inPush(f.last_push, sha)) !== undefined);
  return older;
}
