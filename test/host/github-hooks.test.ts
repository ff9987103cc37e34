// Repository webhooks as @octokit/rest meets them, on SQLite and PostgreSQL: a hook made without a
// secret is GitHub's unsigned hook (its config shows no secret, its packets carry no
// X-Hub-Signature headers) while a malformed secret is still refused.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { closeGitHubTwin, startGitHubTwin, until, type GitHubTwin } from './github-support.js';

describe.each(homes)('repository webhooks through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let octocat: Octokit;
  const repo = { owner: 'octo-org', repo: 'hooked' };

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    octocat = new Octokit({ auth: t.tokens[0]!, baseUrl: `${t.listening.url}/github` });
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'hooked' });
  });
  afterAll(async () => {
    await closeGitHubTwin(t ?? {});
    cleanup?.();
  });

  it('a hook without config.secret: 201, no secret in its config, and unsigned packets', async () => {
    const made = await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/unsigned`, content_type: 'json' },
      events: ['issues'],
    });
    expect(made.status).toBe(201);
    expect(made.data.config).not.toHaveProperty('secret');
    const got = await octocat.rest.repos.getWebhook({ ...repo, hook_id: made.data.id });
    expect(got.data.config).toEqual({
      content_type: 'json',
      insecure_ssl: '0',
      url: `${t.receiver.url}/unsigned`,
    });
    await octocat.rest.issues.create({ ...repo, title: 'unsigned' });
    const packets = await until('the ping and issues.opened', () => {
      const got = t.receiver.requests.filter((r) => r.url === '/unsigned');
      return got.length >= 2 ? got : undefined;
    });
    expect(packets.map((p) => p.headers['x-github-event']).sort()).toEqual(['issues', 'ping']);
    for (const p of packets) {
      expect(p.headers).not.toHaveProperty('x-hub-signature');
      expect(p.headers).not.toHaveProperty('x-hub-signature-256');
      expect(p.headers['x-github-hook-id']).toBe(String(made.data.id));
    }
    await t.host.idle();
    const deliveries = await octocat.rest.repos.listWebhookDeliveries({
      ...repo,
      hook_id: made.data.id,
    });
    expect(deliveries.data.map((d) => d.status_code)).toEqual([200, 200]);
    // a signed hook beside it still has its secret masked and its packets signed
    const signed = await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/signed`, secret: 'a-real-secret' },
    });
    expect(signed.data.config.secret).toBe('********');
    const ping = await until('the signed ping', () =>
      t.receiver.requests.find((r) => r.url === '/signed'),
    );
    expect(ping.headers['x-hub-signature-256']).toMatch(/^sha256=/);
    await octocat.rest.repos.deleteWebhook({ ...repo, hook_id: made.data.id });
    await octocat.rest.repos.deleteWebhook({ ...repo, hook_id: signed.data.id });
  });

  it('a secret that is given must still be a real one: empty, padded or not a string is 422', async () => {
    for (const secret of ['', ' padded ', 42])
      await expect(
        octocat.rest.repos.createWebhook({
          ...repo,
          config: { url: `${t.receiver.url}/bad-secret`, secret: secret as string },
        }),
      ).rejects.toMatchObject({
        status: 422,
        response: { data: { errors: [{ resource: 'Hook', field: 'config.secret' }] } },
      });
    const left = await octocat.rest.repos.listWebhooks(repo);
    expect(left.data).toEqual([]);
  });
});
