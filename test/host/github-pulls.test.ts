// pulls.create as @octokit/rest meets it, on SQLite and PostgreSQL: a second open pull request for
// the same head and base is GitHub's custom 422, and so is a base branch the repository lacks.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { closeGitHubTwin, startGitHubTwin, type GitHubTwin } from './github-support.js';

describe.each(homes)('pulls.create through @octokit/rest ($name)', (home) => {
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
});
