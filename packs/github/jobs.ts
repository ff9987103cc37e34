// GitHub Actions jobs: a job of a workflow run is queued (waiting for a runner matching its
// labels), then completes with a conclusion — `workflow_job.queued` and `.completed`. The runner
// that took it is named when it completes; its one step stands for the job's steps.
import { commit, recordKind, type JsonObject, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { actorOf, findUser } from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository } from './repositories.js';
import { workflowRunKind } from './workflows.js';

export type JobConclusion = 'success' | 'failure' | 'cancelled' | 'skipped';

export type GitHubWorkflowJob = {
  id: number;
  node_id: string;
  run_id: number;
  run_attempt: number;
  head_sha: string;
  head_branch: string;
  workflow_name: string;
  name: string;
  labels: string[];
  status: 'queued' | 'completed';
  conclusion: JobConclusion | null;
  created_at: string;
  started_at: string;
  completed_at: string | null;
  runner_id: number | null;
  runner_name: string | null;
  runner_group_id: number | null;
  runner_group_name: string | null;
  repository_id: number;
};

/** The workflow_job records of the twin, typed (src/state/record-kind.ts). */
export const workflowJobKind = recordKind<GitHubWorkflowJob>({ type: 'workflow_job' });

const CONCLUSIONS = new Set(['success', 'failure', 'cancelled', 'skipped']);

export async function queueWorkflowJob(
  twin: Twin,
  input: { repository: string; run_id: number; name: string; labels?: string[]; sender: string },
): Promise<GitHubWorkflowJob> {
  requirePackTwin(twin, 'github');
  if (typeof input?.name !== 'string' || input.name.trim() === '')
    throw validationFailed('name must name the job, e.g. "build"', 'name');
  const labels = input.labels ?? ['ubuntu-latest'];
  if (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string' || l === ''))
    throw validationFailed('labels must be an array of runner labels', 'labels');
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const r = view.get('workflow_run', String(input.run_id));
    if (r === undefined || r.deleted || r.fields.repository_id !== repo.id)
      throw notFound(`workflow run ${input.run_id} in ${repo.full_name}`, 'run_id');
    const run = workflowRunKind.of(r);
    if (run.status === 'completed')
      throw validationFailed(`workflow run ${run.id} is already completed`, 'run_id');
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const job: GitHubWorkflowJob = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'CR'),
      run_id: run.id,
      run_attempt: run.run_attempt,
      head_sha: run.head_sha,
      head_branch: run.head_branch,
      workflow_name: run.name,
      name: input.name,
      labels,
      status: 'queued',
      conclusion: null,
      created_at: now,
      started_at: now,
      completed_at: null,
      runner_id: null,
      runner_name: null,
      runner_group_id: null,
      runner_group_name: null,
      repository_id: repo.id,
    };
    return commit(
      {
        operation: 'workflow_job.queue',
        subjectType: 'workflow_job',
        subjectId: String(job.id),
        fields: workflowJobKind.json(job),
        actor: actorOf(sender),
      },
      job,
    );
  });
  return done.result;
}

export async function completeWorkflowJob(
  twin: Twin,
  input: { repository: string; job_id: number; conclusion: JobConclusion; sender: string },
): Promise<GitHubWorkflowJob> {
  requirePackTwin(twin, 'github');
  if (!CONCLUSIONS.has(input?.conclusion))
    throw validationFailed(
      'conclusion must be success, failure, cancelled or skipped',
      'conclusion',
    );
  const done = await twin.applyAtomic((view) => {
    const repo = findRepository(view, input.repository);
    const sender = findUser(view, input.sender);
    const r = view.get('workflow_job', String(input.job_id));
    if (r === undefined || r.deleted || r.fields.repository_id !== repo.id)
      throw notFound(`workflow job ${input.job_id} in ${repo.full_name}`, 'job_id');
    const job = workflowJobKind.of(r);
    if (job.status === 'completed')
      throw validationFailed(`workflow job ${job.id} is already completed`, 'job_id');
    const now = githubTime(twin.world.clock.now());
    const fields: JsonObject = {
      status: 'completed',
      conclusion: input.conclusion,
      completed_at: now,
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 1,
      runner_group_name: 'GitHub Actions',
    };
    return commit(
      {
        operation: 'workflow_job.complete',
        subjectType: 'workflow_job',
        subjectId: r.id,
        fields,
        actor: actorOf(sender),
      },
      { ...job, ...fields } as GitHubWorkflowJob,
    );
  });
  return done.result;
}

export function renderWorkflowJob(
  job: GitHubWorkflowJob,
  repoUrl: string,
  repoHtml: string,
): JsonObject {
  const url = `${repoUrl}/actions/jobs/${job.id}`;
  return {
    id: job.id,
    run_id: job.run_id,
    run_url: `${repoUrl}/actions/runs/${job.run_id}`,
    run_attempt: job.run_attempt,
    node_id: job.node_id,
    head_sha: job.head_sha,
    url,
    html_url: `${repoHtml}/actions/runs/${job.run_id}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: job.created_at,
    started_at: job.started_at,
    completed_at: job.completed_at,
    name: job.name,
    steps:
      job.status === 'completed'
        ? [
            {
              name: 'Set up job',
              status: 'completed',
              conclusion: job.conclusion,
              number: 1,
              started_at: job.started_at,
              completed_at: job.completed_at,
            },
          ]
        : [],
    check_run_url: `${repoUrl}/check-runs/${job.id}`,
    labels: job.labels,
    runner_id: job.runner_id,
    runner_name: job.runner_name,
    runner_group_id: job.runner_group_id,
    runner_group_name: job.runner_group_name,
    workflow_name: job.workflow_name,
    head_branch: job.head_branch,
  };
}
