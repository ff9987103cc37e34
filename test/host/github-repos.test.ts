// Repositories as @octokit/rest meets them, on SQLite and PostgreSQL: owner and repository names
// match whatever their case, as on GitHub, and answers carry the canonical names; a name that
// differs from an existing one only in case is that name, already taken; listForAuthenticatedUser
// follows sort and direction, and visibility, affiliation and type, as GitHub documents them;
// getBranch answers GitHub's whole branch: the tip's commit (message, author, parents) and the
// protection of an unprotected branch.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as github from '../../packs/github/index.js';
import { homes } from '../support/backends.js';
import { closeGitHubTwin, startGitHubTwin, type GitHubTwin } from './github-support.js';

describe.each(homes)('repositories through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let octocat: Octokit;
  let hubot: Octokit;

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    const baseUrl = `${t.listening.url}/github`;
    octocat = new Octokit({ auth: t.tokens[0]!, baseUrl });
    hubot = new Octokit({ auth: t.tokens[1]!, baseUrl });
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'r1' });
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'secret-r', private: true });
  });
  afterAll(async () => {
    await closeGitHubTwin(t ?? {});
    cleanup?.();
  });

  it('owner and repository names match case-insensitively; answers carry the canonical names', async () => {
    const got = await octocat.rest.repos.get({ owner: 'OctoCat', repo: 'R1' });
    expect(got.data).toMatchObject({ name: 'r1', full_name: 'octocat/r1' });
    expect(got.data.owner.login).toBe('octocat');
    const issue = await octocat.rest.issues.create({
      owner: 'OCTOCAT',
      repo: 'r1',
      title: 'cased',
    });
    expect(issue.data.repository_url).toMatch(/\/repos\/octocat\/r1$/);
    const again = await octocat.rest.issues.get({
      owner: 'octocat',
      repo: 'R1',
      issue_number: issue.data.number,
    });
    expect(again.data.title).toBe('cased');
    const made = await octocat.rest.repos.createInOrg({ org: 'OCTO-ORG', name: 'Mixed' });
    expect(made.data).toMatchObject({ full_name: 'octo-org/Mixed', name: 'Mixed' });
    expect(
      (await octocat.rest.repos.get({ owner: 'Octo-Org', repo: 'mixed' })).data.full_name,
    ).toBe('octo-org/Mixed');
  });

  it('what does not exist, or may not be seen, is still 404 in any case', async () => {
    await expect(octocat.rest.repos.get({ owner: 'OctoCat', repo: 'R2' })).rejects.toMatchObject({
      status: 404,
    });
    await expect(octocat.rest.repos.get({ owner: 'octocats', repo: 'r1' })).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      hubot.rest.repos.get({ owner: 'OctoCat', repo: 'Secret-R' }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await octocat.rest.repos.get({ owner: 'OctoCat', repo: 'Secret-R' })).status).toBe(200);
  });

  it('creating R1 beside r1 (or octo-org/MIXED beside Mixed) is 422 name already exists', async () => {
    const taken = {
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [{ resource: 'Repository', field: 'name', code: 'already_exists' }],
        },
      },
    };
    await expect(
      octocat.rest.repos.createForAuthenticatedUser({ name: 'R1' }),
    ).rejects.toMatchObject(taken);
    await expect(
      octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'MIXED' }),
    ).rejects.toMatchObject(taken);
    const mine = await octocat.rest.repos.listForAuthenticatedUser();
    expect(mine.data.map((r) => r.name).filter((n) => n.toLowerCase() === 'r1')).toEqual(['r1']);
  });

  it('listForAuthenticatedUser: full_name ascending by default; sort and direction as documented', async () => {
    const names = async (params: Record<string, string> = {}) =>
      (await hubot.rest.repos.listForAuthenticatedUser(params)).data.map((r) => r.name);
    for (const name of ['kiwi', 'Apple', 'mango', 'banana'])
      await hubot.rest.repos.createForAuthenticatedUser({ name });
    expect(await names()).toEqual(['Apple', 'banana', 'kiwi', 'mango']);
    expect(await names({ direction: 'desc' })).toEqual(['mango', 'kiwi', 'banana', 'Apple']);
    // created/updated/pushed default to desc: newest first (ties within a clock tick by the order made)
    expect(await names({ sort: 'created' })).toEqual(['banana', 'mango', 'Apple', 'kiwi']);
    expect(await names({ sort: 'created', direction: 'asc' })).toEqual([
      'kiwi',
      'Apple',
      'mango',
      'banana',
    ]);
    expect(await names({ sort: 'pushed' })).toEqual(['banana', 'mango', 'Apple', 'kiwi']);
    expect(await names({ sort: 'updated', direction: 'asc' })).toEqual([
      'kiwi',
      'Apple',
      'mango',
      'banana',
    ]);
    for (const [field, params] of [
      ['sort', { sort: 'stars' }],
      ['direction', { direction: 'up' }],
    ] as const)
      await expect(
        hubot.rest.repos.listForAuthenticatedUser(params as never),
      ).rejects.toMatchObject({
        status: 422,
        response: { data: { errors: [{ resource: 'Repository', field, code: 'invalid' }] } },
      });
  });
  it('listForAuthenticatedUser: visibility, affiliation and type choose which repositories', async () => {
    const names = async (params: Record<string, string> = {}) =>
      (await octocat.rest.repos.listForAuthenticatedUser(params)).data.map((r) => r.name);
    expect(await names()).toEqual(['r1', 'secret-r']);
    expect(await names({ visibility: 'private' })).toEqual(['secret-r']);
    expect(await names({ visibility: 'public' })).toEqual(['r1']);
    expect(await names({ visibility: 'all', affiliation: 'owner,collaborator' })).toEqual([
      'r1',
      'secret-r',
    ]);
    // the twin keeps no collaborators or organization members: only the user's own are listed
    expect(await names({ affiliation: 'collaborator' })).toEqual([]);
    expect(await names({ type: 'private' })).toEqual(['secret-r']);
    expect(await names({ type: 'public' })).toEqual(['r1']);
    expect(await names({ type: 'owner' })).toEqual(['r1', 'secret-r']);
    expect(await names({ type: 'member' })).toEqual([]);
    for (const [field, params] of [
      ['visibility', { visibility: 'secret' }],
      ['affiliation', { affiliation: 'owner,friend' }],
      ['type', { type: 'forks' }],
      ['type', { type: 'owner', visibility: 'public' }],
    ] as const)
      await expect(
        octocat.rest.repos.listForAuthenticatedUser(params as never),
      ).rejects.toMatchObject({
        status: 422,
        response: { data: { errors: [{ resource: 'Repository', field, code: 'invalid' }] } },
      });
  });

  it('getBranch answers the tip commit as GitHub does (message, author, parents) and an unprotected branch’s protection', async () => {
    const at = { owner: 'octocat', repo: 'branched' };
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'branched' });
    const initial = (await octocat.rest.repos.getBranch({ ...at, branch: 'main' })).data;
    expect(initial.protection).toEqual({
      enabled: false,
      required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] },
    });
    expect(initial.commit.commit.message).toBe('Initial commit');
    expect(initial.commit.parents).toEqual([]);
    expect(initial.commit.author?.login).toBe('octocat');
    const pushed = await github.push(t.twin, {
      repository: 'octocat/branched',
      branch: 'main',
      sender: 'hubot',
      messages: ['Fix the build', 'Add tests'],
    });
    const tip = (await octocat.rest.repos.getBranch({ ...at, branch: 'main' })).data.commit;
    expect(tip.sha).toBe(pushed.after);
    expect(tip.commit.message).toBe('Add tests');
    expect(tip.commit.author).toMatchObject({ name: 'hubot' });
    expect(tip.commit.author?.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(tip.author?.login).toBe('hubot');
    expect(tip.parents.map((p) => p.sha)).toEqual([pushed.commits[0]!.id]);
    expect(tip.html_url).toMatch(new RegExp(`/octocat/branched/commit/${pushed.after}$`));
    expect(tip.node_id).toEqual(expect.any(String));
  });

  it('createCommitStatus takes any commit of the repository, not only a tip; a sha naming none is 422 "No commit found for SHA"', async () => {
    const at = { owner: 'octocat', repo: 'statused' };
    await octocat.rest.repos.createForAuthenticatedUser({ name: 'statused' });
    const first = await github.push(t.twin, {
      repository: 'octocat/statused',
      branch: 'main',
      sender: 'octocat',
    });
    for (let i = 0; i < 2; i++)
      await github.push(t.twin, {
        repository: 'octocat/statused',
        branch: 'main',
        sender: 'octocat',
      });
    // CI reports on the commit it built, two pushes ago
    const made = await octocat.rest.repos.createCommitStatus({
      ...at,
      sha: first.after,
      state: 'success',
      context: 'ci',
    });
    expect(made.status).toBe(201);
    const listed = await octocat.rest.repos.listCommitStatusesForRef({ ...at, ref: first.after });
    expect(listed.data.map((s) => s.id)).toEqual([made.data.id]);
    const ghost = 'e'.repeat(40);
    const refused = await octocat.rest.repos
      .createCommitStatus({ ...at, sha: ghost, state: 'success' })
      .catch((e: { status: number; response: { data: object } }) => e);
    expect(refused).toMatchObject({
      status: 422,
      response: { data: { message: `No commit found for SHA: ${ghost}` } },
    });
    expect(Object.keys((refused as { response: { data: object } }).response.data).sort()).toEqual([
      'documentation_url',
      'message',
    ]);
  });
});
