// Renders GitHub webhook payloads: `action`, the issue or pull request, `changes` on edits,
// `repository`, `organization` (for organization-owned repositories) and `sender`, with keys in
// GitHub's order rather than the log's sorted order.
import type { JsonObject, JsonValue, RenderContext } from '../../src/index.js';
import { ordered } from '../kit/ordered.js';
import { summary, type GitHubUser } from './accounts.js';

const ACCOUNT_KEYS = ['login', 'id', 'node_id', 'avatar_url', 'gravatar_id', 'url', 'html_url', 'type', 'site_admin'];
const REPOSITORY_KEYS = [
  'id', 'node_id', 'name', 'full_name', 'private', 'owner', 'html_url', 'description', 'fork', 'url', 'created_at', 'updated_at', 'pushed_at',
  'homepage', 'size', 'stargazers_count', 'watchers_count', 'language', 'has_issues', 'forks_count', 'archived', 'disabled', 'open_issues_count',
  'license', 'visibility', 'forks', 'open_issues', 'watchers', 'default_branch',
];
const ISSUE_KEYS = [
  'url', 'repository_url', 'labels_url', 'comments_url', 'events_url', 'html_url', 'id', 'node_id', 'number', 'title', 'user', 'labels', 'state',
  'locked', 'assignee', 'assignees', 'milestone', 'comments', 'created_at', 'updated_at', 'closed_at', 'author_association', 'active_lock_reason',
  'body', 'timeline_url', 'performed_via_github_app', 'state_reason',
];
const PULL_KEYS = [
  'url', 'id', 'node_id', 'html_url', 'diff_url', 'patch_url', 'issue_url', 'number', 'state', 'locked', 'title', 'user', 'body', 'created_at',
  'updated_at', 'closed_at', 'merged_at', 'merge_commit_sha', 'assignee', 'assignees', 'requested_reviewers', 'labels', 'draft', 'head', 'base',
  'author_association', 'merged', 'mergeable', 'merged_by', 'comments', 'commits', 'additions', 'deletions', 'changed_files',
];
const ORGANIZATION_KEYS = ['login', 'id', 'node_id', 'url', 'repos_url', 'events_url', 'hooks_url', 'issues_url', 'members_url', 'public_members_url', 'avatar_url', 'description'];

function account(value: JsonValue | undefined): JsonValue {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? ordered(value, ACCOUNT_KEYS) : null;
}

function withAccounts(object: JsonObject, keys: readonly string[]): JsonObject {
  const out = { ...object };
  for (const key of keys) if (key in out && out[key] !== null) out[key] = account(out[key]);
  return out;
}

function renderRepository(repo: Readonly<JsonObject>): JsonObject {
  return ordered(withAccounts({ ...repo }, ['owner']), REPOSITORY_KEYS);
}

/** Old values of the edited fields, as GitHub's `changes: {title: {from}}`. */
function changes(ctx: Pick<RenderContext, 'previous' | 'entry'>): JsonObject | undefined {
  const out: JsonObject = {};
  for (const key of ['title', 'body']) {
    if (ctx.entry.fields !== undefined && key in ctx.entry.fields) out[key] = { from: (ctx.previous?.[key] ?? null) as JsonValue };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function sender(ctx: RenderContext): JsonValue | undefined {
  const match = /^user:(\d+)$/.exec(ctx.entry.actor);
  const user = match === null ? undefined : ctx.view.get('user', match[1]!);
  return user === undefined ? undefined : ordered(summary(user.fields as unknown as GitHubUser), ACCOUNT_KEYS);
}

export function payloadValues(ctx: RenderContext): Record<string, JsonValue | undefined> {
  const [family, action] = ctx.eventType.split('.') as [string, string];
  const fields = (ctx.subject?.fields ?? {}) as JsonObject;
  const repoId = ctx.entry.subjectId.split('#')[0]!;
  const repoFields = ctx.view.get('repository', repoId)?.fields;
  const repo = repoFields === undefined ? undefined : renderRepository(repoFields);
  const owner = repoFields?.owner as { type?: string; id?: number } | undefined;
  const org = owner?.type === 'Organization' ? ctx.view.get('organization', String(owner.id))?.fields : undefined;
  const values: Record<string, JsonValue | undefined> = {
    action,
    repository: repo,
    // GitHub's payload organization has no created_at.
    organization: org === undefined ? undefined : ordered(org, ORGANIZATION_KEYS, ['created_at']),
    sender: sender(ctx),
    issue: undefined,
    pullRequest: undefined,
    number: undefined,
    changes: undefined,
  };
  if (family === 'issues') {
    values.issue = ordered(withAccounts(fields, ['user']), ISSUE_KEYS);
    if (action === 'edited') values.changes = changes(ctx);
  } else if (family === 'pull_request') {
    const pull = withAccounts(fields, ['user', 'merged_by']);
    // head and base carry the repository as it is now, like GitHub's rendering.
    for (const side of ['head', 'base']) {
      const ref = pull[side] as JsonObject | undefined;
      if (ref !== undefined) pull[side] = { label: ref.label ?? null, ref: ref.ref ?? null, sha: ref.sha ?? null, user: account(ref.user), repo: repo ?? null };
    }
    values.number = fields.number;
    values.pullRequest = ordered(pull, PULL_KEYS);
  }
  return values;
}

/** The delivery headers GitHub adds beside the signature. */
export function githubHeaders(record: Readonly<JsonObject>): Record<string, string> {
  const kind = String(record.endpointKind);
  const body = JSON.parse(String(record.body)) as { repository?: { id?: number }; organization?: { id?: number } };
  const org = kind === 'organization_hook';
  return {
    'User-Agent': 'GitHub-Hookshot/7a1c2f0',
    'X-GitHub-Event': String(record.eventType).split('.')[0]!,
    // The record's message id: minted once per delivery, so a redelivery carries the same GUID.
    'X-GitHub-Delivery': String(record.messageId),
    'X-GitHub-Hook-ID': String(record.endpointId),
    'X-GitHub-Hook-Installation-Target-Type': org ? 'organization' : 'repository',
    'X-GitHub-Hook-Installation-Target-ID': String((org ? body.organization?.id : body.repository?.id) ?? ''),
  };
}
