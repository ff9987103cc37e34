// pulls.create and pulls.list as @octokit/rest meets them, on SQLite and PostgreSQL: a second open
// pull request for the same head and base is GitHub's custom 422, and so is a base branch the
// repository lacks; pulls.list filters by head (`owner:branch`) and base, and sorts as GitHub does
// (created, updated, popularity = comment count, long-running = open over a month and active within
// one, oldest first).
import { Octokit } from '@octokit/rest';
import { VirtualClock } from '../../src/world/clock.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { closeGitHubTwin, startGitHubTwin, type GitHubTwin } from './github-support.js';

describe.each(homes)('pulls.create and pulls.list through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let octocat: Octokit;
  const repo = { owner: 'octocat', repo: 'pulled' };

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    octocat = new Octokit({ auth: t.tokens[0]!, baseUrl: `${t.listening.url}/github` });
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'pulled' });
  });
  afterAll(async () => {
    await closeGitHubTwin(t ?? {});
    cleanup?.();
  });

  it('a second open pull request for the same head and base is 422 "A pull request already exists"', async () => {
    const first = await octocat.rest.pulls.create({
      ...repo,
      title: 'one',
      head: 'feature',
      base: 'main',
    });
    expect(first.status).toBe(201);
    await expect(
      octocat.rest.pulls.create({ ...repo, title: 'two', head: 'feature', base: 'main' }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: 'A pull request already exists for octocat:feature.',
            },
          ],
        },
      },
    });
    // head given as owner:branch names the same pair
    await expect(
      octocat.rest.pulls.create({ ...repo, title: 'three', head: 'octocat:feature', base: 'main' }),
    ).rejects.toMatchObject({ status: 422 });
    // once the first is closed, the pair is free again
    await octocat.rest.pulls.update({ ...repo, pull_number: first.data.number, state: 'closed' });
    const again = await octocat.rest.pulls.create({
      ...repo,
      title: 'four',
      head: 'feature',
      base: 'main',
    });
    expect(again.status).toBe(201);
  });

  it('a base branch the repository does not have is 422 invalid on base; nothing is opened', async () => {
    await expect(
      octocat.rest.pulls.create({ ...repo, title: 'x', head: 'topic', base: 'no-such-branch' }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ resource: 'PullRequest', field: 'base', code: 'invalid' }] },
      },
    });
    const open = await octocat.rest.pulls.list({ ...repo, state: 'all' });
    expect(open.data.map((p) => p.title).sort()).toEqual(['four', 'one']);
    await expect(
      octocat.rest.repos.getBranch({ ...repo, branch: 'no-such-branch' }),
    ).rejects.toMatchObject({ status: 404 });
  });
  it('pulls.list filters by head (owner:branch; a bare branch is ignored, as GitHub ignores it) and base', async () => {
    const at = { owner: 'octocat', repo: 'listed' };
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'listed' });
    const open = async (head: string, base: string) =>
      (await octocat.rest.pulls.create({ ...at, title: head, head, base })).data.number;
    const alpha = await open('alpha', 'main');
    const beta = await open('beta', 'main');
    const gamma = await open('gamma', 'alpha'); // alpha exists once its pull request made it
    const list = async (
      q: Omit<NonNullable<Parameters<typeof octocat.rest.pulls.list>[0]>, 'owner' | 'repo'> = {},
    ) => (await octocat.rest.pulls.list({ ...at, ...q })).data.map((p) => p.number);
    expect(await list()).toEqual([gamma, beta, alpha]);
    expect(await list({ head: 'octocat:beta' })).toEqual([beta]);
    expect(await list({ head: 'OctoCat:beta' })).toEqual([beta]);
    expect(await list({ head: 'hubot:beta' })).toEqual([]);
    expect(await list({ head: 'octocat:nothing' })).toEqual([]);
    expect(await list({ head: 'beta' })).toEqual([gamma, beta, alpha]);
    expect(await list({ base: 'alpha' })).toEqual([gamma]);
    expect(await list({ base: 'main', head: 'octocat:alpha' })).toEqual([alpha]);
    // The app's "is there an open pull request for my branch?" after it closed one.
    await octocat.rest.pulls.update({ ...at, pull_number: beta, state: 'closed' });
    expect(await list({ head: 'octocat:beta' })).toEqual([]);
    expect(await list({ head: 'octocat:beta', state: 'all' })).toEqual([beta]);
    // sort=updated is ascending unless asked otherwise; created (the default) descending.
    await (t.world.clock as VirtualClock).advance(60_000);
    await octocat.rest.pulls.update({ ...at, pull_number: alpha, title: 'alpha, again' });
    expect(await list({ sort: 'updated' })).toEqual([gamma, alpha]);
    expect(await list({ sort: 'updated', direction: 'desc' })).toEqual([alpha, gamma]);
    expect(await list({ direction: 'asc' })).toEqual([alpha, gamma]);
    await expect(list({ sort: 'sideways' as never })).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ resource: 'PullRequest', field: 'sort', code: 'invalid' }] } },
    });
  });

  it('pulls.list sort=popularity orders by comment count; long-running keeps pulls open over a month and active within one', async () => {
    const at = { owner: 'octocat', repo: 'sorted' };
    const clock = t.world.clock as VirtualClock;
    const day = 24 * 3_600_000;
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'sorted' });
    const open = async (head: string) =>
      (await octocat.rest.pulls.create({ ...at, title: head, head, base: 'main' })).data.number;
    const comment = (n: number, times: number) =>
      Array.from({ length: times }).reduce<Promise<unknown>>(
        (p) =>
          p.then(() => octocat.rest.issues.createComment({ ...at, issue_number: n, body: 'x' })),
        Promise.resolve(),
      );
    const stale = await open('stale'); // open long ago, untouched since
    const old = await open('old'); // open long ago, commented on lately
    const closed = await open('closed'); // open long ago, closed lately
    await clock.advance(40 * day);
    const fresh = await open('fresh'); // open for a day, commented on the most
    await clock.advance(day);
    await comment(old, 1);
    await comment(fresh, 3);
    await octocat.rest.pulls.update({ ...at, pull_number: closed, state: 'closed' });
    const list = async (q: Record<string, string>) =>
      (await octocat.rest.pulls.list({ ...at, ...q })).data.map((p) => p.number);
    // popularity: ascending unless asked otherwise; equal counts in the order they were opened.
    expect(await list({ sort: 'popularity' })).toEqual([stale, old, fresh]);
    expect(await list({ sort: 'popularity', direction: 'desc' })).toEqual([fresh, old, stale]);
    expect(await list({ sort: 'popularity', state: 'all' })).toEqual([stale, closed, old, fresh]);
    // long-running: oldest first, only the open-over-a-month ones with activity in the last month.
    expect(await list({ sort: 'long-running' })).toEqual([old]);
    expect(await list({ sort: 'long-running', state: 'all' })).toEqual([old, closed]);
    expect(await list({ sort: 'long-running', state: 'all', direction: 'desc' })).toEqual([
      closed,
      old,
    ]);
    const stored = await octocat.rest.pulls.get({ ...at, pull_number: fresh });
    expect(stored.data.comments).toBe(3);
  });
});
