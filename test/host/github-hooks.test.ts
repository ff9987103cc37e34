// Repository webhooks as @octokit/rest meets them, on SQLite and PostgreSQL: a hook made without a
// secret is GitHub's unsigned hook (its config shows no secret, its packets carry no
// X-Hub-Signature headers) while a malformed secret is still refused; a second hook with the same
// URL and an event name GitHub does not know are GitHub's 422s, on create and on update; deliveries
// are listed newest first, in the order they were made; a ping's sender is the user who made the
// hook, or who pinged it; config.content_type other than json is refused on update as on create (not
// dropped), and config.insecure_ssl is kept.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { closeGitHubTwin, startGitHubTwin, until, type GitHubTwin } from './github-support.js';

describe.each(homes)('repository webhooks through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let octocat: Octokit;
  let hubot: Octokit;
  const repo = { owner: 'octo-org', repo: 'hooked' };

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    octocat = new Octokit({ auth: t.tokens[0]!, baseUrl: `${t.listening.url}/github` });
    hubot = new Octokit({ auth: t.tokens[1]!, baseUrl: `${t.listening.url}/github` });
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

  it('a second hook with the same config.url is 422 custom "Hook already exists on this repository"', async () => {
    const config = { url: `${t.receiver.url}/twice`, secret: 'twice-secret' };
    const first = await octocat.rest.repos.createWebhook({ ...repo, config });
    const refusal = {
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [
            { resource: 'Hook', code: 'custom', message: 'Hook already exists on this repository' },
          ],
        },
      },
    };
    await expect(octocat.rest.repos.createWebhook({ ...repo, config })).rejects.toMatchObject(
      refusal,
    );
    const unsigned = { url: config.url };
    await expect(
      octocat.rest.repos.createWebhook({ ...repo, config: unsigned }),
    ).rejects.toMatchObject(refusal);
    // the refusal names no field, as GitHub's does
    const error = (await octocat.rest.repos.createWebhook({ ...repo, config }).catch((e) => e)) as {
      response: { data: { errors: object[] } };
    };
    expect(error.response.data.errors[0]).not.toHaveProperty('field');
    // moving another hook onto that URL is refused the same way; another repository may have it
    const other = await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/elsewhere`, secret: 'twice-secret' },
    });
    await expect(
      octocat.rest.repos.updateWebhook({ ...repo, hook_id: other.data.id, config: unsigned }),
    ).rejects.toMatchObject(refusal);
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'hooked-too' });
    const beside = await octocat.rest.repos.createWebhook({
      owner: 'octo-org',
      repo: 'hooked-too',
      config,
    });
    expect(beside.status).toBe(201);
    // once the first is deleted, the URL is free again
    await octocat.rest.repos.deleteWebhook({ ...repo, hook_id: first.data.id });
    const again = await octocat.rest.repos.createWebhook({ ...repo, config });
    expect(again.status).toBe(201);
    const urls = (await octocat.rest.repos.listWebhooks(repo)).data.map((h) => h.config.url);
    expect(urls.filter((u) => u === config.url)).toHaveLength(1);
  });

  it('an unknown event name is 422 on events: on create, on update, and through add_events', async () => {
    const invalid = (name: string) => ({
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'Hook',
              field: 'events',
              code: 'invalid',
              message: expect.stringContaining(`"${name}"`),
            },
          ],
        },
      },
    });
    const config = { url: `${t.receiver.url}/events`, secret: 'events-secret' };
    await expect(
      octocat.rest.repos.createWebhook({ ...repo, config, events: ['issues', 'bogus'] }),
    ).rejects.toMatchObject(invalid('bogus'));
    const hook = await octocat.rest.repos.createWebhook({
      ...repo,
      config,
      events: ['issues', 'pull_request_review', 'workflow_run'],
    });
    const at = { ...repo, hook_id: hook.data.id };
    await expect(
      octocat.rest.repos.updateWebhook({ ...at, events: ['Issues'] }),
    ).rejects.toMatchObject(invalid('Issues'));
    await expect(
      octocat.rest.repos.updateWebhook({ ...at, add_events: ['push', 'nonsense'] }),
    ).rejects.toMatchObject(invalid('nonsense'));
    const kept = await octocat.rest.repos.getWebhook(at);
    expect(kept.data.events).toEqual(['issues', 'pull_request_review', 'workflow_run']);
    const added = await octocat.rest.repos.updateWebhook({ ...at, add_events: ['push'] });
    expect(added.data.events).toEqual(['issues', 'pull_request_review', 'workflow_run', 'push']);
  });

  it('listWebhookDeliveries: newest first, in the order the attempts were made (a redelivery first)', async () => {
    const hook = await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/ordered` },
      events: ['issues'],
    });
    const at = { ...repo, hook_id: hook.data.id };
    await t.host.idle();
    const titles = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
    for (const title of titles) {
      await octocat.rest.issues.create({ ...repo, title });
      await t.host.idle(); // each delivery made before the next issue's
    }
    const titleOf = async (delivery_id: number) => {
      const one = await octocat.rest.repos.getWebhookDelivery({ ...at, delivery_id });
      const payload = one.data.request.payload as { issue?: { title: string } };
      return payload.issue?.title ?? one.data.event;
    };
    const listed = await octocat.rest.repos.listWebhookDeliveries({ ...at, per_page: 100 });
    const order = await Promise.all(listed.data.map((d) => titleOf(d.id)));
    expect(order).toEqual([...titles].reverse().concat('ping'));
    // the delivered_at values are equal under the virtual clock: order is not taken from them
    expect(new Set(listed.data.map((d) => d.delivered_at)).size).toBe(1);
    const ping = listed.data.at(-1)!;
    await octocat.rest.repos.redeliverWebhookDelivery({ ...at, delivery_id: ping.id });
    await until('the redelivery', async () => {
      const now = await octocat.rest.repos.listWebhookDeliveries({ ...at, per_page: 100 });
      return now.data.length === titles.length + 2 ? now.data : undefined;
    });
    await t.host.idle();
    const relisted = await octocat.rest.repos.listWebhookDeliveries({ ...at, per_page: 2 });
    expect(relisted.data.map((d) => [d.event, d.redelivery])).toEqual([
      ['ping', true],
      ['issues', false],
    ]);
  });

  it("a ping's sender is the user who made the hook, then the user who pinged it", async () => {
    const made = await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/pinged` },
      events: ['issues'],
    });
    const pings = (n: number) =>
      until(`${n} pings`, () => {
        const got = t.receiver.requests.filter(
          (r) => r.url === '/pinged' && r.headers['x-github-event'] === 'ping',
        );
        return got.length >= n ? got : undefined;
      });
    const senderOf = (body: string) => (JSON.parse(body) as { sender?: unknown }).sender;
    // the sender is GitHub's simple user, rendered as every other user of the twin is
    const issue = await octocat.rest.issues.create({ ...repo, title: 'whose ping' });
    const [first] = await pings(1);
    expect(senderOf(first!.body)).toEqual(issue.data.user);
    await hubot.rest.repos.pingWebhook({ ...repo, hook_id: made.data.id });
    const [, second] = await pings(2);
    expect(senderOf(second!.body)).toMatchObject({ login: 'hubot', type: 'User' });
  });
  it('updateWebhook: content_type form is refused as on create, not dropped; insecure_ssl is kept', async () => {
    const url = `${t.receiver.url}/configured`;
    const made = await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url, content_type: 'json' },
      events: ['issues'],
    });
    const at = { ...repo, hook_id: made.data.id };
    const refusal = {
      status: 422,
      response: {
        data: { errors: [{ resource: 'Hook', field: 'config.content_type', code: 'invalid' }] },
      },
    };
    await expect(
      octocat.rest.repos.createWebhook({
        ...repo,
        config: { url: `${url}/2`, content_type: 'form' },
      }),
    ).rejects.toMatchObject(refusal);
    await expect(
      octocat.rest.repos.updateWebhook({ ...at, config: { url, content_type: 'form' } }),
    ).rejects.toMatchObject(refusal);
    expect((await octocat.rest.repos.getWebhook(at)).data.config.content_type).toBe('json');
    const insecure = await octocat.rest.repos.updateWebhook({
      ...at,
      config: { url, insecure_ssl: '1' },
    });
    expect(insecure.data.config).toMatchObject({ url, content_type: 'json', insecure_ssl: '1' });
    expect((await octocat.rest.repos.getWebhook(at)).data.config.insecure_ssl).toBe('1');
    await expect(
      octocat.rest.repos.updateWebhook({ ...at, config: { url, insecure_ssl: 'yes' } }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ field: 'config.insecure_ssl', code: 'invalid' }] } },
    });
  });
});
