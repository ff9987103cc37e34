// checks.listForRef as @octokit/rest meets it, on SQLite and PostgreSQL: `check_name`, `status`
// and `app_id` keep the runs that match, and `filter` is `latest` by default (a re-run replaces
// the run of the same name before it) or `all`, as GitHub documents them.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as github from '../../packs/github/index.js';
import { homes } from '../support/backends.js';
import { appJwt, closeGitHubTwin, startGitHubTwin, type GitHubTwin } from './github-support.js';

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
