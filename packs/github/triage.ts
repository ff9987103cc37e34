// Triage on issues and pull requests: labels (made in the repository the first time they are
// used, as GitHub's "add labels" does), assignees and requested reviewers. Each one added is its
// own write — GitHub sends one `labeled`/`assigned`/`review_requested` per label or person — and
// all of a call's writes commit together. Adding what is already there writes nothing.
import {
  commit,
  recordKind,
  skip,
  type JsonObject,
  type ReadView,
  type Twin,
} from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, LOGIN_INDEX, summary, type AccountSummary } from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { issueKey } from './issues.js';
import type { GitHubLabel } from './label.js';
import { findRepository, type GitHubRepository } from './repositories.js';

/** What an issue or pull request keeps of its triage (absent on ones made before any triage). */
type Triaged = {
  labels?: GitHubLabel[];
  assignees?: AccountSummary[];
  requested_reviewers?: AccountSummary[];
  user: AccountSummary;
  state: string;
  assignee?: AccountSummary | null;
  updated_at?: string;
};

/** Issues and pull requests seen through their triage fields (either type: `from` takes fields). */
const triagedKind = recordKind<Triaged>({ type: 'issue' });
/** A repository's labels, kept by `<repo id>:<lower-case name>` (src/state/record-kind.ts). */
const labelKind = recordKind<GitHubLabel & { repository_id: number }>({ type: 'label' });

export type { GitHubLabel };

export interface TriageTarget {
  /** "owner/name" */
  repository: string;
  number: number;
  /** Login of the user acting. */
  sender: string;
}

// GitHub's palette for labels made on the fly: picked from the name, so a replay makes the same.
const COLORS = ['d73a4a', '0075ca', 'a2eeef', '7057ff', '008672', 'e4e669', 'd876e3', 'cfd3d7'];

function colorOf(name: string): string {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return COLORS[h % COLORS.length]!;
}

function target(
  view: ReadView,
  input: TriageTarget,
): { repo: GitHubRepository; type: 'issue' | 'pull_request'; fields: Triaged } {
  const repo = findRepository(view, input.repository);
  const key = issueKey(repo.id, input.number);
  for (const type of ['issue', 'pull_request'] as const) {
    const r = view.get(type, key);
    if (r !== undefined && !r.deleted) return { repo, type, fields: triagedKind.from(r.fields) };
  }
  throw notFound(`issue #${input.number} in ${input.repository}`, 'number');
}

/**
 * What GitHub keeps on one issue at most: 100 labels, 10 assignees (its documented limits; the
 * reviewers' is the same order). Each name added is one write carrying the whole list, so an
 * unbounded list would cost the square of its length in one atomic action.
 */
const MOST = { labels: 100, assignees: 10, reviewers: 100 } as const;

function names(value: unknown, path: keyof typeof MOST): string[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((v) => typeof v !== 'string' || v.trim() === '' || v.length > 50)
  )
    throw validationFailed(`${path} must be a non-empty array of names (1–50 characters)`, path);
  const unique = [...new Set(value as string[])];
  if (unique.length > MOST[path])
    throw validationFailed(`${path}: an issue holds at most ${MOST[path]}`, path);
  return unique;
}

/** Refuses a list that would grow past what an issue holds. */
function within(count: number, path: keyof typeof MOST): void {
  if (count > MOST[path])
    throw validationFailed(`${path}: an issue holds at most ${MOST[path]}`, path);
}

function labelKey(repoId: number, name: string): string {
  return `${repoId}:${name.toLowerCase()}`;
}

/** Adds labels to an issue or pull request: one `labeled` event per label it did not have. */
export async function addLabels(
  twin: Twin,
  input: TriageTarget & { labels: string[] },
): Promise<GitHubLabel[]> {
  requirePackTwin(twin, 'github');
  const wanted = names(input?.labels, 'labels');
  const done = await twin.applyAtomic((view) => {
    const { repo, type, fields } = target(view, input);
    const sender = findUser(view, input.sender);
    const now = githubTime(twin.world.clock.now());
    const labels = [...(fields.labels ?? [])];
    const writes = [];
    for (const name of wanted) {
      if (labels.some((l) => l.name.toLowerCase() === name.toLowerCase())) continue;
      const kept = view.get('label', labelKey(repo.id, name));
      const made = kept === undefined;
      const label: GitHubLabel = made
        ? {
            id: githubIds.numeric(twin.world.ids),
            node_id: githubIds.node(twin.world.ids, 'LA'),
            url: `${repo.url}/labels/${encodeURIComponent(name)}`,
            name,
            color: colorOf(name),
            default: false,
            description: null,
          }
        : labelKind.of(kept);
      labels.push(label);
      within(labels.length, 'labels');
      writes.push({
        operation: `${type}.label`,
        subjectType: type,
        subjectId: issueKey(repo.id, input.number),
        fields: triagedKind.json({ labels: [...labels], updated_at: now }),
        actor: actorOf(sender),
        ...(made
          ? {
              projection: {
                creates: [
                  {
                    type: 'label',
                    id: labelKey(repo.id, name),
                    fields: labelKind.json({ ...label, repository_id: repo.id }),
                  },
                ],
              },
            }
          : {}),
      });
    }
    return writes.length === 0 ? skip(labels) : commit(writes, labels);
  });
  return done.result;
}

function people(
  view: ReadView,
  input: TriageTarget,
  logins: unknown,
  field: 'assignees' | 'requested_reviewers',
  operation: string,
  now: string,
) {
  const wanted = names(logins, field === 'assignees' ? 'assignees' : 'reviewers');
  const { repo, type, fields } = target(view, input);
  const sender = findUser(view, input.sender);
  if (field === 'requested_reviewers' && type !== 'pull_request')
    throw notFound(`pull request #${input.number} in ${input.repository}`, 'number');
  const list = [...(fields[field] ?? [])];
  const writes = [];
  for (const [i, login] of wanted.entries()) {
    // As GitHub answers, a reviewer it does not know is 422 for the request (an unknown assignee,
    // which GitHub leaves out, is refused here: docs/github-surface.md).
    if (field === 'requested_reviewers' && view.lookup('user', LOGIN_INDEX, login).length === 0)
      throw validationFailed(
        `Reviews may only be requested from collaborators: ${login} is not a user`,
        `reviewers[${i}]`,
      );
    const user = findUser(view, login, `${field}[${i}]`);
    if (list.some((u) => u.id === user.id)) continue;
    if (field === 'requested_reviewers' && user.id === fields.user.id)
      throw validationFailed(
        'Review cannot be requested from pull request author.',
        `reviewers[${i}]`,
      );
    list.push(summary(user));
    within(list.length, field === 'assignees' ? 'assignees' : 'reviewers');
    const patch = triagedKind.json(
      field === 'assignees'
        ? { assignees: [...list], updated_at: now, assignee: list[0]! }
        : { requested_reviewers: [...list], updated_at: now },
    );
    writes.push({
      operation: `${type}.${operation}`,
      subjectType: type,
      subjectId: issueKey(repo.id, input.number),
      fields: patch,
      actor: actorOf(sender),
    });
  }
  return { writes, list };
}

/** Assigns people to an issue or pull request: one `assigned` event per new assignee. */
export async function assignIssue(
  twin: Twin,
  input: TriageTarget & { assignees: string[] },
): Promise<AccountSummary[]> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const now = githubTime(twin.world.clock.now());
    const { writes, list } = people(view, input, input?.assignees, 'assignees', 'assign', now);
    return writes.length === 0 ? skip(list) : commit(writes, list);
  });
  return done.result;
}

/** Requests reviews on an open pull request: one `review_requested` event per new reviewer. */
export async function requestReviewers(
  twin: Twin,
  input: TriageTarget & { reviewers: string[] },
): Promise<AccountSummary[]> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const now = githubTime(twin.world.clock.now());
    const { writes, list } = people(
      view,
      input,
      input?.reviewers,
      'requested_reviewers',
      'request_review',
      now,
    );
    return writes.length === 0 ? skip(list) : commit(writes, list);
  });
  return done.result;
}

/** The label, assignee or reviewer a triage write added: each write appends exactly one. */
export function added(
  written: JsonObject | undefined,
  field: 'labels' | 'assignees' | 'requested_reviewers',
): JsonObject | undefined {
  const list = written?.[field];
  return Array.isArray(list) ? (list[list.length - 1] as JsonObject | undefined) : undefined;
}
