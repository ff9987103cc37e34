// Check runs and check suites, made by a GitHub App for a commit. A run is created (queued or in
// progress) and completed with a conclusion; when the last run of its suite completes, the suite
// completes too, in the same commit, with the worst conclusion of its runs.
import { commit, type JsonObject, type ReadView, type Twin, type Write } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser } from './accounts.js';
import { appActor, appKind, findApp } from './apps.js';
import { findBranch } from './branches.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository, type GitHubRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

export const SUITE_INDEX = 'check_suite_id';

export type CheckConclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'timed_out' | 'action_required' | 'skipped';
const CONCLUSIONS: readonly CheckConclusion[] = [
  'success',
  'failure',
  'neutral',
  'cancelled',
  'timed_out',
  'action_required',
  'skipped',
];

/** A conclusion GitHub accepts for a check run or a workflow run, or a typed refusal. */
export function checkConclusion(value: unknown): CheckConclusion {
  if (!CONCLUSIONS.includes(value as CheckConclusion))
    throw validationFailed(`conclusion must be one of ${CONCLUSIONS.join(', ')}`, 'conclusion');
  return value as CheckConclusion;
}
// Worst first: a suite concludes with the worst conclusion among its runs.
const SEVERITY: readonly string[] = [
  'action_required',
  'cancelled',
  'timed_out',
  'failure',
  'neutral',
  'success',
  'skipped',
];

export type GitHubCheckSuite = {
  id: number;
  node_id: string;
  head_branch: string | null;
  head_sha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  before: string | null;
  after: string | null;
  app_id: number;
  repository_id: number;
  created_at: string;
  updated_at: string;
  latest_check_runs_count: number;
};

/** The check_suite records of the twin, typed (src/state/record-kind.ts). */
export const checkSuiteKind = recordKind<GitHubCheckSuite>({ type: 'check_suite' });

export type GitHubCheckRun = {
  id: number;
  node_id: string;
  head_sha: string;
  external_id: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: CheckConclusion | null;
  started_at: string;
  completed_at: string | null;
  output: {
    title: string | null;
    summary: string | null;
    text: string | null;
    annotations_count: number;
  };
  check_suite_id: number;
  app_id: number;
  repository_id: number;
  head_branch: string | null;
  /** The integrator's page for the run, when it gave one; rendered as the run's page otherwise. */
  details_url?: string;
};

/** The check_run records of the twin, typed (src/state/record-kind.ts). */
export const checkRunKind = recordKind<GitHubCheckRun>({ type: 'check_run' });

/** A run's report as the app gives it: any of title, summary and text. */
export type CheckRunOutput = { title?: string; summary?: string; text?: string };

export function outputOf(given: CheckRunOutput | undefined): GitHubCheckRun['output'] {
  return {
    title: given?.title ?? null,
    summary: given?.summary ?? null,
    text: given?.text ?? null,
    annotations_count: 0,
  };
}

export interface CreateCheckRunInput {
  repository: string;
  /** The app's slug. */
  app: string;
  name: string;
  /** The branch whose tip is checked (default branch when neither this nor head_sha is given). */
  head_branch?: string;
  head_sha?: string;
  /** `completed` only with a conclusion, which completes the run as it is made. */
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: CheckConclusion;
  external_id?: string;
  /** What the run reports from the start (kept until completion gives another). */
  output?: CheckRunOutput;
  details_url?: string;
  /**
   * The user whose push or click caused the run: the payload's sender. Omitted, the app acted
   * itself (an installation token): the sender is its bot.
   */
  sender?: string;
}

function suiteKey(repo: GitHubRepository, appId: number, sha: string): string {
  return `${repo.id}:${appId}:${sha}`;
}

export async function createCheckRun(
  twin: Twin,
  input: CreateCheckRunInput,
): Promise<GitHubCheckRun> {
  requirePackTwin(twin, 'github');
  if (typeof input?.name !== 'string' || input.name.trim() === '')
    throw validationFailed('name is required', 'name');
  if (input.conclusion !== undefined) checkConclusion(input.conclusion);
  else if (input.status === 'completed')
    throw validationFailed('conclusion is required when status is completed', 'conclusion');
  if (
    input.status !== undefined &&
    input.status !== 'queued' &&
    input.status !== 'in_progress' &&
    input.status !== 'completed'
  )
    throw validationFailed('status must be "queued", "in_progress" or "completed"', 'status');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const app = findApp(view, input.app);
    const actor =
      input.sender === undefined ? appActor(app) : actorOf(findUser(view, input.sender));
    const branchName =
      input.head_branch ?? (input.head_sha === undefined ? repo.default_branch : null);
    const branch = branchName === null ? undefined : findBranch(view, repo, branchName);
    if (branchName !== null && branch === undefined)
      throw validationFailed(
        `head_branch "${branchName}" is not a branch of ${repo.full_name}`,
        'head_branch',
      );
    const sha = input.head_sha ?? branch!.sha;
    if (!/^[0-9a-f]{40}$/.test(sha))
      throw validationFailed('head_sha must be a 40-character commit sha', 'head_sha');
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const writes: Write[] = [];
    const key = suiteKey(repo, app.id, sha);
    const suiteId = view.get('check_suite_key', key)?.fields.check_suite_id as number | undefined;
    let suite: GitHubCheckSuite;
    if (suiteId === undefined) {
      suite = {
        id: githubIds.numeric(ids),
        node_id: githubIds.node(ids, 'CS'),
        head_branch: branchName,
        head_sha: sha,
        status: 'queued',
        conclusion: null,
        before: branch?.last_push?.before ?? null,
        after: sha,
        app_id: app.id,
        repository_id: repo.id,
        created_at: now,
        updated_at: now,
        latest_check_runs_count: 0,
      };
    } else {
      suite = checkSuiteKind.of(view.get(checkSuiteKind.type, String(suiteId))!);
    }
    const run: GitHubCheckRun = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'CR'),
      head_sha: sha,
      external_id: input.external_id ?? '',
      name: input.name,
      status: input.conclusion === undefined ? (input.status ?? 'queued') : 'completed',
      conclusion: input.conclusion ?? null,
      started_at: now,
      completed_at: input.conclusion === undefined ? null : now,
      output: outputOf(input.output),
      check_suite_id: suite.id,
      app_id: app.id,
      repository_id: repo.id,
      head_branch: suite.head_branch,
      ...(input.details_url === undefined ? {} : { details_url: input.details_url }),
    };
    const suiteFields = {
      ...suite,
      status:
        run.status === 'in_progress'
          ? 'in_progress'
          : suite.status === 'completed'
            ? 'queued'
            : suite.status,
      conclusion: null,
      updated_at: now,
      latest_check_runs_count: suite.latest_check_runs_count + 1,
    };
    const suiteResource = {
      type: 'check_suite',
      id: String(suite.id),
      fields: checkSuiteKind.json(suiteFields),
    };
    writes.push({
      operation: 'check_run.create',
      subjectType: 'check_run',
      subjectId: String(run.id),
      fields: checkRunKind.json(run),
      actor,
      projection:
        suiteId === undefined
          ? {
              creates: [
                suiteResource,
                { type: 'check_suite_key', id: key, fields: { check_suite_id: suite.id } },
              ],
            }
          : { updates: [suiteResource] },
    });
    // Made completed, the run is created and completed in one commit (both events, as on GitHub).
    if (input.conclusion !== undefined)
      writes.push(
        ...completionWrites(view, run, { conclusion: input.conclusion }, now, actor).writes,
      );
    return commit(writes, run);
  });
  return done.result;
}

function runsOf(view: ReadView, suiteId: number): GitHubCheckRun[] {
  return view.lookup('check_run', SUITE_INDEX, String(suiteId)).map((r) => checkRunKind.of(r));
}

/** What a run's completion may change besides its status, conclusion and output. */
type RunEdits = { name?: string; details_url?: string; external_id?: string };

export interface CompleteCheckRunInput extends RunEdits {
  repository: string;
  check_run_id: number;
  conclusion: CheckConclusion;
  /** Omitted, the run keeps the output it had (GitHub's update leaves what it is not given). */
  output?: CheckRunOutput;
  /** As for createCheckRun: omitted, the run's app acted itself. */
  sender?: string;
}

/**
 * The writes that complete `run` (kept, or being made in the same commit): the run's, then the
 * suite's — completed with the worst conclusion when every other run of it is, else in progress.
 */
function completionWrites(
  view: ReadView,
  run: GitHubCheckRun,
  input: RunEdits & { conclusion: CheckConclusion; output?: CheckRunOutput | undefined },
  now: string,
  actor: string,
): { writes: Write[]; fields: JsonObject } {
  // Built afresh either way, so the entry's fields keep one key order whatever the store gives.
  const kept = run.output;
  const output =
    input.output === undefined
      ? {
          title: kept.title,
          summary: kept.summary,
          text: kept.text,
          annotations_count: kept.annotations_count,
        }
      : outputOf(input.output);
  const fields: JsonObject = {
    status: 'completed',
    conclusion: input.conclusion,
    completed_at: now,
    output,
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.details_url === undefined ? {} : { details_url: input.details_url }),
    ...(input.external_id === undefined ? {} : { external_id: input.external_id }),
  };
  const writes: Write[] = [
    {
      operation: 'check_run.complete',
      subjectType: 'check_run',
      subjectId: String(run.id),
      fields,
      actor,
    },
  ];
  const others = runsOf(view, run.check_suite_id).filter((o) => o.id !== run.id);
  if (others.every((o) => o.status === 'completed')) {
    const conclusions = [input.conclusion, ...others.map((o) => o.conclusion ?? 'neutral')];
    const worst = SEVERITY.find((c) => conclusions.includes(c as CheckConclusion)) ?? 'success';
    writes.push({
      operation: 'check_suite.complete',
      subjectType: 'check_suite',
      subjectId: String(run.check_suite_id),
      fields: { status: 'completed', conclusion: worst, updated_at: now },
      actor,
    });
  } else {
    writes[0] = {
      ...writes[0]!,
      projection: {
        updates: [
          {
            type: 'check_suite',
            id: String(run.check_suite_id),
            fields: { status: 'in_progress', updated_at: now },
          },
        ],
      },
    };
  }
  return { writes, fields };
}

export async function completeCheckRun(
  twin: Twin,
  input: CompleteCheckRunInput,
): Promise<GitHubCheckRun> {
  requirePackTwin(twin, 'github');
  checkConclusion(input?.conclusion);
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const r = view.get('check_run', String(input.check_run_id));
    if (r === undefined || r.deleted || r.fields.repository_id !== repo.id)
      throw notFound(`check run ${input.check_run_id} in ${repo.full_name}`, 'check_run_id');
    const run = checkRunKind.of(r);
    const actor =
      input.sender === undefined
        ? appActor(appKind.read(view, run.app_id)!)
        : actorOf(findUser(view, input.sender));
    if (run.status === 'completed')
      throw validationFailed(`check run ${run.id} is already completed`, 'check_run_id');
    const now = githubTime(twin.world.clock.now());
    const { writes, fields } = completionWrites(view, run, input, now, actor);
    return commit(writes, { ...run, ...fields } as GitHubCheckRun);
  });
  return done.result;
}
