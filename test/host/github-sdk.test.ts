// The GitHub surface as the unmodified @octokit/rest sees it (only baseUrl set), against a real host
// on loopback, on SQLite and on PostgreSQL: the webhooks its calls cause reach a real receiver,
// signed as GitHub signs them (X-Hub-Signature-256 and X-Hub-Signature), with every URL on the
// twin's own origin; hook deliveries are the twin's own records; reads append nothing.
import { createHmac } from 'node:crypto';
import { RequestError } from '@octokit/request-error';
import { Octokit } from '@octokit/rest';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as github from '../../packs/github/index.js';
import type { JsonValue, Twin } from '../../src/index.js';
import type { Listening, SurfaceHost } from '../../src/host/index.js';
import { replayLines } from '../../src/world/replay.js';
import type { World } from '../../src/world/world.js';
import { collect, homes } from '../support/backends.js';
import type { ReceivedRequest, Receiver } from '../support/receiver.js';
import { appJwt, closeGitHubTwin, leaving, startGitHubTwin, until } from './github-support.js';

const SECRET = 'hook-secret-for-conformance-7f3a';

describe.each(homes)('@octokit/rest against the GitHub surface ($name)', (home) => {
  let world: World;
  let host: SurfaceHost;
  let listening: Listening;
  let receiver: Receiver;
  let twin: Twin;
  let cleanup: () => void;
  let baseUrl: string;
  let octocat: Octokit;
  let hubot: Octokit;
  let tokens: string[];
  let privateKey: string;
  let appId: number;
  let installationId: number;
  let hookId: number;
  const seen: string[] = [];

  const client = (auth?: string) => {
    const o = new Octokit({ ...(auth === undefined ? {} : { auth }), baseUrl });
    o.hook.before('request', (options) => {
      seen.push(String(options.url));
    });
    return o;
  };
  /** What the first hook (at /github) received, of one event or all. */
  const packets = (event?: string): ReceivedRequest[] =>
    receiver.requests.filter(
      (r) => r.url === '/github' && (event === undefined || r.headers['x-github-event'] === event),
    );
  const payload = (r: ReceivedRequest) => JSON.parse(r.body) as Record<string, JsonValue>;
  const waitFor = (what: string, pick: (r: ReceivedRequest) => boolean) =>
    until(what, () => receiver.requests.find(pick));

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    ({ world, host, twin, listening, receiver, appId, privateKey, tokens } = await startGitHubTwin(
      fresh.spec,
    ));
    baseUrl = `${listening.url}/github`;
    octocat = client(tokens[0]);
    hubot = client(tokens[1]);
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'engine' });
    const inst = await github.installApp(twin, {
      app: 'twin-ci',
      account: 'octo-org',
      sender: 'octocat',
    });
    installationId = inst.id;
    const hook = await octocat.rest.repos.createWebhook({
      owner: 'octo-org',
      repo: 'engine',
      config: { url: `${receiver.url}/github`, secret: SECRET, content_type: 'json' },
      events: ['*'],
    });
    hookId = hook.data.id;
  });
  afterAll(async () => {
    await closeGitHubTwin({ world, host, listening, receiver });
    cleanup?.();
  });

  it('the authenticated user; createWebhook answers 201 and sends `ping` to that hook', async () => {
    const me = await octocat.rest.users.getAuthenticated();
    expect(me.data).toMatchObject({ login: 'octocat', type: 'User' });
    expect(leaving(me.data as JsonValue, listening.url)).toEqual([]);
    const ping = await waitFor('ping', (r) => r.headers['x-github-event'] === 'ping');
    expect(payload(ping)).toMatchObject({
      hook_id: hookId,
      hook: { id: hookId, type: 'Repository' },
    });
    expect(ping.headers['x-github-hook-id']).toBe(String(hookId));
    const hooks = await octocat.rest.repos.listWebhooks({ owner: 'octo-org', repo: 'engine' });
    expect(hooks.data.map((h) => h.id)).toEqual([hookId]);
    expect(hooks.data[0]!.config).toMatchObject({
      secret: '********',
      url: `${receiver.url}/github`,
    });
    expect(leaving(hooks.data as JsonValue, listening.url, [receiver.url])).toEqual([]);
    // a second hook: ping it, narrow it, delete it (204s with no body)
    const second = await octocat.rest.repos.createWebhook({
      owner: 'octo-org',
      repo: 'engine',
      config: { url: `${receiver.url}/second`, secret: SECRET },
      events: ['issues'],
    });
    const at = { owner: 'octo-org', repo: 'engine', hook_id: second.data.id };
    await waitFor('the second ping', (r) => r.url === '/second');
    const pinged = await octocat.rest.repos.pingWebhook(at);
    expect([pinged.status, pinged.data]).toEqual([204, '']);
    await until('the second hook pinged twice', () =>
      receiver.requests.filter((r) => r.url === '/second').length === 2 ? true : undefined,
    );
    const narrowed = await octocat.rest.repos.updateWebhook({
      ...at,
      add_events: ['push'],
      active: false,
    });
    expect(narrowed.data).toMatchObject({ events: ['issues', 'push'], active: false });
    expect((await octocat.rest.repos.deleteWebhook(at)).status).toBe(204);
    await expect(octocat.rest.repos.getWebhook(at)).rejects.toMatchObject({ status: 404 });
    const left = await octocat.rest.repos.listWebhooks({ owner: 'octo-org', repo: 'engine' });
    expect(left.data.map((h) => h.id)).toEqual([hookId]);
  });

  it('repo → issue → comment → close: answers and issues/issue_comment webhooks on the twin origin', async () => {
    const repo = await octocat.rest.repos.get({ owner: 'octo-org', repo: 'engine' });
    expect(repo.data.url).toBe(`${baseUrl}/repos/octo-org/engine`);
    const issue = await octocat.rest.issues.create({
      owner: 'octo-org',
      repo: 'engine',
      title: 'Crash on start',
      body: 'It crashes.',
    });
    expect(issue.status).toBe(201);
    const n = issue.data.number;
    const comment = await hubot.rest.issues.createComment({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
      body: 'Same here',
    });
    expect(comment.data.body).toBe('Same here');
    const edited = await hubot.rest.issues.updateComment({
      owner: 'octo-org',
      repo: 'engine',
      comment_id: comment.data.id,
      body: 'Same here, on 2.1',
    });
    expect(edited.data.body).toBe('Same here, on 2.1');
    const reaction = await octocat.rest.reactions.createForIssue({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
      content: 'heart',
    });
    expect(reaction.status).toBe(201);
    const again = await octocat.rest.reactions.createForIssue({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
      content: 'heart',
    });
    expect([again.status, again.data.id]).toEqual([200, reaction.data.id]);
    const closed = await octocat.rest.issues.update({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
      state: 'closed',
    });
    expect(closed.data).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const listed = await octocat.rest.issues.listComments({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
    });
    expect(listed.data.map((c) => c.body)).toEqual(['Same here, on 2.1']);
    const got = await octocat.rest.issues.get({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
    });
    expect(got.data).toMatchObject({ state: 'closed', comments: 1 });
    expect(leaving(got.data as JsonValue, listening.url)).toEqual([]);

    const closedHook = await waitFor(
      'issues.closed',
      (r) => r.headers['x-github-event'] === 'issues' && payload(r).action === 'closed',
    );
    const events = packets()
      .filter((r) => ['issues', 'issue_comment'].includes(String(r.headers['x-github-event'])))
      .filter((r) => (payload(r).issue as { number: number }).number === n)
      .map((r) => `${r.headers['x-github-event']}.${payload(r).action}`);
    expect(events).toEqual(['issues.opened', 'issue_comment.created', 'issues.closed']);
    expect(leaving(payload(closedHook) as JsonValue, listening.url)).toEqual([]);
    expect((payload(closedHook).sender as { login: string }).login).toBe('octocat');
  });

  it('PR → review → merge: pull_request.closed with merged: true', async () => {
    const pr = await octocat.rest.pulls.create({
      owner: 'octo-org',
      repo: 'engine',
      title: 'Fix the crash',
      head: 'fix-crash',
      base: 'main',
    });
    expect(pr.status).toBe(201);
    const n = pr.data.number;
    const requested = await octocat.rest.pulls.requestReviewers({
      owner: 'octo-org',
      repo: 'engine',
      pull_number: n,
      reviewers: ['hubot'],
    });
    expect(requested.data.requested_reviewers?.map((u) => u.login)).toEqual(['hubot']);
    // a reviewer GitHub does not know is 422 for the request
    await expect(
      octocat.rest.pulls.requestReviewers({
        owner: 'octo-org',
        repo: 'engine',
        pull_number: n,
        reviewers: ['nobody-here'],
      }),
    ).rejects.toMatchObject({ status: 422 });
    const assigned = await octocat.rest.issues.addAssignees({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: n,
      assignees: ['octocat'],
    });
    expect(assigned.data.assignees?.map((u) => u.login)).toEqual(['octocat']);
    const review = await hubot.rest.pulls.createReview({
      owner: 'octo-org',
      repo: 'engine',
      pull_number: n,
      event: 'APPROVE',
    });
    expect(review.data.state).toBe('APPROVED');
    const files = await octocat.rest.pulls.listFiles({
      owner: 'octo-org',
      repo: 'engine',
      pull_number: n,
    });
    expect(files.data.length).toBeGreaterThan(0);
    const merged = await octocat.rest.pulls.merge({
      owner: 'octo-org',
      repo: 'engine',
      pull_number: n,
    });
    expect(merged.data).toMatchObject({ merged: true });
    const after = await octocat.rest.pulls.get({
      owner: 'octo-org',
      repo: 'engine',
      pull_number: n,
    });
    expect(after.data).toMatchObject({ state: 'closed', merged: true });
    await expect(
      octocat.rest.pulls.merge({ owner: 'octo-org', repo: 'engine', pull_number: n }),
    ).rejects.toMatchObject({ status: 405 });
    const closed = await waitFor(
      'pull_request.closed',
      (r) => r.headers['x-github-event'] === 'pull_request' && payload(r).action === 'closed',
    );
    expect(payload(closed)).toMatchObject({
      action: 'closed',
      number: n,
      pull_request: { merged: true, merge_commit_sha: merged.data.sha },
    });
    expect(leaving(payload(closed) as JsonValue, listening.url)).toEqual([]);
    const reviewed = await waitFor(
      'pull_request_review.submitted',
      (r) => r.headers['x-github-event'] === 'pull_request_review',
    );
    expect(payload(reviewed)).toMatchObject({ action: 'submitted', review: { state: 'approved' } });
    const asked = await waitFor(
      'pull_request.review_requested',
      (r) =>
        r.headers['x-github-event'] === 'pull_request' && payload(r).action === 'review_requested',
    );
    expect(payload(asked)).toMatchObject({ requested_reviewer: { login: 'hubot' } });
  });

  it('paginate(issues.listForRepo, {per_page: 30}) over 75 issues: 3 requests, all to the twin', async () => {
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'backlog' });
    for (let i = 0; i < 75; i++)
      await octocat.rest.issues.create({ owner: 'octo-org', repo: 'backlog', title: `issue ${i}` });
    const from = seen.length;
    const all = await octocat.paginate(octocat.rest.issues.listForRepo, {
      owner: 'octo-org',
      repo: 'backlog',
      per_page: 30,
    });
    const requests = seen.slice(from);
    expect(all).toHaveLength(75);
    expect(all.map((i) => i.number)).toEqual(Array.from({ length: 75 }, (_, i) => 75 - i));
    expect(requests).toHaveLength(3);
    for (const url of requests.slice(1)) expect(url.startsWith(`${baseUrl}/`)).toBe(true);
  });

  it('checks.create: an installation token succeeds; a user token gets 403', async () => {
    const app = client(appJwt(appId, privateKey));
    expect((await app.rest.apps.getAuthenticated()).data).toMatchObject({
      id: appId,
      slug: 'twin-ci',
    });
    const minted = await app.rest.apps.createInstallationAccessToken({
      installation_id: installationId,
    });
    expect(minted.status).toBe(201);
    expect(minted.data.token).toMatch(/^ghs_/);
    tokens.push(minted.data.token);
    const bot = client(minted.data.token);
    const main = await bot.rest.repos.getBranch({
      owner: 'octo-org',
      repo: 'engine',
      branch: 'main',
    });
    const run = await bot.rest.checks.create({
      owner: 'octo-org',
      repo: 'engine',
      name: 'build',
      head_sha: main.data.commit.sha,
      status: 'in_progress',
    });
    expect(run.status).toBe(201);
    expect(run.data).toMatchObject({ name: 'build', status: 'in_progress', app: { id: appId } });
    const done = await bot.rest.checks.update({
      owner: 'octo-org',
      repo: 'engine',
      check_run_id: run.data.id,
      conclusion: 'success',
      output: { title: 'Built', summary: 'all green' },
    });
    expect(done.data).toMatchObject({ status: 'completed', conclusion: 'success' });
    const refused = await octocat.rest.checks
      .create({ owner: 'octo-org', repo: 'engine', name: 'build', head_sha: main.data.commit.sha })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RequestError);
    expect(refused).toMatchObject({ status: 403 });
    // the App's JWT alone mints tokens but does not act on repositories
    await expect(
      app.rest.checks.create({
        owner: 'octo-org',
        repo: 'engine',
        name: 'x',
        head_sha: main.data.commit.sha,
      }),
    ).rejects.toMatchObject({ status: 403 });
    const created = await waitFor(
      'check_run.created',
      (r) => r.headers['x-github-event'] === 'check_run' && payload(r).action === 'created',
    );
    expect(payload(created).sender as { login: string; type: string }).toMatchObject({
      login: 'twin-ci[bot]',
      type: 'Bot',
    });
  });

  it('refusals: an empty title is RequestError 422 with errors[0].code; bad token 401; unknown 404', async () => {
    const error = await octocat.rest.issues
      .create({ owner: 'octo-org', repo: 'engine', title: '' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    const e = error as RequestError;
    expect(e.status).toBe(422);
    expect(e.response?.data).toMatchObject({
      message: 'Validation Failed',
      errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }],
    });
    await expect(
      client('ghp_notatokenthetwinevermintedxxxxxxxxx').rest.users.getAuthenticated(),
    ).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'Bad credentials' } },
    });
    await expect(
      octocat.rest.repos.get({ owner: 'octo-org', repo: 'nothing' }),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(octocat.request('GET /gists')).rejects.toMatchObject({ status: 404 });
    // an issue holds at most 100 labels: 101 at once is 422, and nothing is added
    const many = await octocat.rest.issues.create({
      owner: 'octo-org',
      repo: 'engine',
      title: 'L',
    });
    const labels = Array.from({ length: 101 }, (_, i) => `l${i}`);
    await expect(
      octocat.rest.issues.addLabels({
        owner: 'octo-org',
        repo: 'engine',
        issue_number: many.data.number,
        labels,
      }),
    ).rejects.toMatchObject({ status: 422 });
    await octocat.rest.issues.addLabels({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: many.data.number,
      labels: labels.slice(0, 100),
    });
    await expect(
      octocat.rest.issues.addLabels({
        owner: 'octo-org',
        repo: 'engine',
        issue_number: many.data.number,
        labels: ['one-more'],
      }),
    ).rejects.toMatchObject({ status: 422 });
    const kept = await octocat.rest.issues.get({
      owner: 'octo-org',
      repo: 'engine',
      issue_number: many.data.number,
    });
    expect(kept.data.labels).toHaveLength(100);
    // labels given to update would be dropped: refused, naming the call to use
    await expect(
      octocat.rest.issues.update({
        owner: 'octo-org',
        repo: 'engine',
        issue_number: many.data.number,
        labels: ['x'],
      }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [expect.objectContaining({ field: 'labels' })] } },
    });
    await expect(
      client().rest.issues.create({ owner: 'octo-org', repo: 'engine', title: 'x' }),
    ).rejects.toMatchObject({
      status: 401,
    });
  });

  it("hook deliveries are the twin's records; a redelivery makes exactly one new attempt", async () => {
    await host.idle();
    const listed = await octocat.paginate(octocat.rest.repos.listWebhookDeliveries, {
      owner: 'octo-org',
      repo: 'engine',
      hook_id: hookId,
      per_page: 100,
    });
    const records = await twin.read((view) =>
      view.list('hook_delivery').filter((r) => r.fields.endpointId === String(hookId)),
    );
    const attempts = await twin.read((view) => view.list('hook_delivery_attempt'));
    const ours = attempts.filter((a) => records.some((r) => r.id === a.fields.delivery));
    expect(listed.map((d) => String(d.id)).sort()).toEqual(ours.map((a) => a.id).sort());
    const ping = listed.find((d) => d.event === 'ping')!;
    expect(ping).toMatchObject({ status_code: 200, redelivery: false });
    const one = await octocat.rest.repos.getWebhookDelivery({
      owner: 'octo-org',
      repo: 'engine',
      hook_id: hookId,
      delivery_id: ping.id,
    });
    expect(one.data.request.payload).toMatchObject({ hook_id: hookId });
    const before = receiver.requests.length;
    const redo = await octocat.rest.repos.redeliverWebhookDelivery({
      owner: 'octo-org',
      repo: 'engine',
      hook_id: hookId,
      delivery_id: ping.id,
    });
    expect(redo.status).toBe(202);
    const again = await until('the redelivery', () =>
      receiver.requests.length > before ? receiver.requests[before] : undefined,
    );
    await host.idle();
    expect(receiver.requests.length).toBe(before + 1);
    expect(again.headers['x-github-delivery']).toBe(ping.guid);
    // newest first: the redelivery heads the list, the first ping (the oldest) ends it
    const relisted = await octocat.paginate(octocat.rest.repos.listWebhookDeliveries, {
      owner: 'octo-org',
      repo: 'engine',
      hook_id: hookId,
      per_page: 100,
    });
    expect(relisted.length).toBe(listed.length + 1);
    const pings = relisted.filter((d) => d.guid === ping.guid);
    expect(pings.map((d) => d.redelivery)).toEqual([true, false]);
    expect([relisted[0], relisted.at(-1)]).toEqual(pings);
  });

  it('every packet verifies with @octokit/webhooks-methods and carries X-Hub-Signature (sha1)', async () => {
    await host.idle();
    expect(receiver.requests.length).toBeGreaterThan(10);
    for (const r of receiver.requests) {
      const sig256 = String(r.headers['x-hub-signature-256']);
      expect(await verify(SECRET, r.body, sig256)).toBe(true);
      const sha1 = `sha1=${createHmac('sha1', SECRET).update(r.body).digest('hex')}`;
      expect(r.headers['x-hub-signature']).toBe(sha1);
      expect(leaving(payload(r) as JsonValue, listening.url, [receiver.url])).toEqual([]);
    }
  });

  it('1,000 GETs append nothing; the log replays to the live hash; no token or secret in it', async () => {
    await host.idle();
    const head = await twin.head();
    for (let batch = 0; batch < 20; batch++)
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i % 2 === 0
            ? octocat.rest.issues.listForRepo({ owner: 'octo-org', repo: 'backlog', per_page: 5 })
            : octocat.rest.repos.get({ owner: 'octo-org', repo: 'engine' }),
        ),
      );
    expect(await twin.head()).toBe(head);
    const lines = await collect(twin.exportLines());
    const text = lines.join('\n');
    for (const s of [...tokens, SECRET, privateKey.split('\n')[1]!]) expect(text).not.toContain(s);
    expect((await replayLines(lines)).hash).toBe(await twin.hash());
  });
});
