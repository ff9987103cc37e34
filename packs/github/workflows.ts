// GitHub Actions workflow runs: requested (the triggering push or click), in progress, completed
// with a conclusion. The workflow itself (a file under .github/workflows) comes into being with
// its first run and numbers its runs.
import { commit, type JsonObject, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser, summary, type AccountSummary } from './accounts.js';
import { findBranch, gitActor, type GitCommit } from './branches.js';
import { checkConclusion, type CheckConclusion } from './checks.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

export type GitHubWorkflow = {
  id: number;
  node_id: string;
  name: string;
  path: string;
  state: 'active';
  created_at: string;
  updated_at: string;
  repository_id: number;
  runs: number;
};

/** The workflow records of the twin, typed (src/state/record-kind.ts). */
export const workflowKind = recordKind<GitHubWorkflow>({ type: 'workflow' });

export type GitHubWorkflowRun = {
  id: number;
  node_id: string;
  name: string;
  display_title: string;
  path: string;
  head_branch: string;
  head_sha: string;
  head_commit: Omit<GitCommit, 'added' | 'removed' | 'modified'>;
  run_number: number;
  run_attempt: number;
  event: string;
  status: 'requested' | 'queued' | 'in_progress' | 'completed';
  conclusion: CheckConclusion | null;
  workflow_id: number;
  check_suite_id: number;
  check_suite_node_id: string;
  actor: AccountSummary;
  triggering_actor: AccountSummary;
  created_at: string;
  updated_at: string;
  run_started_at: string;
  repository_id: number;
};

/** The workflow_run records of the twin, typed (src/state/record-kind.ts). */
export const workflowRunKind = recordKind<GitHubWorkflowRun>({ type: 'workflow_run' });

export interface RequestWorkflowRunInput {
  repository: string;
  /** The workflow's name, e.g. "CI". */
  workflow: string;
  /** Its file; `.github/workflows/<name>.yml` when omitted. */
  path?: string;
  /** The branch the run checks out (default branch when omitted). */
  branch?: string;
  /** What triggered it: push, pull_request, workflow_dispatch, … */
  event?: string;
  sender: string;
}

export async function requestWorkflowRun(
  twin: Twin,
  input: RequestWorkflowRunInput,
): Promise<GitHubWorkflowRun> {
  requirePackTwin(twin, 'github');
  if (typeof input?.workflow !== 'string' || input.workflow.trim() === '')
    throw validationFailed('workflow must name the workflow, e.g. "CI"', 'workflow');
  const path =
    input.path ??
    `.github/workflows/${input.workflow.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.yml`;
  if (!/^\.github\/workflows\/[^/]+\.ya?ml$/.test(path))
    throw validationFailed(
      'path must be a file under .github/workflows ending in .yml or .yaml',
      'path',
    );
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const branchName = input.branch ?? repo.default_branch;
    const branch = findBranch(view, repo, branchName);
    if (branch === undefined)
      throw validationFailed(
        `branch "${branchName}" is not a branch of ${repo.full_name}`,
        'branch',
      );
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const workflowKey = `${repo.id}:${path}`;
    const existing = workflowKind.fieldsAt(view, workflowKey);
    const workflow: GitHubWorkflow = existing ?? {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'W'),
      name: input.workflow,
      path,
      state: 'active',
      created_at: now,
      updated_at: now,
      repository_id: repo.id,
      runs: 0,
    };
    const last = branch.last_push?.commits[branch.last_push.commits.length - 1];
    const headCommit = last ?? {
      id: branch.sha,
      tree_id: branch.sha,
      message: 'Initial commit',
      timestamp: repo.created_at.replace(/Z$/, '+00:00'),
      author: gitActor(sender),
      committer: gitActor(sender),
    };
    const run: GitHubWorkflowRun = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'WFR'),
      name: workflow.name,
      display_title: headCommit.message.split('\n')[0]!,
      path,
      head_branch: branchName,
      head_sha: branch.sha,
      head_commit: {
        id: headCommit.id,
        tree_id: headCommit.tree_id,
        message: headCommit.message,
        timestamp: headCommit.timestamp,
        author: headCommit.author,
        committer: headCommit.committer,
      },
      run_number: workflow.runs + 1,
      run_attempt: 1,
      event: input.event ?? 'push',
      status: 'requested',
      conclusion: null,
      workflow_id: workflow.id,
      check_suite_id: githubIds.numeric(ids),
      check_suite_node_id: githubIds.node(ids, 'CS'),
      actor: summary(sender),
      triggering_actor: summary(sender),
      created_at: now,
      updated_at: now,
      run_started_at: now,
      repository_id: repo.id,
    };
    return commit(
      {
        operation: 'workflow_run.request',
        subjectType: 'workflow_run',
        subjectId: String(run.id),
        fields: workflowRunKind.json(run),
        actor: actorOf(sender),
        projection: {
          [existing === undefined ? 'creates' : 'updates']: [
            {
              type: 'workflow',
              id: workflowKey,
              fields: workflowKind.json({
                ...workflow,
                runs: run.run_number,
                updated_at: now,
              }),
            },
          ],
        },
      },
      run,
    );
  });
  return done.result;
}

async function moveRun(
  twin: Twin,
  input: { repository: string; run_id: number; sender: string },
  operation: string,
  change: (run: GitHubWorkflowRun, now: string) => JsonObject,
): Promise<GitHubWorkflowRun> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const r = view.get('workflow_run', String(input.run_id));
    if (r === undefined || r.deleted || r.fields.repository_id !== repo.id)
      throw notFound(`workflow run ${input.run_id} in ${repo.full_name}`, 'run_id');
    const run = workflowRunKind.of(r);
    const fields = change(run, githubTime(twin.world.clock.now()));
    return commit(
      { operation, subjectType: 'workflow_run', subjectId: r.id, fields, actor: actorOf(sender) },
      { ...run, ...fields } as GitHubWorkflowRun,
    );
  });
  return done.result;
}

export function startWorkflowRun(
  twin: Twin,
  input: { repository: string; run_id: number; sender: string },
): Promise<GitHubWorkflowRun> {
  return moveRun(twin, input, 'workflow_run.start', (run, now) => {
    if (run.status !== 'requested' && run.status !== 'queued')
      throw validationFailed(
        `workflow run ${run.id} is ${run.status}; only a requested run can start`,
        'run_id',
      );
    return { status: 'in_progress', updated_at: now, run_started_at: now };
  });
}

export async function completeWorkflowRun(
  twin: Twin,
  input: { repository: string; run_id: number; conclusion: CheckConclusion; sender: string },
): Promise<GitHubWorkflowRun> {
  checkConclusion(input?.conclusion);
  return moveRun(twin, input, 'workflow_run.complete', (run, now) => {
    if (run.status === 'completed')
      throw validationFailed(`workflow run ${run.id} is already completed`, 'run_id');
    return { status: 'completed', conclusion: input.conclusion, updated_at: now };
  });
}
