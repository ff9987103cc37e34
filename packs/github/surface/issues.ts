// Issues (create, get, update, list for a repository — pull requests included, as GitHub lists
// them), their labels, and reactions on issues. Each write is one pack operation.
import type { JsonObject, JsonValue, ReadView } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import { issueKey, issueKind, openIssue } from '../issues.js';
import { updateIssue } from '../issue-update.js';
import { pullRequestKind } from '../pull-requests.js';
import {
  addReaction,
  reactionsOn,
  type GitHubReaction,
  type ReactionTarget,
} from '../reactions.js';
import { REACTION_CONTENTS } from '../reaction-rollup.js';
import { renderAccount } from '../render-account.js';
import { renderLabels, renderPullRequestIssue, renderRestIssue } from '../render-issue.js';
import type { GitHubRepository } from '../repositories.js';
import { addLabels, assignIssue } from '../triage.js';
import { GitHubApiError, invalidField } from './errors.js';
import { page, pageOf } from './paging.js';
import {
  numberParam,
  optionalText,
  repoOf,
  sinceParam,
  choiceParam,
  descending,
  text,
  withRepo,
  userOf,
  type GitHubContext,
  type GitHubRouteSpec,
} from './route.js';

/** An issue or a pull request's issue side, as GET /issues/{n} answers it. */
function issueAt(view: ReadView, repo: GitHubRepository, n: number): JsonObject | undefined {
  const key = issueKey(repo.id, n);
  const issue = issueKind.read(view, key);
  if (issue !== undefined) return renderRestIssue(issue, repo.id, view);
  const pull = pullRequestKind.read(view, key);
  return pull === undefined ? undefined : renderPullRequestIssue(pull, repo, view);
}

async function renderedIssue(ctx: GitHubContext, repo: GitHubRepository, n: number) {
  const found = await ctx.twin.read((view) => issueAt(view, repo, n));
  if (found === undefined) throw new GitHubApiError(404, 'Not Found');
  return found;
}

function stringList(input: JsonObject, field: string): string[] | undefined {
  const v = input[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw invalidField('Issue', field, 'invalid', `${field} must be an array of strings`);
  return v as string[];
}

function renderReaction(r: GitHubReaction): JsonObject {
  return {
    id: r.id,
    node_id: r.node_id,
    user: renderAccount(r.user),
    content: r.content,
    created_at: r.created_at,
  };
}

/** POST …/reactions: 201 with a new reaction, 200 with the one the user had already made. */
export async function react(ctx: GitHubContext, target: ReactionTarget) {
  const { reaction, created } = await addReaction(ctx.twin, {
    ...target,
    content: text(ctx.input, 'content', 'Reaction'),
    sender: userOf(ctx).login,
  });
  return answer(created ? 201 : 200, renderReaction(reaction));
}

/**
 * Labels, assignees and milestones are set by their own calls here: given to create or update they
 * would be dropped, so they are refused with a 422 naming the call to use.
 */
function refuseTriage(input: Readonly<Record<string, unknown>>, call: 'create' | 'update'): void {
  for (const field of ['labels', 'assignees', 'assignee', 'milestone'])
    if (input[field] !== undefined)
      throw invalidField(
        'Issue',
        field,
        'custom',
        `${field} on ${call} are not modelled by this twin; set them with issues.addLabels or issues.addAssignees`,
      );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface Listed {
  readonly user: { login: string };
  readonly assignees: readonly { login: string }[];
  readonly milestone?: unknown;
  readonly updated_at: string;
}

/**
 * `since`, `creator`, `assignee` (a login, `*` for any, `none`) and `milestone` (`*`, `none` or a
 * number: the twin keeps no milestones, so only `none` and no filter list anything) of
 * issues.listForRepo. `mentioned` would need the twin to read bodies for @-mentions, which it does
 * not, so it is refused rather than ignored.
 */
function issueFilter(ctx: GitHubContext): (i: Listed) => boolean {
  const since = sinceParam(ctx, 'Issue');
  const text = (field: string) => {
    const v = ctx.input[field];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string')
      throw invalidField('Issue', field, 'invalid', `${field} must be a string`);
    return v;
  };
  if (text('mentioned') !== undefined)
    throw invalidField(
      'Issue',
      'mentioned',
      'custom',
      'mentioned is not modelled by this twin (it keeps no @-mentions)',
    );
  const creator = text('creator')?.toLowerCase();
  const assignee = text('assignee')?.toLowerCase();
  const milestone = text('milestone');
  return (i) =>
    (since === undefined || i.updated_at >= since) &&
    (creator === undefined || i.user.login.toLowerCase() === creator) &&
    (assignee === undefined ||
      (assignee === '*'
        ? i.assignees.length > 0
        : assignee === 'none'
          ? i.assignees.length === 0
          : i.assignees.some((a) => a.login.toLowerCase() === assignee))) &&
    (milestone === undefined || milestone === 'none');
}

/** `sort` (created, the default, updated or comments) and `direction` (desc by default). */
function issueOrder(input: JsonObject): {
  sort: 'created' | 'updated' | 'comments';
  desc: boolean;
} {
  const sort = choiceParam(input, 'Issue', 'sort', ['created', 'updated', 'comments'], 'created')!;
  return { sort, desc: descending(input, 'Issue', 'desc') };
}

/** An issue's title as GitHub takes it: a string, or a number (`title: 42` is the title "42"). */
function titleOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

export const issueRoutes: GitHubRouteSpec[] = [
  {
    method: 'POST',
    path: '/repos/:owner/:repo/issues',
    sdk: 'issues.create',
    kind: 'write',
    events: ['issues.opened'],
    resource: 'Issue',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const user = userOf(ctx);
      refuseTriage(ctx.input, 'create');
      const title = titleOf(ctx.input.title);
      if (ctx.input.title !== undefined && ctx.input.title !== null && title === undefined)
        throw invalidField('Issue', 'title', 'invalid', 'title must be a string or a number');
      const body = optionalText(ctx.input, 'body', 'Issue');
      const issue = await openIssue(ctx.twin, {
        repository: repo.full_name,
        title: title ?? '',
        ...(body === undefined ? {} : { body }),
        sender: user.login,
      });
      return answer(201, await ctx.twin.read((view) => renderRestIssue(issue, repo.id, view)));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/issues/:issue_number',
    sdk: 'issues.get',
    kind: 'read',
    handle: async (ctx) => renderedIssue(ctx, await repoOf(ctx), numberParam(ctx, 'issue_number')),
  },
  {
    method: 'PATCH',
    path: '/repos/:owner/:repo/issues/:issue_number',
    sdk: 'issues.update',
    kind: 'write',
    events: ['issues.edited', 'issues.closed'],
    resource: 'Issue',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const user = userOf(ctx);
      const n = numberParam(ctx, 'issue_number');
      const { body, state, state_reason } = ctx.input;
      const title = ctx.input.title === undefined ? undefined : titleOf(ctx.input.title);
      refuseTriage(ctx.input, 'update');
      if (
        state_reason !== undefined &&
        state_reason !== null &&
        state_reason !== 'completed' &&
        state_reason !== 'not_planned' &&
        state_reason !== 'reopened'
      )
        throw invalidField(
          'Issue',
          'state_reason',
          'invalid',
          'state_reason must be "completed", "not_planned" or "reopened"',
        );
      if (ctx.input.title !== undefined && title === undefined)
        throw invalidField('Issue', 'title', 'invalid', 'title must be a string or a number');
      if (body !== undefined && body !== null && typeof body !== 'string')
        throw invalidField('Issue', 'body', 'invalid', 'body must be a string or null');
      if (state !== undefined && state !== 'open' && state !== 'closed')
        throw invalidField('Issue', 'state', 'invalid', 'state must be "open" or "closed"');
      const isPull = await ctx.twin.read(
        (view) => pullRequestKind.read(view, issueKey(repo.id, n)) !== undefined,
      );
      if (isPull)
        throw invalidField(
          'Issue',
          'issue_number',
          'custom',
          'this number is a pull request: update it with pulls.update',
        );
      const issue = await updateIssue(ctx.twin, {
        repository: repo.full_name,
        number: n,
        sender: user.login,
        ...(title === undefined ? {} : { title }),
        ...(body === undefined ? {} : { body }),
        ...(state === undefined ? {} : { state }),
        ...(state_reason === 'completed' || state_reason === 'not_planned' ? { state_reason } : {}),
      });
      // The issue as the update left it; its reactions as they are now.
      return ctx.twin.read((view) => renderRestIssue(issue, repo.id, view));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/issues',
    sdk: 'issues.listForRepo',
    kind: 'read',
    async handle(ctx) {
      const state = ctx.input.state ?? 'open';
      if (state !== 'open' && state !== 'closed' && state !== 'all')
        throw invalidField('Issue', 'state', 'invalid', 'state must be open, closed or all');
      const wanted =
        typeof ctx.input.labels === 'string' && ctx.input.labels !== ''
          ? ctx.input.labels.split(',').map((l) => l.trim().toLowerCase())
          : [];
      const keeps = issueFilter(ctx);
      const order = issueOrder(ctx.input);
      return withRepo(ctx, (view, repo) => {
        const mine = (type: string) =>
          view.list(type).filter((r) => r.id.startsWith(`${repo.id}#`));
        const numbers = [
          ...mine('issue').map((r) => issueKind.of(r)),
          ...mine('pull_request').map((r) => pullRequestKind.of(r)),
        ]
          .filter((i) => state === 'all' || i.state === state)
          .filter((i) =>
            wanted.every((w) => (i.labels ?? []).some((l) => l.name.toLowerCase() === w)),
          )
          .filter(keeps)
          .sort((a, b) => {
            const x =
              order.sort === 'created'
                ? 0
                : order.sort === 'updated'
                  ? cmp(a.updated_at, b.updated_at)
                  : a.comments - b.comments;
            const by = x !== 0 ? x : a.number - b.number;
            return order.desc ? -by : by;
          })
          .map((i) => i.number);
        // Only the page asked for is rendered.
        const { slice, headers } = pageOf(ctx, numbers);
        return answer(
          200,
          slice.map((n) => issueAt(view, repo, n as number)!),
          headers,
        );
      });
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/issues/:issue_number/labels',
    sdk: 'issues.addLabels',
    kind: 'write',
    events: ['issues.labeled', 'pull_request.labeled'],
    resource: 'Label',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const labels = stringList(ctx.input, 'labels');
      if (labels === undefined) throw invalidField('Label', 'labels', 'missing_field');
      const all = await addLabels(ctx.twin, {
        repository: repo.full_name,
        number: numberParam(ctx, 'issue_number'),
        labels,
        sender: userOf(ctx).login,
      });
      return renderLabels(all);
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/issues/:issue_number/assignees',
    sdk: 'issues.addAssignees',
    kind: 'write',
    events: ['issues.assigned', 'pull_request.assigned'],
    resource: 'Issue',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const n = numberParam(ctx, 'issue_number');
      const assignees = stringList(ctx.input, 'assignees');
      if (assignees === undefined) throw invalidField('Issue', 'assignees', 'missing_field');
      await assignIssue(ctx.twin, {
        repository: repo.full_name,
        number: n,
        assignees,
        sender: userOf(ctx).login,
      });
      return answer(201, await renderedIssue(ctx, repo, n));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/issues/:issue_number/labels',
    sdk: 'issues.listLabelsOnIssue',
    kind: 'read',
    async handle(ctx) {
      const issue = await renderedIssue(ctx, await repoOf(ctx), numberParam(ctx, 'issue_number'));
      return page(ctx, (issue.labels ?? []) as JsonValue[]);
    },
  },
  {
    method: 'POST',
    path: '/repos/:owner/:repo/issues/:issue_number/reactions',
    sdk: 'reactions.createForIssue',
    kind: 'write',
    resource: 'Reaction',
    handle: async (ctx) =>
      react(ctx, {
        repository: (await repoOf(ctx)).full_name,
        number: numberParam(ctx, 'issue_number'),
      }),
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/issues/:issue_number/reactions',
    sdk: 'reactions.listForIssue',
    kind: 'read',
    async handle(ctx) {
      const target = {
        repository: (await repoOf(ctx)).full_name,
        number: numberParam(ctx, 'issue_number'),
      };
      const content = ctx.input.content;
      if (
        content !== undefined &&
        content !== '' &&
        !(REACTION_CONTENTS as readonly unknown[]).includes(content)
      )
        throw invalidField(
          'Reaction',
          'content',
          'invalid',
          `content must be one of ${REACTION_CONTENTS.join(', ')}`,
        );
      const list = await ctx.twin.read((view) => reactionsOn(view, target));
      return page(
        ctx,
        list
          .filter((r) => content === undefined || content === '' || r.content === content)
          .map(renderReaction),
      );
    },
  },
];
