// GitHub Apps, installations, check runs and suites, workflows and workflow runs, rendered whole
// from the kept resources: every URL GitHub derives, the app that made a check, the open pull
// requests whose head is the checked commit.
import type { JsonObject } from '../../src/index.js';
import type { GitHubApp, GitHubInstallation } from './apps.js';
import type { GitCommit } from './branches.js';
import type { GitHubCheckRun, GitHubCheckSuite } from './checks.js';
import { renderAccount } from './render-account.js';
import { renderRepositoryLite } from './render-repository.js';
import type { GitHubRepository } from './repositories.js';
import type { GitHubWorkflow, GitHubWorkflowRun } from './workflows.js';

export function renderApp(app: GitHubApp): JsonObject {
  return {
    id: app.id,
    slug: app.slug,
    node_id: app.node_id,
    owner: renderAccount(app.owner),
    name: app.name,
    description: app.description,
    external_url: app.external_url,
    html_url: app.html_url,
    created_at: app.created_at,
    updated_at: app.updated_at,
    permissions: app.permissions,
    events: app.events,
  };
}

export function renderInstallation(inst: GitHubInstallation): JsonObject {
  return {
    id: inst.id,
    account: renderAccount(inst.account),
    repository_selection: inst.repository_selection,
    access_tokens_url: `https://api.github.com/app/installations/${inst.id}/access_tokens`,
    repositories_url: 'https://api.github.com/installation/repositories',
    html_url: `https://github.com/${inst.target_type === 'Organization' ? `organizations/${inst.account.login}/settings` : 'settings'}/installations/${inst.id}`,
    app_id: inst.app_id,
    app_slug: inst.app_slug,
    target_id: inst.account.id,
    target_type: inst.target_type,
    permissions: inst.permissions,
    events: inst.events,
    created_at: inst.created_at,
    updated_at: inst.updated_at,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

/** `{id, node_id, name, full_name, private}`: how installation events list repositories. */
export function installationRepository(repo: GitHubRepository): JsonObject {
  return {
    id: repo.id,
    node_id: repo.node_id,
    name: repo.name,
    full_name: repo.full_name,
    private: repo.private,
  };
}

export function renderSimpleCommit(
  c: Pick<GitCommit, 'id' | 'tree_id' | 'message' | 'timestamp' | 'author' | 'committer'>,
): JsonObject {
  return {
    id: c.id,
    tree_id: c.tree_id,
    message: c.message,
    timestamp: c.timestamp,
    author: { name: c.author.name, email: c.author.email },
    committer: { name: c.committer.name, email: c.committer.email },
  };
}

export function renderCheckSuite(
  suite: GitHubCheckSuite,
  repo: GitHubRepository,
  app: GitHubApp,
  pullRequests: JsonObject[],
  headCommit: JsonObject | null,
): JsonObject {
  const out: JsonObject = {
    id: suite.id,
    node_id: suite.node_id,
    head_branch: suite.head_branch,
    head_sha: suite.head_sha,
    status: suite.status,
    conclusion: suite.conclusion,
    url: `${repo.url}/check-suites/${suite.id}`,
    before: suite.before,
    after: suite.after,
    pull_requests: pullRequests,
    app: renderApp(app),
    created_at: suite.created_at,
    updated_at: suite.updated_at,
    rerequestable: true,
    runs_rerequestable: true,
    latest_check_runs_count: suite.latest_check_runs_count,
    check_runs_url: `${repo.url}/check-suites/${suite.id}/check-runs`,
  };
  if (headCommit !== null) out.head_commit = headCommit;
  return out;
}

export function renderCheckRun(
  run: GitHubCheckRun,
  suite: GitHubCheckSuite,
  repo: GitHubRepository,
  app: GitHubApp,
  pullRequests: JsonObject[],
): JsonObject {
  const url = `${repo.url}/check-runs/${run.id}`;
  const {
    head_commit: _omitted,
    rerequestable: _r,
    runs_rerequestable: _rr,
    latest_check_runs_count: _l,
    check_runs_url: _c,
    node_id: _n,
    ...suiteInRun
  } = renderCheckSuite(suite, repo, app, pullRequests, null);
  return {
    id: run.id,
    name: run.name,
    node_id: run.node_id,
    head_sha: run.head_sha,
    external_id: run.external_id,
    url,
    html_url: `${repo.html_url}/runs/${run.id}`,
    details_url: run.details_url ?? `${repo.html_url}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.started_at,
    completed_at: run.completed_at,
    output: { ...run.output, annotations_url: `${url}/annotations` },
    check_suite: suiteInRun,
    app: renderApp(app),
    pull_requests: pullRequests,
  };
}

export function renderWorkflow(workflow: GitHubWorkflow, repo: GitHubRepository): JsonObject {
  return {
    badge_url: `${repo.html_url}/workflows/${encodeURIComponent(workflow.name)}/badge.svg`,
    created_at: workflow.created_at,
    html_url: `${repo.html_url}/blob/${repo.default_branch}/${workflow.path}`,
    id: workflow.id,
    name: workflow.name,
    node_id: workflow.node_id,
    path: workflow.path,
    state: workflow.state,
    updated_at: workflow.updated_at,
    url: `${repo.url}/actions/workflows/${workflow.id}`,
  };
}

export function renderWorkflowRun(
  run: GitHubWorkflowRun,
  repo: GitHubRepository,
  pullRequests: JsonObject[],
): JsonObject {
  const url = `${repo.url}/actions/runs/${run.id}`;
  return {
    id: run.id,
    name: run.name,
    node_id: run.node_id,
    head_branch: run.head_branch,
    head_sha: run.head_sha,
    path: run.path,
    display_title: run.display_title,
    run_number: run.run_number,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflow_id,
    check_suite_id: run.check_suite_id,
    check_suite_node_id: run.check_suite_node_id,
    url,
    html_url: `${repo.html_url}/actions/runs/${run.id}`,
    pull_requests: pullRequests,
    created_at: run.created_at,
    updated_at: run.updated_at,
    actor: renderAccount(run.actor),
    run_attempt: run.run_attempt,
    referenced_workflows: [],
    run_started_at: run.run_started_at,
    triggering_actor: renderAccount(run.triggering_actor),
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${repo.url}/check-suites/${run.check_suite_id}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${repo.url}/actions/workflows/${run.workflow_id}`,
    head_commit: renderSimpleCommit(run.head_commit),
    repository: renderRepositoryLite(repo),
    head_repository: renderRepositoryLite(repo),
  };
}
