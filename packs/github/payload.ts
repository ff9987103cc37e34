// Renders GitHub webhook payloads, whole and in GitHub's key order: each event family's objects
// (render-*.ts), then `repository`, `organization` (for organization-owned repositories) and
// `sender` (the user behind the write). Everything is derived from the twin's state as it is
// after the write, so a payload always agrees with what the API would answer.
import type {
  JsonObject,
  JsonValue,
  ReadView,
  RecordKind,
  RenderContext,
} from '../../src/index.js';
import { ordered } from '../kit/ordered.js';
import type { GitHubUser } from './accounts.js';
import type { GitHubApp, GitHubInstallation } from './apps.js';
import type { GitHubBranch, GitPush } from './branches.js';
import { HEAD_INDEX } from './branches.js';
import type { GitHubCheckRun, GitHubCheckSuite } from './checks.js';
import type { GitHubIssueComment } from './comments.js';
import type { GitHubHook } from './hooks.js';
import type { GitHubIssue } from './issues.js';
import type { GitHubPullRequest } from './pull-requests.js';
import type { GitHubRelease } from './releases.js';
import { reactions, renderAccount } from './render-account.js';
import {
  installationRepository,
  renderCheckRun,
  renderCheckSuite,
  renderInstallation,
  renderSimpleCommit,
  renderWorkflow,
  renderWorkflowRun,
} from './render-checks.js';
import { renderComment, renderIssue, renderPullRequestIssue } from './render-issue.js';
import { pullRequestRef, renderPullRequest } from './render-pull-request.js';
import { activityBody, pullRequestChanges } from './payload-activity.js';
import { renderRepository } from './render-repository.js';
import type { GitHubRepository } from './repositories.js';
import type { GitHubStar } from './stars.js';
import { added } from './triage.js';
import type { GitHubWorkflow, GitHubWorkflowRun } from './workflows.js';
import { organizationKind, userKind } from './accounts.js';
import { checkRunKind, checkSuiteKind } from './checks.js';
import { appKind, installationKind } from './apps.js';
import { branchKind } from './branches.js';
import { workflowKind, workflowRunKind } from './workflows.js';
import { repositoryKind } from './repositories.js';
import { pullRequestKind } from './pull-requests.js';
import { issueKind } from './issues.js';
import { issueCommentKind } from './comments.js';
import { releaseKind } from './releases.js';
import { starKind } from './stars.js';
import { repositoryHookKind } from './hooks.js';
import { rebase, recordedBase } from './origin.js';

const ORGANIZATION_KEYS = [
  'login',
  'id',
  'node_id',
  'url',
  'repos_url',
  'events_url',
  'hooks_url',
  'issues_url',
  'members_url',
  'public_members_url',
  'avatar_url',
  'description',
];

// GitHub's zen lines: a ping carries one.
const ZEN = [
  'Design for failure.',
  'Keep it logically awesome.',
  'Speak like a human.',
  'Half measures are as bad as nothing at all.',
  'Encourage flow.',
  'Non-blocking is better than blocking.',
  'Favor focus over features.',
  'Mind your words, they are important.',
  'Anything added dilutes everything else.',
  'Practicality beats purity.',
  'Approachable is better than simple.',
  'Avoid administrative distraction.',
  "It's not fully shipped until it's fast.",
  'Responsive is better than fast.',
];

type Fields = JsonObject;

/** The subject as the event describes it: after the write, or as it was before a delete. */
function subjectFields(ctx: RenderContext): Fields {
  if (ctx.subject !== undefined && !ctx.subject.deleted) return ctx.subject.fields as Fields;
  return (ctx.previous ?? {}) as Fields;
}

function repositoryIdOf(ctx: RenderContext, fields: Fields): string | undefined {
  switch (ctx.entry.subjectType) {
    case 'issue':
    case 'pull_request':
      return ctx.entry.subjectId.split('#')[0];
    case 'issue_comment':
      return String(fields.issue_key).split('#')[0];
    case 'pull_request_review':
    case 'pull_request_review_comment':
      return String(fields.pull_key).split('#')[0];
    default:
      return fields.repository_id === undefined ? undefined : String(fields.repository_id);
  }
}

function senderOf(ctx: RenderContext): JsonObject | undefined {
  const bot = /^app:(\d+)$/.exec(ctx.entry.actor);
  const app = bot === null ? undefined : appKind.read(ctx.view, bot[1]!);
  if (app !== undefined)
    return renderAccount({
      login: `${app.slug}[bot]`,
      id: app.id,
      node_id: app.node_id,
      type: 'Bot',
    });
  const match = /^user:(\d+)$/.exec(ctx.entry.actor);
  const user = match === null ? undefined : userKind.read(ctx.view, match[1]!);
  return user === undefined ? undefined : renderAccount(user);
}

function organizationOf(view: ReadView, id: number | undefined): JsonObject | undefined {
  const org = id === undefined ? undefined : organizationKind.read(view, id);
  // GitHub's payload organization has no created_at.
  return org === undefined ? undefined : ordered(org, ORGANIZATION_KEYS, ['created_at']);
}

/** Open pull requests whose head is `sha` on `branch`: what checks and workflow runs list. */
export function pullRequestsAt(
  view: ReadView,
  repo: GitHubRepository,
  branch: string | null,
  sha: string,
): JsonObject[] {
  if (branch === null) return [];
  return view
    .lookup('pull_request', HEAD_INDEX, `${repo.id}:${branch}`)
    .map((r) => pullRequestKind.of(r))
    .filter((p) => p.state === 'open' && p.head.sha === sha)
    .map((p) => pullRequestRef(p, repo));
}

function renderPush(push: GitPush, repo: GitHubRepository): JsonObject {
  const commits = push.commits.map((c) => ({
    id: c.id,
    tree_id: c.tree_id,
    distinct: true,
    message: c.message,
    timestamp: c.timestamp,
    url: `${repo.html_url}/commit/${c.id}`,
    author: c.author,
    committer: c.committer,
    added: c.added,
    removed: c.removed,
    modified: c.modified,
  }));
  const name = push.ref.replace(/^refs\/heads\//, '');
  return {
    ref: push.ref,
    before: push.before,
    after: push.after,
    pusher: push.pusher,
    created: push.created,
    deleted: false,
    forced: push.forced,
    base_ref: null,
    compare: push.created
      ? `${repo.html_url}/compare/${name}`
      : `${repo.html_url}/compare/${push.before.slice(0, 12)}...${push.after.slice(0, 12)}`,
    commits,
    head_commit: commits[commits.length - 1] ?? null,
  };
}

function renderRelease(release: GitHubRelease, repo: GitHubRepository): JsonObject {
  const url = `${repo.url}/releases/${release.id}`;
  return {
    url,
    assets_url: `${url}/assets`,
    upload_url: `https://uploads.github.com/repos/${repo.full_name}/releases/${release.id}/assets{?name,label}`,
    html_url: `${repo.html_url}/releases/tag/${release.tag_name}`,
    id: release.id,
    author: renderAccount(release.author),
    node_id: release.node_id,
    tag_name: release.tag_name,
    target_commitish: release.target_commitish,
    name: release.name,
    draft: release.draft,
    prerelease: release.prerelease,
    created_at: release.created_at,
    // The twin never edits a release after publishing it: last changed when it was made.
    updated_at: release.created_at,
    published_at: release.published_at,
    // GitHub's webhook schema (webhooks_release in its OpenAPI description) requires it; a release
    // is immutable only where the repository turned immutable releases on, which the twin does not.
    immutable: false,
    assets: [],
    tarball_url: `${repo.url}/tarball/${release.tag_name}`,
    zipball_url: `${repo.url}/zipball/${release.tag_name}`,
    body: release.body,
    reactions: reactions(url),
  };
}

export function renderHook(hook: GitHubHook): JsonObject {
  const out: JsonObject = {
    type: hook.type,
    id: hook.id,
    name: hook.name,
    active: hook.active,
    events: hook.events,
    config: {
      content_type: hook.config.content_type,
      insecure_ssl: hook.config.insecure_ssl,
      url: hook.config.url,
    },
    updated_at: hook.updated_at,
    created_at: hook.created_at,
    url: hook.url,
  };
  if (hook.type === 'Repository') out.test_url = `${hook.url}/test`;
  out.ping_url = hook.ping_url;
  out.deliveries_url = hook.deliveries_url;
  out.last_response = hook.last_response;
  return out;
}

/** Old values of the edited fields, as GitHub's `changes: {title: {from}}`. */
function changes(ctx: RenderContext): JsonObject | undefined {
  const out: JsonObject = {};
  for (const key of ['title', 'body']) {
    if (ctx.entry.fields !== undefined && key in ctx.entry.fields)
      out[key] = { from: (ctx.previous?.[key] ?? null) as JsonValue };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

const NO_REACTIONS: Pick<ReadView, 'lookup'> = { lookup: () => [] };

/** The family-specific part of the payload (before repository/organization/sender), in GitHub's order. */
function body(
  ctx: RenderContext,
  family: string,
  action: string | undefined,
  fields: Fields,
  repo: GitHubRepository | undefined,
): JsonObject | undefined {
  const view = ctx.view;
  switch (family) {
    case 'issues': {
      const out: JsonObject = {
        action: action!,
        // An issue just opened has no reactions: its rollup needs no lookup under the twin's lock.
        issue: renderIssue(
          issueKind.from(fields),
          repo!.id,
          action === 'opened' ? NO_REACTIONS : view,
        ),
      };
      if (action === 'edited') out.changes = changes(ctx) ?? {};
      if (action === 'labeled') out.label = added(ctx.entry.fields, 'labels')!;
      if (action === 'assigned')
        out.assignee = renderAccount(added(ctx.entry.fields, 'assignees') as never);
      return out;
    }
    case 'pull_request': {
      const pull = pullRequestKind.from(fields);
      const out: JsonObject = { action: action!, number: pull.number };
      if (action === 'synchronize') {
        out.before = ((ctx.previous?.head as JsonObject | undefined)?.sha ?? null) as JsonValue;
        out.after = pull.head.sha;
      }
      if (action === 'edited') out.changes = pullRequestChanges(ctx);
      out.pull_request = renderPullRequest(pull, repo!);
      if (action === 'labeled') out.label = added(ctx.entry.fields, 'labels')!;
      if (action === 'assigned')
        out.assignee = renderAccount(added(ctx.entry.fields, 'assignees') as never);
      if (action === 'review_requested')
        out.requested_reviewer = renderAccount(
          added(ctx.entry.fields, 'requested_reviewers') as never,
        );
      return out;
    }
    case 'issue_comment': {
      const comment = issueCommentKind.from(fields);
      // A comment is on an issue or on a pull request: the same key names one or the other.
      const onIssue = comment.on === 'issue';
      const target = onIssue
        ? issueKind.read(view, comment.issue_key)!
        : pullRequestKind.read(view, comment.issue_key)!;
      const issue = onIssue
        ? renderIssue(issueKind.read(view, comment.issue_key)!, repo!.id, view)
        : renderPullRequestIssue(pullRequestKind.read(view, comment.issue_key)!, repo!, view);
      return {
        action: action!,
        issue,
        comment: renderComment(comment, repo!, target.number, target.html_url, view),
      };
    }
    case 'check_run': {
      const run = checkRunKind.from(fields);
      const suite = checkSuiteKind.read(view, run.check_suite_id)!;
      const app = appKind.read(view, run.app_id)!;
      return {
        action: action!,
        check_run: renderCheckRun(
          run,
          suite,
          repo!,
          app,
          pullRequestsAt(view, repo!, run.head_branch, run.head_sha),
        ),
      };
    }
    case 'check_suite': {
      const suite = checkSuiteKind.from(fields);
      const app = appKind.read(view, suite.app_id)!;
      const branch =
        suite.head_branch === null
          ? undefined
          : branchKind.read(view, `${repo!.id}:${suite.head_branch}`);
      const head = branch?.last_push?.commits.find((c) => c.id === suite.head_sha);
      const headCommit = renderSimpleCommit(
        head ?? {
          id: suite.head_sha,
          tree_id: suite.head_sha,
          message: '',
          timestamp: suite.created_at.replace(/Z$/, '+00:00'),
          author: { name: repo!.owner.login, email: '' },
          committer: { name: repo!.owner.login, email: '' },
        },
      );
      return {
        action: action!,
        check_suite: renderCheckSuite(
          suite,
          repo!,
          app,
          pullRequestsAt(view, repo!, suite.head_branch, suite.head_sha),
          headCommit,
        ),
      };
    }
    case 'workflow_run': {
      const run = workflowRunKind.from(fields);
      const workflow = workflowKind.read(view, `${repo!.id}:${run.path}`)!;
      return {
        action: action!,
        workflow: renderWorkflow(workflow, repo!),
        workflow_run: renderWorkflowRun(
          run,
          repo!,
          pullRequestsAt(view, repo!, run.head_branch, run.head_sha),
        ),
      };
    }
    case 'installation': {
      const inst = installationKind.from(fields);
      const repos =
        inst.repository_selection === 'selected'
          ? inst.repository_ids
              .map((id) => repositoryKind.read(view, id))
              .filter((r): r is GitHubRepository => r !== undefined)
          : view
              .list('repository')
              .map((r) => repositoryKind.of(r))
              .filter((r) => r.owner.id === inst.account.id)
              .sort((a, b) => a.id - b.id);
      return {
        action: action!,
        installation: renderInstallation(inst),
        repositories: repos.map(installationRepository),
      };
    }
    case 'release':
      return { action: action!, release: renderRelease(releaseKind.from(fields), repo!) };
    case 'star': {
      const star = starKind.from(fields);
      return { action: action!, starred_at: action === 'deleted' ? null : star.starred_at };
    }
    case 'push':
      return renderPush(branchKind.from(fields).last_push!, repo!);
    case 'ping': {
      const hook = repositoryHookKind.from(fields); // the same fields on an organization's hook
      return { zen: ZEN[hook.id % ZEN.length]!, hook_id: hook.id, hook: renderHook(hook) };
    }
    default:
      return activityBody(ctx, family, action, fields, repo);
  }
}

/** The payload, its URLs on the twin's own base once a host has recorded one (origin.ts). */
export function payloadValues(ctx: RenderContext): Record<string, JsonValue | undefined> {
  const { payload } = githubPayload(ctx);
  return { payload: payload === undefined ? undefined : rebase(payload, recordedBase(ctx.view)) };
}

function githubPayload(ctx: RenderContext): { payload: JsonObject | undefined } {
  const [family, action] = ctx.eventType.split('.') as [string, string | undefined];
  const fields = subjectFields(ctx);
  const repoId = repositoryIdOf(ctx, fields);
  const repo = repoId === undefined ? undefined : repositoryKind.read(ctx.view, repoId);
  const payload = body(ctx, family, action, fields, repo);
  if (payload === undefined) return { payload: undefined };
  const owner = repo?.owner;
  const orgId =
    owner?.type === 'Organization'
      ? owner.id
      : ctx.entry.subjectType === 'organization_hook'
        ? (fields.organization_id as number)
        : undefined;
  const organization = organizationOf(ctx.view, orgId);
  const sender = senderOf(ctx);
  if (family === 'push') {
    // GitHub's push order: ref, before, after, repository, pusher, organization, sender, created, …
    const { ref, before, after, pusher, ...rest } = payload;
    return {
      payload: {
        ref: ref!,
        before: before!,
        after: after!,
        repository: renderRepository(repo!, 'push'),
        pusher: pusher!,
        ...(organization ? { organization } : {}),
        ...(sender ? { sender } : {}),
        ...rest,
      },
    };
  }
  if (family !== 'installation' && family !== 'installation_repositories' && repo !== undefined)
    payload.repository = renderRepository(repo);
  if (organization !== undefined) payload.organization = organization;
  if (sender !== undefined) payload.sender = sender;
  return { payload };
}

/** The delivery headers GitHub adds beside the signatures. */
export function githubHeaders(record: Readonly<JsonObject>): Record<string, string> {
  const kind = String(record.endpointKind);
  const body = JSON.parse(String(record.body)) as {
    repository?: { id?: number };
    organization?: { id?: number };
    installation?: { app_id?: number };
  };
  const target =
    kind === 'organization_hook'
      ? { type: 'organization', id: body.organization?.id }
      : kind === 'app'
        ? { type: 'integration', id: body.installation?.app_id ?? Number(record.endpointId) }
        : { type: 'repository', id: body.repository?.id };
  return {
    'User-Agent': 'GitHub-Hookshot/7a1c2f0',
    'X-GitHub-Event': String(record.eventType).split('.')[0]!,
    // The record's message id: minted once per delivery, so a redelivery carries the same GUID.
    'X-GitHub-Delivery': String(record.messageId),
    'X-GitHub-Hook-ID': String(record.endpointId),
    'X-GitHub-Hook-Installation-Target-Type': target.type,
    'X-GitHub-Hook-Installation-Target-ID': String(target.id ?? ''),
  };
}
