// A pull request's life, as a walk calls it: a topic branch is pushed and a pull request opened;
// CI (a GitHub App's check run and an Actions workflow run) runs on its head; a reviewer
// comments; the author pushes a fix (synchronize) and CI runs again; the pull request is merged
// (closed with merged, and a push to the base branch); a release is published and starred.
import type { Twin } from '../../src/index.js';
import { findApp } from './apps.js';
import { push } from './branches.js';
import { completeCheckRun, createCheckRun } from './checks.js';
import { commentOnIssue } from './comments.js';
import { closePullRequest, openPullRequest, type GitHubPullRequest } from './pull-requests.js';
import { publishRelease, type GitHubRelease } from './releases.js';
import { starRepository } from './stars.js';
import { completeWorkflowRun, requestWorkflowRun, startWorkflowRun } from './workflows.js';

export interface PullRequestLife {
  /** "owner/name" of an existing repository. */
  readonly repository: string;
  /** Login of the author (pushes, opens, merges). */
  readonly author: string;
  /** Login of the reviewer (comments, stars). */
  readonly reviewer: string;
  /** Slug of an existing GitHub App that runs checks. */
  readonly ciApp: string;
  readonly branch?: string;
  readonly title?: string;
  /** The release's tag after the merge. */
  readonly tag?: string;
  /** Called between steps (e.g. a walk's clock advance), so each step has its own time. */
  readonly between?: () => Promise<void> | void;
}

async function ci(
  twin: Twin,
  life: PullRequestLife,
  branch: string,
  conclusion: 'success' | 'failure',
): Promise<void> {
  const run = await createCheckRun(twin, {
    repository: life.repository,
    app: life.ciApp,
    name: 'build',
    head_branch: branch,
    status: 'in_progress',
    sender: life.author,
  });
  const workflow = await requestWorkflowRun(twin, {
    repository: life.repository,
    workflow: 'CI',
    branch,
    event: 'pull_request',
    sender: life.author,
  });
  await startWorkflowRun(twin, {
    repository: life.repository,
    run_id: workflow.id,
    sender: life.author,
  });
  await life.between?.();
  await completeCheckRun(twin, {
    repository: life.repository,
    check_run_id: run.id,
    conclusion,
    sender: life.author,
  });
  await completeWorkflowRun(twin, {
    repository: life.repository,
    run_id: workflow.id,
    conclusion,
    sender: life.author,
  });
}

export async function pullRequestLife(
  twin: Twin,
  life: PullRequestLife,
): Promise<{ pull: GitHubPullRequest; release: GitHubRelease }> {
  await twin.read((view) => findApp(view, life.ciApp, 'ciApp'));
  const branch = life.branch ?? 'fix-parser';
  const repo = life.repository;
  await push(twin, {
    repository: repo,
    branch,
    sender: life.author,
    messages: ['Fix the parser on negative numbers'],
  });
  const opened = await openPullRequest(twin, {
    repository: repo,
    title: life.title ?? 'Fix the parser',
    head: branch,
    body: 'Negative numbers no longer crash the engine.',
    sender: life.author,
  });
  await ci(twin, life, branch, 'failure');
  await life.between?.();
  await commentOnIssue(twin, {
    repository: repo,
    number: opened.number,
    body: 'CI fails on the new test; can you take a look?',
    sender: life.reviewer,
  });
  await push(twin, {
    repository: repo,
    branch,
    sender: life.author,
    messages: ['Handle -0 as well'],
  });
  await ci(twin, life, branch, 'success');
  await life.between?.();
  const merged = await closePullRequest(twin, {
    repository: repo,
    number: opened.number,
    merge: true,
    sender: life.author,
  });
  const release = await publishRelease(twin, {
    repository: repo,
    tag_name: life.tag ?? 'v1.0.1',
    body: `Includes #${opened.number}.`,
    sender: life.author,
  });
  await starRepository(twin, { repository: repo, sender: life.reviewer });
  return { pull: merged, release };
}
