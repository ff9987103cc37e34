// The GitHub events of triage, review, jobs, branches, statuses and installation repositories:
// one event per label, assignee or reviewer added (and none for one already there), the added
// one named in the payload, and each refusal GitHub makes — typed, with nothing appended.
import { describe, expect, it } from 'vitest';
import { openWorld, registerPack, VirtualClock } from '../../src/index.js';
import * as github from '../../packs/github/index.js';

type Payload = Record<string, any>;
const REPO = 'octo-org/hello-world';

async function world() {
  const w = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-05-01T12:00:00Z'),
    seed: 'gh-review',
  });
  const twin = registerPack(w, github.pack);
  await github.createOrganization(twin, { login: 'octo-org' });
  await github.createUser(twin, { login: 'octocat' });
  await github.createUser(twin, { login: 'hubot' });
  await github.createRepository(twin, { owner: 'octo-org', name: 'hello-world' });
  await github.createRepositoryHook(twin, {
    repository: REPO,
    url: 'https://ci.example.com',
    secret: 's',
    events: ['*'],
  });
  const sent = async (type?: string) =>
    (await twin.list('hook_delivery'))
      .sort((a, b) => a.version - b.version || (a.id < b.id ? -1 : 1))
      .filter(
        (d) => d.fields.eventType !== 'ping' && (type === undefined || d.fields.eventType === type),
      )
      .map((d) => JSON.parse(String(d.fields.body)) as Payload);
  const logLength = () => twin.head();
  return { world: w, twin, sent, logLength };
}

const by = { repository: REPO, sender: 'octocat' };

describe('github triage, reviews, jobs, branches and statuses', () => {
  it('labels: one labeled event per new label, the label made once per repository, none for a label already on', async () => {
    const s = await world();
    const issue = await github.openIssue(s.twin, { ...by, title: 'Bug' });
    await github.addLabels(s.twin, { ...by, number: issue.number, labels: ['bug', 'p1'] });
    await github.addLabels(s.twin, { ...by, number: issue.number, labels: ['BUG'] });
    const labeled = await s.sent('issues.labeled');
    expect(labeled.map((p) => p.label.name)).toEqual(['bug', 'p1']);
    expect(labeled[1]!.issue.labels.map((l: Payload) => l.name)).toEqual(['bug', 'p1']);
    const pull = await github.openPullRequest(s.twin, { ...by, title: 'Fix', head: 'fix' });
    await github.addLabels(s.twin, { ...by, number: pull.number, labels: ['bug'] });
    const [prLabeled] = await s.sent('pull_request.labeled');
    // The repository's label, reused: same id as on the issue.
    expect(prLabeled!.label.id).toBe(labeled[0]!.label.id);
    expect(prLabeled!.pull_request.labels).toHaveLength(1);
    const before = await s.logLength();
    await expect(
      github.addLabels(s.twin, { ...by, number: issue.number, labels: [] }),
    ).rejects.toThrow(expect.objectContaining({ vendorCode: 'validation_failed', path: 'labels' }));
    await expect(github.addLabels(s.twin, { ...by, number: 99, labels: ['x'] })).rejects.toThrow(
      expect.objectContaining({ kind: 'not_found' }),
    );
    expect(await s.logLength()).toBe(before);
    await s.world.close();
  });

  it('assignees and reviewers: the added person is in the payload; unknown users and self-review are refused', async () => {
    const s = await world();
    const issue = await github.openIssue(s.twin, { ...by, title: 'Bug' });
    await github.assignIssue(s.twin, {
      ...by,
      number: issue.number,
      assignees: ['hubot', 'octocat'],
    });
    const assigned = await s.sent('issues.assigned');
    expect(assigned.map((p) => p.assignee.login)).toEqual(['hubot', 'octocat']);
    expect(assigned[1]!.issue.assignee.login).toBe('hubot');
    const pull = await github.openPullRequest(s.twin, { ...by, title: 'Fix', head: 'fix' });
    await github.requestReviewers(s.twin, { ...by, number: pull.number, reviewers: ['hubot'] });
    await github.requestReviewers(s.twin, { ...by, number: pull.number, reviewers: ['hubot'] });
    const requested = await s.sent('pull_request.review_requested');
    expect(requested).toHaveLength(1);
    expect(requested[0]!.requested_reviewer.login).toBe('hubot');
    expect(requested[0]!.pull_request.requested_reviewers.map((u: Payload) => u.login)).toEqual([
      'hubot',
    ]);
    const before = await s.logLength();
    await expect(
      github.assignIssue(s.twin, { ...by, number: issue.number, assignees: ['ghost'] }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'not_found', path: 'assignees[0]' }));
    await expect(
      github.requestReviewers(s.twin, { ...by, number: pull.number, reviewers: ['octocat'] }),
    ).rejects.toThrow(/author/);
    await expect(
      github.requestReviewers(s.twin, { ...by, number: issue.number, reviewers: ['hubot'] }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(await s.logLength()).toBe(before);
    await s.world.close();
  });

  it('a pull request edited (changes hold the old title), closed, reopened; a merged one cannot reopen', async () => {
    const s = await world();
    const pull = await github.openPullRequest(s.twin, { ...by, title: 'Fix', head: 'fix' });
    await github.editPullRequest(s.twin, { ...by, number: pull.number, title: 'Fix the parser' });
    await github.editPullRequest(s.twin, { ...by, number: pull.number, title: 'Fix the parser' });
    const edited = await s.sent('pull_request.edited');
    expect(edited).toHaveLength(1);
    expect(edited[0]!.changes).toEqual({ title: { from: 'Fix' } });
    await github.closePullRequest(s.twin, { ...by, number: pull.number });
    await github.reopenPullRequest(s.twin, { ...by, number: pull.number });
    const [reopened] = await s.sent('pull_request.reopened');
    expect(reopened!.pull_request).toMatchObject({ state: 'open', closed_at: null, merged: false });
    expect(reopened!.repository.open_issues_count).toBe(1);
    await github.closePullRequest(s.twin, { ...by, number: pull.number, merge: true });
    const before = await s.logLength();
    await expect(github.reopenPullRequest(s.twin, { ...by, number: pull.number })).rejects.toThrow(
      /merged/,
    );
    await expect(
      github.editPullRequest(s.twin, { ...by, number: pull.number, title: '  ' }),
    ).rejects.toThrow(expect.objectContaining({ path: 'title' }));
    expect(await s.logLength()).toBe(before);
    await s.world.close();
  });

  it('reviews: an approval and a line comment (its own commented review) render the pull request; authors cannot approve', async () => {
    const s = await world();
    const pull = await github.openPullRequest(s.twin, { ...by, title: 'Fix', head: 'fix' });
    const review = await github.submitReview(s.twin, {
      ...by,
      sender: 'hubot',
      number: pull.number,
      event: 'APPROVE',
    });
    const comment = await github.commentOnPullRequestLine(s.twin, {
      ...by,
      sender: 'hubot',
      number: pull.number,
      path: 'src/parser.ts',
      line: 12,
      body: 'Off by one?',
    });
    const submitted = await s.sent('pull_request_review.submitted');
    expect(submitted.map((p) => p.review.state)).toEqual(['approved', 'commented']);
    expect(submitted[0]!.review.id).toBe(review.id);
    expect(submitted[0]!.pull_request.number).toBe(pull.number);
    const [created] = await s.sent('pull_request_review_comment.created');
    expect(created!.comment).toMatchObject({
      id: comment.id,
      pull_request_review_id: submitted[1]!.review.id,
      path: 'src/parser.ts',
      line: 12,
      commit_id: pull.head.sha,
    });
    const before = await s.logLength();
    await expect(
      github.submitReview(s.twin, { ...by, number: pull.number, event: 'APPROVE' }),
    ).rejects.toThrow(/own pull request/);
    await expect(
      github.submitReview(s.twin, { ...by, sender: 'hubot', number: pull.number, event: 'LGTM' }),
    ).rejects.toThrow(expect.objectContaining({ path: 'event' }));
    await expect(
      github.commentOnPullRequestLine(s.twin, {
        ...by,
        number: pull.number,
        path: 'a',
        line: 0,
        body: 'x',
      }),
    ).rejects.toThrow(expect.objectContaining({ path: 'line' }));
    expect(await s.logLength()).toBe(before);
    await s.world.close();
  });

  it('jobs queue and complete; branches are created and deleted; a status names the branches at its commit', async () => {
    const s = await world();
    const run = await github.requestWorkflowRun(s.twin, { ...by, workflow: 'CI' });
    const job = await github.queueWorkflowJob(s.twin, { ...by, run_id: run.id, name: 'test' });
    await github.completeWorkflowJob(s.twin, { ...by, job_id: job.id, conclusion: 'failure' });
    const jobs = [
      ...(await s.sent('workflow_job.queued')),
      ...(await s.sent('workflow_job.completed')),
    ];
    expect(jobs.map((p) => [p.action, p.workflow_job.status, p.workflow_job.conclusion])).toEqual([
      ['queued', 'queued', null],
      ['completed', 'completed', 'failure'],
    ]);
    expect(jobs[1]!.workflow_job.run_id).toBe(run.id);
    const branch = await github.createBranch(s.twin, { ...by, branch: 'release' });
    await github.createCommitStatus(s.twin, {
      ...by,
      sha: branch.sha,
      state: 'pending',
      context: 'ci',
    });
    await github.deleteBranch(s.twin, { ...by, branch: 'release' });
    const [create] = await s.sent('create');
    expect(create).toMatchObject({ ref: 'release', ref_type: 'branch', master_branch: 'main' });
    const [status] = await s.sent('status');
    expect(status).toMatchObject({ sha: branch.sha, state: 'pending', context: 'ci' });
    expect(status!.branches.map((b: Payload) => b.name)).toEqual(['main', 'release']);
    expect((await s.sent('delete'))[0]).toMatchObject({ ref: 'release', ref_type: 'branch' });
    const before = await s.logLength();
    await expect(github.deleteBranch(s.twin, { ...by, branch: 'main' })).rejects.toThrow(
      /default branch/,
    );
    await expect(github.deleteBranch(s.twin, { ...by, branch: 'release' })).rejects.toThrow(
      /does not exist/,
    );
    await expect(github.createBranch(s.twin, { ...by, branch: 'main' })).rejects.toThrow(
      /already exists/,
    );
    await expect(
      github.createCommitStatus(s.twin, { ...by, sha: 'f'.repeat(40), state: 'success' }),
    ).rejects.toThrow(/No commit found/);
    await expect(
      github.createCommitStatus(s.twin, { ...by, sha: branch.sha, state: 'green' as never }),
    ).rejects.toThrow(expect.objectContaining({ path: 'state' }));
    await expect(
      github.completeWorkflowJob(s.twin, { ...by, job_id: job.id, conclusion: 'success' }),
    ).rejects.toThrow(/already completed/);
    expect(await s.logLength()).toBe(before);
    await s.world.close();
  });

  it("installation repositories: added ones go to the app's webhook; an all-repositories installation refuses", async () => {
    const s = await world();
    await github.createRepository(s.twin, { owner: 'octo-org', name: 'engine' });
    const app = await github.createApp(s.twin, { owner: 'octo-org', name: 'Twin Bot' });
    await github.setAppWebhook(s.twin, app.slug, { url: 'https://app.example.com', secret: 'a' });
    const selected = await github.installApp(s.twin, {
      app: app.slug,
      account: 'octo-org',
      sender: 'octocat',
      repositories: [REPO],
    });
    await github.addInstallationRepositories(s.twin, {
      installation: selected.id,
      repositories: ['octo-org/engine', REPO],
      sender: 'octocat',
    });
    const deliveries = (await s.twin.list('hook_delivery')).filter(
      (d) => d.fields.eventType === 'installation_repositories.added',
    );
    expect(deliveries.map((d) => d.fields.endpointKind)).toEqual(['app']);
    const body = JSON.parse(String(deliveries[0]!.fields.body)) as Payload;
    expect(body.repositories_added.map((r: Payload) => r.full_name)).toEqual(['octo-org/engine']);
    expect(body).toMatchObject({
      repository_selection: 'selected',
      repositories_removed: [],
      requester: null,
    });
    // The app's webhook still takes installation events exactly once each.
    const installs = (await s.twin.list('hook_delivery')).filter(
      (d) => d.fields.eventType === 'installation.created',
    );
    expect(installs).toHaveLength(1);
    const other = await github.createApp(s.twin, { owner: 'octo-org', name: 'All Bot' });
    const all = await github.installApp(s.twin, {
      app: other.slug,
      account: 'octo-org',
      sender: 'octocat',
    });
    const before = await s.logLength();
    await expect(
      github.addInstallationRepositories(s.twin, {
        installation: all.id,
        repositories: [REPO],
        sender: 'octocat',
      }),
    ).rejects.toThrow(/all repositories/);
    await expect(
      github.addInstallationRepositories(s.twin, {
        installation: selected.id,
        repositories: ['octocat/none'],
        sender: 'octocat',
      }),
    ).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(await s.logLength()).toBe(before);
    await s.world.close();
  });
});
