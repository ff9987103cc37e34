// GitHub pack: repository and organization hooks both reached by one write, payloads with
// action/repository/organization/sender, GitHub's delivery headers, no automatic retries, and a
// redelivery that keeps X-GitHub-Delivery — every packet verified by @octokit/webhooks-methods.
import { afterAll, describe, expect, it } from 'vitest';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as github from '../../packs/github/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { header, githubVerifier } from './verifiers.js';
import { secrets, virtualWorld } from './support.js';

type Payload = Record<string, any>;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function world() {
  const w = openWorld({ root: ':memory:', clock: new VirtualClock('2026-05-01T12:00:00Z'), seed: 'github' });
  const twin = registerPack(w, github.pack);
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createUser(twin, { login: 'hubot' });
  await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
  await github.createRepository(twin, { owner: 'octocat', name: 'dotfiles' });
  const deliveries = async (kind?: string) =>
    (await twin.list('hook_delivery'))
      .filter((d) => kind === undefined || d.fields.endpointKind === kind)
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
    const repoHook = await github.createRepositoryHook(s.twin, { repository: 'octo-org/hello-world', url: 'https://r.example.com', secret: 'r', events: ['issues'] });
    const orgHook = await github.createOrganizationHook(s.twin, { organization: 'octo-org', url: 'https://o.example.com', secret: 'o', events: ['*'] });
    const issue = await github.openIssue(s.twin, { repository: 'octo-org/hello-world', title: 'Found a bug', sender: 'octocat' });
    const [toRepo, toOrg] = [await s.deliveries('repository_hook'), await s.deliveries('organization_hook')];
    expect(toRepo.map((d) => d.fields.endpointId)).toEqual([String(repoHook.id)]);
    expect(toOrg.map((d) => d.fields.endpointId)).toEqual([String(orgHook.id)]);
    // the same event, two deliveries, each with its own GUID
    expect(toRepo[0]!.fields.eventId).toBe(toOrg[0]!.fields.eventId);
    expect(toRepo[0]!.fields.messageId).not.toBe(toOrg[0]!.fields.messageId);
    const body = JSON.parse(String(toRepo[0]!.fields.body)) as Payload;
    expect(Object.keys(body)).toEqual(['action', 'issue', 'repository', 'organization', 'sender']);
    expect(body).toMatchObject({
      action: 'opened',
      issue: { number: issue.number, title: 'Found a bug', state: 'open', user: { login: 'octocat', type: 'User' }, author_association: 'NONE' },
      repository: { full_name: 'octo-org/hello-world', owner: { login: 'octo-org', type: 'Organization' }, open_issues_count: 1 },
      organization: { login: 'octo-org' },
      sender: { login: 'octocat' },
    });
    expect(Object.keys(body.issue).slice(0, 3)).toEqual(['url', 'repository_url', 'labels_url']);
  });

  it('a personal repository has no organization: org hooks are not reached, the payload has no organization', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, { repository: 'octocat/dotfiles', url: 'https://r.example.com', secret: 'r', events: ['issues'] });
    await github.createOrganizationHook(s.twin, { organization: 'octo-org', url: 'https://o.example.com', secret: 'o', events: ['*'] });
    await github.openIssue(s.twin, { repository: 'octocat/dotfiles', title: 'Typo', sender: 'octocat' });
    expect(await s.deliveries('organization_hook')).toHaveLength(0);
    const body = JSON.parse(String((await s.deliveries('repository_hook'))[0]!.fields.body)) as Payload;
    expect(body).not.toHaveProperty('organization');
    expect(body.issue.author_association).toBe('OWNER');
  });

  it('hooks take only their events; an inactive hook takes nothing; a hook on another repository nothing', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, { repository: 'octo-org/hello-world', url: 'https://pr.example.com', secret: 's', events: ['pull_request'] });
    const off = await github.createRepositoryHook(s.twin, { repository: 'octo-org/hello-world', url: 'https://off.example.com', secret: 's', events: ['*'] });
    await github.updateHook(s.twin, 'repository_hook', off.id, { active: false });
    await github.createRepositoryHook(s.twin, { repository: 'octocat/dotfiles', url: 'https://other.example.com', secret: 's', events: ['*'] });
    await github.openIssue(s.twin, { repository: 'octo-org/hello-world', title: 'Issue', sender: 'octocat' });
    expect(await s.deliveries()).toHaveLength(0);
    const pr = await github.openPullRequest(s.twin, { repository: 'octo-org/hello-world', title: 'Feature', head: 'topic', sender: 'hubot' });
    expect(pr.number).toBe(2); // issues and pull requests share one sequence
    expect((await s.deliveries()).map((d) => d.fields.eventType)).toEqual(['pull_request.opened']);
  });

  it('edited carries changes.from; closed names the closer as sender; a no-op writes nothing', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, { repository: 'octo-org/hello-world', url: 'https://r.example.com', secret: 'r', events: ['issues'] });
    const issue = await github.openIssue(s.twin, { repository: 'octo-org/hello-world', title: 'Old title', body: 'text', sender: 'octocat' });
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
    expect(bodies[2]).toMatchObject({ issue: { state: 'closed', state_reason: 'not_planned', user: { login: 'octocat' } }, sender: { login: 'hubot' }, repository: { open_issues_count: 0 } });
  });

  it('pull_request.closed with merge: merged, merged_by, number at the top level', async () => {
    const s = await world();
    await github.createRepositoryHook(s.twin, { repository: 'octo-org/hello-world', url: 'https://r.example.com', secret: 'r', events: ['pull_request'] });
    const pr = await github.openPullRequest(s.twin, { repository: 'octo-org/hello-world', title: 'Feature', head: 'topic', sender: 'hubot' });
    await github.closePullRequest(s.twin, { repository: 'octo-org/hello-world', number: pr.number, merge: true, sender: 'octocat' });
    const closed = JSON.parse(String((await s.deliveries()).at(-1)!.fields.body)) as Payload;
    expect(Object.keys(closed)).toEqual(['action', 'number', 'pull_request', 'repository', 'organization', 'sender']);
    expect(closed).toMatchObject({ action: 'closed', number: pr.number, pull_request: { state: 'closed', merged: true, merged_by: { login: 'octocat' }, head: { ref: 'topic', repo: { full_name: 'octo-org/hello-world' } }, base: { ref: 'main' } } });
    expect(closed.pull_request.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('refuses what GitHub refuses, with typed errors', async () => {
    const s = await world();
    await expect(github.createUser(s.twin, { login: 'octo-org' })).rejects.toThrow(expect.objectContaining({ vendorCode: 'validation_failed' }));
    await expect(github.createUser(s.twin, { login: '-bad-' })).rejects.toThrow(expect.objectContaining({ path: 'login' }));
    await expect(github.openIssue(s.twin, { repository: 'octo-org/nope', title: 'x', sender: 'octocat' })).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    await expect(github.openIssue(s.twin, { repository: 'octo-org/hello-world', title: 'x', sender: 'ghost' })).rejects.toThrow(/user ghost/);
    await expect(github.createRepositoryHook(s.twin, { repository: 'octo-org/hello-world', url: 'https://x.example.com', secret: '' })).rejects.toThrow(expect.objectContaining({ path: 'config.secret' }));
    await expect(github.closePullRequest(s.twin, { repository: 'octo-org/hello-world', number: 99, sender: 'octocat' })).rejects.toThrow(/pull request #99/);
  });
});

describe('github delivery over HTTP', () => {
  it('headers as GitHub sends them; no automatic retry; a redelivery keeps X-GitHub-Delivery and verifies', async () => {
    const statuses = [500, 200, 200, 200];
    const receiver = await startReceiver(() => statuses.shift() ?? 200);
    receivers.push(receiver);
    const { clock, world: w, twin, dispatcher } = virtualWorld(github.pack);
    const [repoSecret, orgSecret] = [secrets.github(), secrets.github()];
    await github.createOrganization(twin, { login: 'octo-org' });
    await github.createUser(twin, { login: 'octocat' });
    const repo = await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
    const repoHook = await github.createRepositoryHook(twin, { repository: repo.full_name, url: `${receiver.url}/repo`, secret: repoSecret, events: ['issues'] });
    const orgHook = await github.createOrganizationHook(twin, { organization: 'octo-org', url: `${receiver.url}/org`, secret: orgSecret, events: ['issues'] });
    await github.openIssue(twin, { repository: repo.full_name, title: 'Found a bug', sender: 'octocat' });
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(2);
    await clock.advance(3 * 24 * 3600_000);
    await dispatcher.idle();
    expect(receiver.requests).toHaveLength(2); // GitHub never retries on its own

    const failed = (await twin.list('hook_delivery')).find((d) => d.fields.state === 'failed')!;
    const first = receiver.requests.find((r) => r.url === (failed.fields.endpointKind === 'repository_hook' ? '/repo' : '/org'))!;
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
      expect(header(req, 'x-github-hook-installation-target-type')).toBe(isRepo ? 'repository' : 'organization');
      expect(header(req, 'x-github-hook-installation-target-id')).toBe(String(isRepo ? repo.id : (body.organization as { id: number }).id));
    }
    // each hook's secret signs only its own packets
    await expect(githubVerifier.verify(receiver.requests.find((r) => r.url === '/repo')!, orgSecret)).rejects.toThrow();
    await w.close();
  });
});
