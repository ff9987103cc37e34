// Check runs: created, updated and completed by a GitHub App through an installation access token
// — as on GitHub, a user token (or the App's JWT) is refused with 403 — and read by anyone who may
// see the repository. Each write is one pack operation; the payloads' sender is the app's bot.
import type { JsonObject, ReadView } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import { appKind, type GitHubApp } from '../apps.js';
import {
  checkRunKind,
  checkSuiteKind,
  completeCheckRun,
  createCheckRun,
  type CheckConclusion,
  type CheckRunOutput,
  type GitHubCheckRun,
} from '../checks.js';
import { pullRequestsAt } from '../payload.js';
import { renderCheckRun } from '../render-checks.js';
import { updateCheckRun } from '../check-run-update.js';
import { HEAD_SHA_INDEX } from '../commit-indexes.js';
import { commitExists, resolveCommit } from '../known-commits.js';
import type { GitHubRepository } from '../repositories.js';
import {
  forbidden,
  GitHubApiError,
  invalidField,
  noCommitFound,
  requiresAuthentication,
} from './errors.js';
import { pageOf } from './paging.js';
import {
  choiceParam,
  type GitHubContext,
  type GitHubRouteSpec,
  numberParam,
  optionalText,
  repoOf,
  text,
} from './route.js';

const RUN_STATUSES = ['queued', 'in_progress', 'completed'] as const;

function installationApp(ctx: GitHubContext): GitHubApp {
  const p = ctx.principal;
  if (p.kind === 'installation') return p.app;
  if (p.kind === 'anonymous') throw requiresAuthentication();
  throw forbidden(
    'You must authenticate via a GitHub App: check runs are created and updated with an installation access token',
  );
}

/** `output` of a create or an update: an object whose title, summary and text are strings. */
function outputParam(input: JsonObject): CheckRunOutput | undefined {
  const output = input.output;
  if (output === undefined) return undefined;
  if (output === null || typeof output !== 'object' || Array.isArray(output))
    throw invalidField('CheckRun', 'output', 'invalid', 'output must be an object');
  const out: CheckRunOutput = {};
  for (const field of ['title', 'summary', 'text'] as const) {
    const v = output[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string')
      throw invalidField(
        'CheckRun',
        `output.${field}`,
        'invalid',
        `output.${field} must be a string`,
      );
    out[field] = v;
  }
  return out;
}

function rendered(view: ReadView, run: GitHubCheckRun, repo: GitHubRepository): JsonObject {
  const suite = checkSuiteKind.read(view, run.check_suite_id)!;
  const app = appKind.read(view, run.app_id)!;
  return renderCheckRun(
    run,
    suite,
    repo,
    app,
    pullRequestsAt(view, repo, run.head_branch, run.head_sha),
  );
}

/**
 * The query of checks.listForRef: `check_name`, `status` and `app_id` keep the runs that match;
 * `filter` is `latest` (the default: the most recent run of each name and app) or `all`.
 */
function runFilter(input: JsonObject): {
  keeps: (r: GitHubCheckRun) => boolean;
  latest: boolean;
} {
  const name = optionalText(input, 'check_name', 'CheckRun');
  const status = choiceParam(input, 'CheckRun', 'status', ['queued', 'in_progress', 'completed']);
  const filter = choiceParam(input, 'CheckRun', 'filter', ['latest', 'all'], 'latest');
  const rawApp = input.app_id;
  const appId = rawApp === undefined || rawApp === '' ? undefined : Number(rawApp);
  if (appId !== undefined && !Number.isInteger(appId))
    throw invalidField('CheckRun', 'app_id', 'invalid', 'app_id must be an integer');
  return {
    keeps: (r) =>
      (name === undefined || name === '' || r.name === name) &&
      (status === undefined || r.status === status) &&
      (appId === undefined || r.app_id === appId),
    latest: filter === 'latest',
  };
}

/**
 * The most recent run of each name (per app), in the order given: a re-run replaces the run before
 * it in GitHub's `filter=latest` list. Which is the more recent is told by the order the runs were
 * made (the seq of each one's first log entry), as times tie within a virtual-clock tick.
 */
async function latestOfEach(ctx: GitHubContext, runs: GitHubCheckRun[]): Promise<GitHubCheckRun[]> {
  const groups = new Map<string, GitHubCheckRun[]>();
  for (const r of runs) {
    const key = `${r.app_id}/${r.name}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const dropped = new Set<number>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const made = await Promise.all(
      group.map(async (r) => (await ctx.twin.entriesFor('check_run', String(r.id)))[0]?.seq ?? 0),
    );
    const newest = made.indexOf(Math.max(...made));
    group.forEach((r, i) => i !== newest && dropped.add(r.id));
  }
  return runs.filter((r) => !dropped.has(r.id));
}

export const checkRoutes: GitHubRouteSpec[] = [
  {
    method: 'POST',
    path: '/repos/:owner/:repo/check-runs',
    sdk: 'checks.create',
    kind: 'write',
    events: ['check_run.created', 'check_run.completed', 'check_suite.completed'],
    resource: 'CheckRun',
    async handle(ctx) {
      const app = installationApp(ctx);
      const repo = await repoOf(ctx);
      const name = text(ctx.input, 'name', 'CheckRun');
      const sha = text(ctx.input, 'head_sha', 'CheckRun');
      const status = choiceParam(ctx.input, 'CheckRun', 'status', RUN_STATUSES);
      const conclusion = optionalText(ctx.input, 'conclusion', 'CheckRun');
      const external = optionalText(ctx.input, 'external_id', 'CheckRun');
      const details = optionalText(ctx.input, 'details_url', 'CheckRun');
      const output = outputParam(ctx.input);
      // GitHub checks a commit of this repository, not a sha-shaped string.
      if (!(await commitExists(ctx.twin, repo, sha))) throw noCommitFound(sha);
      const branch = await ctx.twin.read((view) =>
        view
          .lookup('branch', 'sha', sha)
          .map((r) => r.fields)
          .find((b) => b.repository_id === repo.id),
      );
      const run = await createCheckRun(ctx.twin, {
        repository: repo.full_name,
        app: app.slug,
        name,
        head_sha: sha,
        ...(branch === undefined ? {} : { head_branch: String(branch.name) }),
        ...(status === undefined ? {} : { status }),
        ...(conclusion === undefined ? {} : { conclusion: conclusion as CheckConclusion }),
        ...(external === undefined ? {} : { external_id: external }),
        ...(details === undefined ? {} : { details_url: details }),
        ...(output === undefined ? {} : { output }),
      });
      return answer(201, await ctx.twin.read((view) => rendered(view, run, repo)));
    },
  },
  {
    method: 'PATCH',
    path: '/repos/:owner/:repo/check-runs/:check_run_id',
    sdk: 'checks.update',
    kind: 'write',
    events: ['check_run.completed', 'check_suite.completed'],
    resource: 'CheckRun',
    async handle(ctx) {
      const app = installationApp(ctx);
      const repo = await repoOf(ctx);
      const id = numberParam(ctx, 'check_run_id');
      const current = await ctx.twin.read((view) => checkRunKind.read(view, id));
      if (current === undefined || current.repository_id !== repo.id)
        throw new GitHubApiError(404, 'Not Found');
      if (current.app_id !== app.id)
        throw forbidden('Invalid app_id: this check run belongs to another GitHub App');
      // A conclusion completes the run (GitHub sets the status then); without one, the run is
      // edited and may start, and no webhook is sent.
      const status = choiceParam(ctx.input, 'CheckRun', 'status', RUN_STATUSES);
      const conclusion = optionalText(ctx.input, 'conclusion', 'CheckRun');
      const output = outputParam(ctx.input);
      const name = optionalText(ctx.input, 'name', 'CheckRun');
      const details = optionalText(ctx.input, 'details_url', 'CheckRun');
      const external = optionalText(ctx.input, 'external_id', 'CheckRun');
      const edits = {
        repository: repo.full_name,
        check_run_id: id,
        ...(name === undefined ? {} : { name }),
        ...(details === undefined ? {} : { details_url: details }),
        ...(external === undefined ? {} : { external_id: external }),
        ...(output === undefined ? {} : { output }),
      };
      if (conclusion === undefined && status === 'completed')
        throw invalidField(
          'CheckRun',
          'conclusion',
          'missing_field',
          'conclusion is required when status is completed',
        );
      const run =
        conclusion === undefined
          ? await updateCheckRun(ctx.twin, {
              ...edits,
              ...(status === undefined ? {} : { status: status as 'queued' | 'in_progress' }),
            })
          : await completeCheckRun(ctx.twin, {
              ...edits,
              conclusion: conclusion as CheckConclusion,
            });
      return ctx.twin.read((view) => rendered(view, run, repo));
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/check-runs/:check_run_id',
    sdk: 'checks.get',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const id = numberParam(ctx, 'check_run_id');
      const found = await ctx.twin.read((view) => {
        const run = checkRunKind.read(view, id);
        return run === undefined || run.repository_id !== repo.id
          ? undefined
          : rendered(view, run, repo);
      });
      if (found === undefined) throw new GitHubApiError(404, 'Not Found');
      return found;
    },
  },
  {
    method: 'GET',
    path: '/repos/:owner/:repo/commits/:ref/check-runs',
    sdk: 'checks.listForRef',
    kind: 'read',
    async handle(ctx) {
      const repo = await repoOf(ctx);
      const ref = ctx.params.ref!;
      const wanted = runFilter(ctx.input);
      const sha = await resolveCommit(ctx.twin, repo, ref);
      if (sha === undefined) throw noCommitFound(ref);
      // The commit's runs by key, in id order as a list of the type gave them.
      const found = await ctx.twin.read((view) =>
        view
          .lookup(checkRunKind.type, HEAD_SHA_INDEX, sha)
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((r) => checkRunKind.of(r))
          .filter((r) => r.repository_id === repo.id && wanted.keeps(r)),
      );
      const kept = wanted.latest ? await latestOfEach(ctx, found) : found;
      const runs = await ctx.twin.read((view) => kept.map((r) => rendered(view, r, repo)));
      const { slice, headers } = pageOf(ctx, runs);
      // GitHub wraps this list: {total_count, check_runs}.
      return answer(200, { total_count: runs.length, check_runs: slice }, headers);
    },
  },
];
