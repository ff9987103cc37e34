// The GitHub surface's credentials as @octokit/rest meets them, on SQLite and PostgreSQL: a JWT
// signed with another key or expired is 401, a user on an App route 403, an installation token
// reaches only its account's repositories and dies after an hour of world time; a body that is not
// JSON is 400.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as github from '../../packs/github/index.js';
import type { VirtualClock } from '../../src/world/clock.js';
import { homes } from '../support/backends.js';
import {
  appJwt,
  closeGitHubTwin,
  otherKey,
  startGitHubTwin,
  type GitHubTwin,
} from './github-support.js';

describe.each(homes)('GitHub credentials through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let baseUrl: string;
  let installationId: number;
  const client = (auth: string) => new Octokit({ auth, baseUrl });

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    baseUrl = `${t.listening.url}/github`;
    await client(t.tokens[0]!).rest.repos.createInOrg({ org: 'octo-org', name: 'engine' });
    const inst = await github.installApp(t.twin, {
      app: 'twin-ci',
      account: 'octo-org',
      sender: 'octocat',
    });
    installationId = inst.id;
  });
  afterAll(async () => {
    await closeGitHubTwin(t ?? {});
    cleanup?.();
  });

  it('refusals: forged or stale JWTs, a user on App routes, tokens out of scope or expired', async () => {
    const forged = client(appJwt(t.appId, otherKey()));
    await expect(forged.rest.apps.getAuthenticated()).rejects.toMatchObject({ status: 401 });
    const staleJwt = appJwt(t.appId, t.privateKey, { iat: -900, exp: -300 });
    await expect(client(staleJwt).rest.apps.getAuthenticated()).rejects.toMatchObject({
      status: 401,
      response: { data: { message: expect.stringContaining("'exp' is in the past") } },
    });
    await expect(client(t.tokens[0]!).rest.apps.getAuthenticated()).rejects.toMatchObject({
      status: 403,
    });
    const app = client(appJwt(t.appId, t.privateKey));
    await expect(
      app.rest.apps.createInstallationAccessToken({ installation_id: 1 }),
    ).rejects.toMatchObject({ status: 404 });
    // an installation on octo-org does not reach octocat's own repository
    await client(t.tokens[0]!).rest.repos.createForAuthenticatedUser({
      name: 'private-notes',
      private: true,
    });
    const { token } = (
      await app.rest.apps.createInstallationAccessToken({ installation_id: installationId })
    ).data;
    await expect(
      client(token).rest.repos.get({ owner: 'octocat', repo: 'private-notes' }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      client(t.tokens[1]!).rest.repos.get({ owner: 'octocat', repo: 'private-notes' }),
    ).rejects.toMatchObject({ status: 404 });
    expect(
      (await client(t.tokens[0]!).rest.repos.get({ owner: 'octocat', repo: 'private-notes' })).data
        .private,
    ).toBe(true);
    // a body that is not JSON
    const raw = await fetch(`${baseUrl}/repos/octo-org/engine/issues`, {
      method: 'POST',
      headers: { authorization: `token ${t.tokens[0]}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect([raw.status, ((await raw.json()) as { message: string }).message]).toEqual([
      400,
      'Problems parsing JSON',
    ]);
    // an hour of world time later the installation token is dead
    await (t.world.clock as VirtualClock).advance(3_600_001);
    await expect(
      client(token).rest.repos.get({ owner: 'octo-org', repo: 'engine' }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });
});
