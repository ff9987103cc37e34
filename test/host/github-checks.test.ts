// checks.create and checks.listForRef as @octokit/rest meets them, on SQLite and PostgreSQL: a
// head_sha or ref that names no commit of the repository is GitHub's 422 "No commit found for SHA"
// (and nothing is made); a commit two pushes old is still one; `check_name`, `status` and `app_id`
// keep the runs that match, and `filter` is `latest` by default (a re-run replaces the run of the
// same name before it) or `all`, as GitHub documents them.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as github from '../../packs/github/index.js';
import type { JsonObject } from '../../src/index.js';
import { homes } from '../support/backends.js';
import {
  appJwt,
  closeGitHubTwin,
  startGitHubTwin,
  until,
  type GitHubTwin,
} from './github-support.js';

describe.each(homes)('checks.listForRef through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let octocat: Octokit;
  let bot: Octokit;
  let sha: string;
  const repo = { owner: 'octo-org', repo: 'checked' };

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    const baseUrl = `${t.listening.url}/github`;
    octocat = new Octokit({ auth: t.tokens[0]!, baseUrl });
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'checked' });
    const inst = await github.installApp(t.twin, {
      app: 'twin-ci',
      account: 'octo-org',
      sender: 'octocat',
    });
    const app = new Octokit({ auth: appJwt(t.appId, t.privateKey), baseUrl });
    const minted = await app.rest.apps.createInstallationAccessToken({
      installation_id: inst.id,
    });
    bot = new Octokit({ auth: minted.data.token, baseUrl });
    sha = (await octocat.rest.repos.getBranch({ ...repo, branch: 'main' })).data.commit.sha;
  });
  afterAll(async () => {
    await closeGitHubTwin(t ?? {});
    cleanup?.();
  });

  it('a head_sha naming no commit of the repository is 422 "No commit found for SHA"; nothing is made', async () => {
    const ghost = 'f'.repeat(40);
    const before = (await t.twin.head()) as number;
    for (const head_sha of [ghost, 'not-a-sha'])
      await expect(
        bot.rest.checks.create({ ...repo, name: 'lint', head_sha }),
      ).rejects.toMatchObject({
        status: 422,
        response: { data: { message: `No commit found for SHA: ${head_sha}` } },
      });
    const refused = await bot.rest.checks
      .create({ ...repo, name: 'lint', head_sha: ghost })
      .catch((e: { response: { data: object } }) => e.response.data);
    expect(Object.keys(refused).sort()).toEqual(['documentation_url', 'message']);
    expect(await t.twin.head()).toBe(before); // no run, no suite, no event
    await expect(octocat.rest.checks.listForRef({ ...repo, ref: ghost })).rejects.toMatchObject({
      status: 422,
      response: { data: { message: `No commit found for SHA: ${ghost}` } },
    });
    await expect(
      octocat.rest.checks.listForRef({ ...repo, ref: 'no-such-branch' }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('a commit two pushes old is still a commit: a run on it is made and listed by sha, abbreviation or heads/ ref', async () => {
    const first = await github.push(t.twin, {
      repository: 'octo-org/checked',
      branch: 'topic',
      sender: 'octocat',
      messages: ['one', 'two'],
    });
    await github.push(t.twin, {
      repository: 'octo-org/checked',
      branch: 'topic',
      sender: 'octocat',
    });
    await github.push(t.twin, {
      repository: 'octo-org/checked',
      branch: 'topic',
      sender: 'octocat',
    });
    const old = first.commits[0]!.id; // neither a tip nor in the branch's last push now
    const made = await bot.rest.checks.create({ ...repo, name: 'late', head_sha: old });
    expect(made.status).toBe(201);
    expect(made.data.head_sha).toBe(old);
    const listed = async (ref: string) =>
      (await octocat.rest.checks.listForRef({ ...repo, ref })).data.check_runs.map((r) => r.id);
    expect(await listed(old)).toEqual([made.data.id]);
    expect(await listed(old.slice(0, 7))).toEqual([made.data.id]);
    const tip = (await octocat.rest.repos.getBranch({ ...repo, branch: 'topic' })).data.commit.sha;
    const onTip = await bot.rest.checks.create({ ...repo, name: 'tip', head_sha: tip });
    expect(await listed('heads/topic')).toEqual([onTip.data.id]);
    expect(await listed('topic')).toEqual([onTip.data.id]);
  });

  it('checks.create keeps the output and details_url it is given, in the answer, the store and the webhook; completing without output keeps it', async () => {
    await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/checks`, content_type: 'json' },
      events: ['check_run'],
    });
    const pushed = await github.push(t.twin, {
      repository: 'octo-org/checked',
      branch: 'reported',
      sender: 'octocat',
    });
    const report = { title: 'Running', summary: '3 of 9 suites' };
    const made = await bot.rest.checks.create({
      ...repo,
      name: 'report',
      head_sha: pushed.after,
      status: 'in_progress',
      details_url: 'https://ci.example.com/runs/7',
      output: report,
    });
    expect(made.data.output).toMatchObject({ ...report, text: null, annotations_count: 0 });
    expect(made.data.details_url).toBe('https://ci.example.com/runs/7');
    const got = await octocat.rest.checks.get({ ...repo, check_run_id: made.data.id });
    expect(got.data).toMatchObject({
      output: report,
      details_url: 'https://ci.example.com/runs/7',
    });
    const created = await until('check_run.created for report', () =>
      t.receiver.requests.find((r) => {
        const body = JSON.parse(r.body) as { action?: string; check_run?: { name?: string } };
        return body.action === 'created' && body.check_run?.name === 'report' ? body : undefined;
      }),
    );
    expect(JSON.parse(created.body).check_run.output).toMatchObject(report);
    const done = await bot.rest.checks.update({
      ...repo,
      check_run_id: made.data.id,
      conclusion: 'success',
    });
    expect(done.data.output).toMatchObject(report);
    await expect(
      bot.rest.checks.create({
        ...repo,
        name: 'report',
        head_sha: pushed.after,
        output: null as never,
      }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ resource: 'CheckRun', field: 'output', code: 'invalid' }] } },
    });
  });

  it('checks.update without a conclusion edits and starts a run (no webhook); a conclusion on create makes it completed, created and completed at once', async () => {
    await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/runs`, content_type: 'json' },
      events: ['check_run', 'check_suite'],
    });
    const received = (run: number) =>
      t.receiver.requests
        .filter((r) => r.url === '/runs')
        .map((r) => JSON.parse(r.body) as { action: string; check_run?: { id: number } })
        .filter((b) => b.check_run?.id === run)
        .map((b) => b.action);
    const pushed = await github.push(t.twin, {
      repository: 'octo-org/checked',
      branch: 'updated',
      sender: 'octocat',
    });
    const at = { ...repo, head_sha: pushed.after };
    const queued = (await bot.rest.checks.create({ ...at, name: 'steps' })).data;
    expect(queued.status).toBe('queued');
    const started = await bot.rest.checks.update({
      ...repo,
      check_run_id: queued.id,
      status: 'in_progress',
      name: 'steps (linux)',
      output: { title: 'Step 1', summary: 'installing' },
    });
    expect(started.data).toMatchObject({
      status: 'in_progress',
      conclusion: null,
      name: 'steps (linux)',
      output: { title: 'Step 1', summary: 'installing' },
      check_suite: { id: queued.check_suite!.id },
    });
    const stored = await octocat.rest.checks.get({ ...repo, check_run_id: queued.id });
    expect(stored.data).toMatchObject({ status: 'in_progress', name: 'steps (linux)' });
    await expect(
      bot.rest.checks.update({ ...repo, check_run_id: queued.id, status: 'completed' }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ resource: 'CheckRun', field: 'conclusion', code: 'missing_field' }] },
      },
    });
    await bot.rest.checks.update({ ...repo, check_run_id: queued.id, conclusion: 'success' });
    await until('check_run.completed for steps', () =>
      received(queued.id).includes('completed') ? true : undefined,
    );
    expect(received(queued.id)).toEqual(['created', 'completed']); // the edit sent nothing

    const whole = await bot.rest.checks.create({
      ...at,
      name: 'lint',
      status: 'completed',
      conclusion: 'neutral',
      output: { title: 'Nothing to lint', summary: 'no files' },
    });
    expect(whole.status).toBe(201);
    expect(whole.data).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(whole.data.completed_at).not.toBeNull();
    await until('check_run.created and completed for lint', () =>
      received(whole.data.id).length === 2 ? true : undefined,
    );
    expect(received(whole.data.id)).toEqual(['created', 'completed']);
    // both runs of the suite are done: the suite completes again, with the worse conclusion
    await until('check_suite.completed, neutral', () =>
      t.receiver.requests
        .filter((r) => r.url === '/runs')
        .map((r) => JSON.parse(r.body) as { action: string; check_suite?: JsonObject })
        .find(
          (b) =>
            b.action === 'completed' &&
            b.check_suite?.id === whole.data.check_suite!.id &&
            b.check_suite.conclusion === 'neutral',
        ),
    );
    await expect(
      bot.rest.checks.create({ ...at, name: 'x', status: 'completed' }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ resource: 'CheckRun', field: 'conclusion', code: 'missing_field' }] },
      },
    });
  });

  it('check_name, status and app_id filter; filter=latest (the default) keeps the newest run of a name', async () => {
    const run = async (name: string) =>
      (await bot.rest.checks.create({ ...repo, name, head_sha: sha, status: 'in_progress' })).data
        .id;
    const lint = await run('lint');
    const build = await run('build');
    await bot.rest.checks.update({ ...repo, check_run_id: build, conclusion: 'failure' });
    const rebuild = await run('build'); // the app re-runs build
    const ids = async (q: Record<string, string | number> = {}) =>
      (await octocat.rest.checks.listForRef({ ...repo, ref: sha, ...q })).data.check_runs
        .map((r) => r.id)
        .sort();
    const listed = await octocat.rest.checks.listForRef({ ...repo, ref: 'main' });
    expect(listed.data.total_count).toBe(2);
    expect(await ids()).toEqual([lint, rebuild].sort());
    expect(await ids({ filter: 'all' })).toEqual([lint, build, rebuild].sort());
    expect(await ids({ check_name: 'build' })).toEqual([rebuild]);
    expect(await ids({ check_name: 'build', filter: 'all' })).toEqual([build, rebuild].sort());
    expect(await ids({ check_name: 'deploy' })).toEqual([]);
    expect(await ids({ status: 'completed', filter: 'all' })).toEqual([build]);
    expect(await ids({ status: 'in_progress' })).toEqual([lint, rebuild].sort());
    expect(await ids({ app_id: t.appId })).toEqual([lint, rebuild].sort());
    expect(await ids({ app_id: t.appId + 1 })).toEqual([]);
    for (const [field, q] of [
      ['status', { status: 'done' }],
      ['filter', { filter: 'newest' }],
    ] as const)
      await expect(
        octocat.rest.checks.listForRef({ ...repo, ref: sha, ...(q as object) }),
      ).rejects.toMatchObject({
        status: 422,
        response: { data: { errors: [{ resource: 'CheckRun', field, code: 'invalid' }] } },
      });
  });
});
