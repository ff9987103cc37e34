// GitHub pack: repository and organization hooks both reached by one write, payloads with
// action/repository/organization/sender, GitHub's delivery headers, no automatic retries, and a
// redelivery that keeps X-GitHub-Delivery — every packet verified by @octokit/webhooks-methods.
import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as github from '../../packs/github/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { header, githubVerifier } from './verifiers.js';
import { secrets, virtualWorld } from './support.js';

type Payload = Record<string, any>;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function world() {
  const w = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-05-01T12:00:00Z'),
    seed: 'github',
  });
  const twin = registerPack(w, github.pack);
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createUser(twin, { login: 'hubot' });
  await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
  await github.createRepository(twin, { owner: 'octocat', name: 'dotfiles' });
  // Deliveries other than the ping each new hook gets.
  const deliveries = async (kind?: string) =>
    (await twin.list('hook_delivery'))
      .filter(
        (d) =>
          d.fields.eventType !== 'ping' && (kind === undefined || d.fields.endpointKind === kind),
      )
      .sort((a, b) => a.version - b.version || (a.id < b.id ? -1 : 1));
  return { world: w, twin, deliveries };
}

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

describe('github payloads and hooks', () => {
  it('one issue write on an organization repository reaches its repository hook and its organization hook', async () => {
    const s = await world();
    const repoHook = await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://r.example.com',
      secret: 'r',
      events: ['issues'],
    });
    const orgHook = await github.createOrganizationHook(s.twin, {
      organization: 'octo-org',
      url: 'https://o.example.com',
      secret: 'o',
      events: ['*'],
    });
    const issue = await github.openIssue(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'Found a bug',
      sender: 'octocat',
    });
    const [toRepo, toOrg] = [
      await s.deliveries('repository_hook'),
      await s.deliveries('organization_hook'),
    ];
    expect(toRepo.map((d) => d.fields.endpointId)).toEqual([String(repoHook.id)]);
    expect(toOrg.map((d) => d.fields.endpointId)).toEqual([String(orgHook.id)]);
    // the same event, two deliveries, each with its own GUID
    expect(toRepo[0]!.fields.eventId).toBe(toOrg[0]!.fields.eventId);
    expect(toRepo[0]!.fields.messageId).not.toBe(toOrg[0]!.fields.messageId);
    const body = JSON.parse(String(toRepo[0]!.fields.body)) as Payload;
    expect(Object.keys(body)).toEqual(['action', 'issue', 'repository', 'organization', 'sender']);
    expect(body).toMatchObject({
      action: 'opened',
      issue: {
        number: issue.number,
        title: 'Found a bug',
        state: 'open',
        user: { login: 'octocat', type: 'User' },
        author_association: 'NONE',
      },
      repository: {
        full_name: 'octo-org/hello-world',
        owner: { login: 'octo-org', type: 'Organization' },
        open_issues_count: 1,
      },
      organization: { login: 'octo-org' },
      sender: { login: 'octocat' },
    });
    expect(Object.keys(body.issue).slice(0, 3)).toEqual(['url', 'repository_url', 'labels_url']);
  });

  it('a personal repository has no organization: org hooks are not reached, the payload has no organization', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, {
      repository: 'octocat/dotfiles',
      url: 'https://r.example.com',
      secret: 'r',
      events: ['issues'],
    });
    await github.createOrganizationHook(s.twin, {
      organization: 'octo-org',
      url: 'https://o.example.com',
      secret: 'o',
      events: ['*'],
    });
    await github.openIssue(s.twin, {
      repository: 'octocat/dotfiles',
      title: 'Typo',
      sender: 'octocat',
    });
    expect(await s.deliveries('organization_hook')).toHaveLength(0);
    const body = JSON.parse(
      String((await s.deliveries('repository_hook'))[0]!.fields.body),
    ) as Payload;
    expect(body).not.toHaveProperty('organization');
    expect(body.issue.author_association).toBe('OWNER');
  });

  it('hooks take only their events; an inactive hook takes nothing; a hook on another repository nothing', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://pr.example.com',
      secret: 's',
      events: ['pull_request'],
    });
    const off = await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://off.example.com',
      secret: 's',
      events: ['*'],
    });
    await github.updateHook(s.twin, 'repository_hook', off.id, { active: false });
    await github.createRepositoryHook(s.twin, {
      repository: 'octocat/dotfiles',
      url: 'https://other.example.com',
      secret: 's',
      events: ['*'],
    });
    await github.openIssue(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'Issue',
      sender: 'octocat',
    });
    expect(await s.deliveries()).toHaveLength(0);
    const pr = await github.openPullRequest(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'Feature',
      head: 'topic',
      sender: 'hubot',
    });
    expect(pr.number).toBe(2); // issues and pull requests share one sequence
    expect((await s.deliveries()).map((d) => d.fields.eventType)).toEqual(['pull_request.opened']);
  });

  it('edited carries changes.from; closed names the closer as sender; a no-op writes nothing', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://r.example.com',
      secret: 'r',
      events: ['issues'],
    });
    const issue = await github.openIssue(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'Old title',
      body: 'text',
      sender: 'octocat',
    });
    const ref = { repository: 'octo-org/hello-world', number: issue.number };
    await github.editIssue(s.twin, { ...ref, title: 'New title', sender: 'octocat' });
    const head = await s.twin.head();
    await github.editIssue(s.twin, { ...ref, title: 'New title', sender: 'octocat' });
    expect(await s.twin.head()).toBe(head);
    await github.closeIssue(s.twin, { ...ref, state_reason: 'not_planned', sender: 'hubot' });
    await github.closeIssue(s.twin, { ...ref, sender: 'hubot' });
    const bodies = (await s.deliveries()).map((d) => JSON.parse(String(d.fields.body)) as Payload);
    expect(bodies.map((b) => b.action)).toEqual(['opened', 'edited', 'closed']);
    expect(bodies[1]!.changes).toEqual({ title: { from: 'Old title' } });
    expect(bodies[1]!.issue.title).toBe('New title');
    expect(bodies[2]).toMatchObject({
      issue: { state: 'closed', state_reason: 'not_planned', user: { login: 'octocat' } },
      sender: { login: 'hubot' },
      repository: { open_issues_count: 0 },
    });
  });

  it('pull_request.closed with merge: merged, merged_by, number at the top level', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://r.example.com',
      secret: 'r',
      events: ['pull_request'],
    });
    const pr = await github.openPullRequest(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'Feature',
      head: 'topic',
      sender: 'hubot',
    });
    await github.closePullRequest(s.twin, {
      repository: 'octo-org/hello-world',
      number: pr.number,
      merge: true,
      sender: 'octocat',
    });
    const closed = JSON.parse(String((await s.deliveries()).at(-1)!.fields.body)) as Payload;
    expect(Object.keys(closed)).toEqual([
      'action',
      'number',
      'pull_request',
      'repository',
      'organization',
      'sender',
    ]);
    expect(closed).toMatchObject({
      action: 'closed',
      number: pr.number,
      pull_request: {
        state: 'closed',
        merged: true,
        merged_by: { login: 'octocat' },
        head: { ref: 'topic', repo: { full_name: 'octo-org/hello-world' } },
        base: { ref: 'main' },
      },
    });
    expect(closed.pull_request.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('refuses what GitHub refuses, with typed errors', async () => {
    const s = await world();
    await expect(github.createUser(s.twin, { login: 'octo-org' })).rejects.toThrow(
      expect.objectContaining({ vendorCode: 'validation_failed' }),
    );
    await expect(github.createUser(s.twin, { login: '-bad-' })).rejects.toThrow(
      expect.objectContaining({ path: 'login' }),
    );
    await expect(
      github.openIssue(s.twin, { repository: 'octo-org/nope', title: 'x', sender: 'octocat' }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    await expect(
      github.openIssue(s.twin, { repository: 'octo-org/hello-world', title: 'x', sender: 'ghost' }),
    ).rejects.toThrow(/user ghost/);
    await expect(
      github.createRepositoryHook(s.twin, {
        repository: 'octo-org/hello-world',
        url: 'https://x.example.com',
        secret: '',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'config.secret' }));
    await expect(
      github.closePullRequest(s.twin, {
        repository: 'octo-org/hello-world',
        number: 99,
        sender: 'octocat',
      }),
    ).rejects.toThrow(/pull request #99/);
    await expect(
      github.push(s.twin, {
        repository: 'octo-org/hello-world',
        branch: 'bad..name',
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'branch' }));
    await expect(
      github.push(s.twin, {
        repository: 'octo-org/hello-world',
        branch: 'topic',
        sender: 'octocat',
        messages: [],
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'messages' }));
    await expect(
      github.commentOnIssue(s.twin, {
        repository: 'octo-org/hello-world',
        number: 42,
        body: 'hi',
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'not_found', path: 'number' }));
    await expect(
      github.createCheckRun(s.twin, {
        repository: 'octo-org/hello-world',
        app: 'nope',
        name: 'build',
        sender: 'octocat',
      }),
    ).rejects.toThrow(/app nope/);
    await github.createApp(s.twin, { owner: 'octo-org', name: 'Twin CI' });
    await expect(github.createApp(s.twin, { owner: 'octo-org', name: 'Twin CI' })).rejects.toThrow(
      expect.objectContaining({ path: 'name' }),
    );
    await expect(
      github.createApp(s.twin, {
        owner: 'octo-org',
        name: 'Hooked',
        webhook_url: 'https://x.example.com',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'webhook_secret' }));
    await expect(
      github.createCheckRun(s.twin, {
        repository: 'octo-org/hello-world',
        app: 'twin-ci',
        name: 'build',
        head_branch: 'nope',
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'head_branch' }));
    const run = await github.createCheckRun(s.twin, {
      repository: 'octo-org/hello-world',
      app: 'twin-ci',
      name: 'build',
      sender: 'octocat',
    });
    await expect(
      github.completeCheckRun(s.twin, {
        repository: 'octo-org/hello-world',
        check_run_id: run.id,
        conclusion: 'great' as never,
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'conclusion' }));
    await github.completeCheckRun(s.twin, {
      repository: 'octo-org/hello-world',
      check_run_id: run.id,
      conclusion: 'success',
      sender: 'octocat',
    });
    await expect(
      github.completeCheckRun(s.twin, {
        repository: 'octo-org/hello-world',
        check_run_id: run.id,
        conclusion: 'success',
        sender: 'octocat',
      }),
    ).rejects.toThrow(/already completed/);
    const wf = await github.requestWorkflowRun(s.twin, {
      repository: 'octo-org/hello-world',
      workflow: 'CI',
      sender: 'octocat',
    });
    await expect(
      github.requestWorkflowRun(s.twin, {
        repository: 'octo-org/hello-world',
        workflow: 'CI',
        path: 'ci.yml',
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'path' }));
    await github.completeWorkflowRun(s.twin, {
      repository: 'octo-org/hello-world',
      run_id: wf.id,
      conclusion: 'cancelled',
      sender: 'octocat',
    });
    await expect(
      github.startWorkflowRun(s.twin, {
        repository: 'octo-org/hello-world',
        run_id: wf.id,
        sender: 'octocat',
      }),
    ).rejects.toThrow(/only a requested run can start/);
    await github.publishRelease(s.twin, {
      repository: 'octo-org/hello-world',
      tag_name: 'v1.0.0',
      sender: 'octocat',
    });
    await expect(
      github.publishRelease(s.twin, {
        repository: 'octo-org/hello-world',
        tag_name: 'v1.0.0',
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'tag_name' }));
    await github.installApp(s.twin, { app: 'twin-ci', account: 'octo-org', sender: 'octocat' });
    await expect(
      github.installApp(s.twin, { app: 'twin-ci', account: 'octo-org', sender: 'octocat' }),
    ).rejects.toThrow(/already installed/);
    await expect(
      github.installApp(s.twin, {
        app: 'twin-ci',
        account: 'octocat',
        repositories: ['octo-org/hello-world'],
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'repositories[0]' }));
  });

  it('a new hook gets a ping — it alone, whatever the other hooks subscribe to; pingHook sends another', async () => {
    const s = await world();
    const all = await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://all.example.com',
      secret: 'a',
      events: ['*'],
    });
    const org = await github.createOrganizationHook(s.twin, {
      organization: 'octo-org',
      url: 'https://org.example.com',
      secret: 'o',
      events: ['*'],
    });
    const pushes = await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://push.example.com',
      secret: 'p',
      events: ['push'],
    });
    await github.pingHook(s.twin, 'repository_hook', all.id);
    const pings = (await s.twin.list('hook_delivery'))
      .filter((d) => d.fields.eventType === 'ping')
      .sort((a, b) => a.version - b.version);
    expect(pings.map((d) => d.fields.endpointId)).toEqual(
      [all.id, org.id, pushes.id, all.id].map(String),
    );
    const body = JSON.parse(String(pings[1]!.fields.body)) as Payload;
    expect(Object.keys(body)).toEqual(['zen', 'hook_id', 'hook', 'organization']);
    expect(body).toMatchObject({
      hook_id: org.id,
      hook: {
        type: 'Organization',
        id: org.id,
        events: ['*'],
        config: { url: 'https://org.example.com', content_type: 'json' },
      },
      organization: { login: 'octo-org' },
    });
    expect(JSON.parse(String(pings[2]!.fields.body))).toMatchObject({
      hook: { type: 'Repository', events: ['push'] },
      repository: { full_name: 'octo-org/hello-world' },
    });
    // The push-only hook takes pushes, not issues; its filter took the ping.
    await github.openIssue(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'x',
      sender: 'octocat',
    });
    await github.push(s.twin, {
      repository: 'octo-org/hello-world',
      branch: 'main',
      sender: 'octocat',
    });
    const to = async (hook: { id: number }) =>
      (await s.deliveries())
        .filter((d) => d.fields.endpointId === String(hook.id))
        .map((d) => d.fields.eventType);
    expect(await to(pushes)).toEqual(['push']);
    expect(await to(all)).toEqual(['issues.opened', 'push']);
    expect(await to(org)).toEqual(['issues.opened', 'push']);
  });

  it('a push to the head of an open pull request synchronizes it in the same commit; a merge pushes to the base', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, {
      repository: 'octo-org/hello-world',
      url: 'https://r.example.com',
      secret: 'r',
      events: ['push', 'pull_request'],
    });
    await github.push(s.twin, {
      repository: 'octo-org/hello-world',
      branch: 'topic',
      sender: 'hubot',
      messages: ['one', 'two'],
    });
    const pr = await github.openPullRequest(s.twin, {
      repository: 'octo-org/hello-world',
      title: 'Feature',
      head: 'topic',
      sender: 'hubot',
    });
    const head = await s.twin.head();
    const pushed = await github.push(s.twin, {
      repository: 'octo-org/hello-world',
      branch: 'topic',
      sender: 'hubot',
      messages: ['three'],
    });
    expect(
      (await s.twin.entries({ after: head }))
        .filter((e) => !e.operation.startsWith('hook_delivery'))
        .map((e) => e.operation),
    ).toEqual(['branch.push', 'pull_request.synchronize']);
    await github.closePullRequest(s.twin, {
      repository: 'octo-org/hello-world',
      number: pr.number,
      merge: true,
      sender: 'octocat',
    });
    const bodies = (await s.deliveries()).map(
      (d) => [d.fields.eventType, JSON.parse(String(d.fields.body))] as [string, Payload],
    );
    expect(bodies.map(([t]) => t)).toEqual([
      'push',
      'pull_request.opened',
      'push',
      'pull_request.synchronize',
      'pull_request.closed',
      'push',
    ]);
    const [first, , second, sync, closed, merge] = bodies.map(([, b]) => b);
    expect(first).toMatchObject({
      ref: 'refs/heads/topic',
      created: true,
      before: '0'.repeat(40),
      commits: [{ message: 'one' }, { message: 'two' }],
      head_commit: { message: 'two' },
      pusher: { name: 'hubot' },
      sender: { login: 'hubot' },
    });
    expect(first!.repository.created_at).toEqual(expect.any(Number)); // the push payload's repository has integer times, as GitHub's
    expect(second).toMatchObject({ before: first!.after, after: pushed.after, created: false });
    expect(sync).toMatchObject({
      action: 'synchronize',
      before: first!.after,
      after: pushed.after,
      pull_request: { head: { sha: pushed.after }, commits: 2 },
    });
    expect(merge).toMatchObject({
      ref: 'refs/heads/main',
      after: closed!.pull_request.merge_commit_sha,
      head_commit: { message: expect.stringContaining(`Merge pull request #${pr.number}`) },
    });
  });
});

describe('github delivery over HTTP', () => {
  it('headers as GitHub sends them; no automatic retry; a redelivery keeps X-GitHub-Delivery and verifies', async () => {
    const statuses = [200, 200, 200, 200];
    const receiver = await startReceiver(() => statuses.shift() ?? 200);
    receivers.push(receiver);
    const { clock, world: w, twin, dispatcher } = virtualWorld(github.pack);
    const [repoSecret, orgSecret] = [secrets.github(), secrets.github()];
    await github.createOrganization(twin, { login: 'octo-org' });
    await github.createUser(twin, { login: 'octocat' });
    const repo = await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
    const repoHook = await github.createRepositoryHook(twin, {
      repository: repo.full_name,
      url: `${receiver.url}/repo`,
      secret: repoSecret,
      events: ['issues'],
    });
    const orgHook = await github.createOrganizationHook(twin, {
      organization: 'octo-org',
      url: `${receiver.url}/org`,
      secret: orgSecret,
      events: ['issues'],
    });
    await dispatcher.idle();
    // Each new hook got its ping.
    expect(receiver.requests.map((r) => header(r, 'x-github-event'))).toEqual(['ping', 'ping']);
    receiver.requests.length = 0;
    statuses.unshift(500);
    await github.openIssue(twin, {
      repository: repo.full_name,
      title: 'Found a bug',
      sender: 'octocat',
    });
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(2);
    await clock.advance(3 * 24 * 3600_000);
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(2); // GitHub never retries on its own

    const failed = (await twin.list('hook_delivery')).find(
      (d) => d.fields.state === 'failed' && d.fields.eventType === 'issues.opened',
    )!;
    const first = receiver.requests.find(
      (r) => r.url === (failed.fields.endpointKind === 'repository_hook' ? '/repo' : '/org'),
    )!;
    const again = await dispatcher.redeliver(failed.id);
    expect(again).toMatchObject({ number: 2, kind: 'redeliver', outcome: 'succeeded' });
    const redelivered = receiver.requests[2]!;
    expect(header(redelivered, 'x-github-delivery')).toBe(header(first, 'x-github-delivery'));
    expect(header(redelivered, 'x-github-delivery')).toMatch(GUID);
    expect(redelivered.body).toBe(first.body);

    for (const req of receiver.requests) {
      const isRepo = req.url === '/repo';
      const body = await githubVerifier.verify(req, isRepo ? repoSecret : orgSecret);
      expect(githubVerifier.eventType(req, body)).toBe('issues.opened');
      expect(header(req, 'user-agent')).toMatch(/^GitHub-Hookshot\/[0-9a-f]{7}$/);
      expect(header(req, 'content-type')).toBe('application/json');
      expect(header(req, 'x-github-hook-id')).toBe(String(isRepo ? repoHook.id : orgHook.id));
      expect(header(req, 'x-github-hook-installation-target-type')).toBe(
        isRepo ? 'repository' : 'organization',
      );
      expect(header(req, 'x-github-hook-installation-target-id')).toBe(
        String(isRepo ? repo.id : (body.organization as { id: number }).id),
      );
      // The legacy header, checked against an HMAC-SHA1 computed here, beside Octokit's check of the SHA-256 one.
      expect(header(req, 'x-hub-signature')).toBe(
        `sha1=${createHmac('sha1', isRepo ? repoSecret : orgSecret)
          .update(req.body)
          .digest('hex')}`,
      );
    }
    // each hook's secret signs only its own packets
    await expect(
      githubVerifier.verify(
        receiver.requests.find((r) => r.url === '/repo')!,
        orgSecret,
      ),
    ).rejects.toThrow();
    await w.close();
  });

  it("an app's webhook gets its installations, as an integration; every event's packet verifies both ways", async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const { world: w, twin, dispatcher } = virtualWorld(github.pack, 'github-app');
    const secret = secrets.github();
    await github.createOrganization(twin, { login: 'octo-org' });
    await github.createUser(twin, { login: 'octocat' });
    const repo = await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
    const app = await github.createApp(twin, {
      owner: 'octo-org',
      name: 'Deploy Bot',
      webhook_url: `${receiver.url}/app`,
      webhook_secret: secret,
    });
    await github.createRepositoryHook(twin, {
      repository: repo.full_name,
      url: `${receiver.url}/repo`,
      secret,
      events: ['*'],
    });
    const inst = await github.installApp(twin, {
      app: app.slug,
      account: 'octo-org',
      repositories: [repo.full_name],
      sender: 'octocat',
    });
    await github.uninstallApp(twin, { installation: inst.id, sender: 'octocat' });
    await dispatcher.idle();
    const byPath = (path: string) => receiver.requests.filter((r) => r.url === path);
    expect(
      byPath('/app').map((r) => `${header(r, 'x-github-event')}.${JSON.parse(r.body).action}`),
    ).toEqual(['installation.created', 'installation.deleted']);
    expect(byPath('/repo').map((r) => header(r, 'x-github-event'))).toEqual(['ping']); // repository hooks do not get installations
    for (const req of receiver.requests) {
      expect(await octokitVerify(secret, req.body, header(req, 'x-hub-signature-256'))).toBe(true);
      expect(header(req, 'x-hub-signature')).toBe(
        `sha1=${createHmac('sha1', secret).update(req.body).digest('hex')}`,
      );
    }
    const created = JSON.parse(byPath('/app')[0]!.body) as Payload;
    expect(created).toMatchObject({
      installation: {
        id: inst.id,
        app_id: app.id,
        account: { login: 'octo-org', type: 'Organization' },
        repository_selection: 'selected',
      },
      repositories: [{ full_name: repo.full_name }],
      sender: { login: 'octocat' },
    });
    expect(header(byPath('/app')[0]!, 'x-github-hook-installation-target-type')).toBe(
      'integration',
    );
    expect(header(byPath('/app')[0]!, 'x-github-hook-installation-target-id')).toBe(String(app.id));
    await w.close();
  });
});
