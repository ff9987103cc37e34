// Issues as @octokit/rest meets them, on SQLite and PostgreSQL: the `reactions` rollup of an issue,
// of a pull request's issue side and of a comment counts the reactions made on it (total and each
// content), in answers, lists and the webhook payloads that carry them; `closed_by` names who closed
// an issue while it is closed, and is null while it is open (webhook issues carry no such key); a
// body over GitHub's 65536 characters is GitHub's 422 `custom` on `body`; listComments takes `since`
// and reactions.listForIssue `content`; a title may be a number; listForRepo filters and sorts as
// GitHub documents.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import { homes } from '../support/backends.js';
import type { ReceivedRequest } from '../support/receiver.js';
import { closeGitHubTwin, startGitHubTwin, until, type GitHubTwin } from './github-support.js';

const ZERO = {
  total_count: 0,
  '+1': 0,
  '-1': 0,
  laugh: 0,
  hooray: 0,
  confused: 0,
  heart: 0,
  rocket: 0,
  eyes: 0,
};

describe.each(homes)('issues through @octokit/rest ($name)', (home) => {
  let t: GitHubTwin;
  let cleanup: () => void;
  let octocat: Octokit;
  let hubot: Octokit;
  let baseUrl: string;
  const repo = { owner: 'octo-org', repo: 'tracker' };
  const payload = (r: ReceivedRequest) => JSON.parse(r.body) as Record<string, JsonValue>;
  const packet = (event: string, pick: (p: Record<string, JsonValue>) => boolean) =>
    until(event, () =>
      t.receiver.requests.find(
        (r) => r.url === '/issues' && r.headers['x-github-event'] === event && pick(payload(r)),
      ),
    );

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    t = await startGitHubTwin(fresh.spec);
    baseUrl = `${t.listening.url}/github`;
    octocat = new Octokit({ auth: t.tokens[0]!, baseUrl });
    hubot = new Octokit({ auth: t.tokens[1]!, baseUrl });
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'tracker' });
    await octocat.rest.repos.createWebhook({
      ...repo,
      config: { url: `${t.receiver.url}/issues`, content_type: 'json' },
      events: ['issues', 'issue_comment'],
    });
  });
  afterAll(async () => {
    await closeGitHubTwin(t ?? {});
    cleanup?.();
  });

  it("an issue's reactions rollup counts its reactions, in get, list, update and payloads", async () => {
    const made = await octocat.rest.issues.create({ ...repo, title: 'Reacted to' });
    const at = { ...repo, issue_number: made.data.number };
    expect(made.data.reactions).toEqual({ url: `${made.data.url}/reactions`, ...ZERO });
    await octocat.rest.reactions.createForIssue({ ...at, content: '+1' });
    await hubot.rest.reactions.createForIssue({ ...at, content: '+1' });
    await hubot.rest.reactions.createForIssue({ ...at, content: 'rocket' });
    // the same reaction again is the first one: it counts once
    await hubot.rest.reactions.createForIssue({ ...at, content: 'rocket' });
    const counted = {
      url: `${baseUrl}/repos/octo-org/tracker/issues/${at.issue_number}/reactions`,
      ...ZERO,
      total_count: 3,
      '+1': 2,
      rocket: 1,
    };
    expect((await octocat.rest.issues.get(at)).data.reactions).toEqual(counted);
    const listed = await octocat.rest.issues.listForRepo(repo);
    expect(listed.data.find((i) => i.number === at.issue_number)!.reactions).toEqual(counted);
    const updated = await octocat.rest.issues.update({ ...at, title: 'Reacted to, edited' });
    expect(updated.data.reactions).toEqual(counted);
    const edited = await packet('issues', (p) => p.action === 'edited');
    expect((payload(edited).issue as { reactions: JsonValue }).reactions).toEqual(counted);
    // a pull request's issue side counts its own reactions
    const pr = await octocat.rest.pulls.create({
      ...repo,
      title: 'PR',
      head: 'feature',
      base: 'main',
    });
    const prAt = { ...repo, issue_number: pr.data.number };
    await hubot.rest.reactions.createForIssue({ ...prAt, content: 'eyes' });
    expect((await octocat.rest.issues.get(prAt)).data.reactions).toMatchObject({
      total_count: 1,
      eyes: 1,
      '+1': 0,
    });
  });

  it("a comment's reactions rollup counts its reactions; the issue's stays its own", async () => {
    const made = await octocat.rest.issues.create({ ...repo, title: 'Commented on' });
    const at = { ...repo, issue_number: made.data.number };
    await hubot.rest.reactions.createForIssue({ ...at, content: 'heart' });
    const first = await hubot.rest.issues.createComment({ ...at, body: 'first' });
    const comment = { ...repo, comment_id: first.data.id };
    await octocat.rest.reactions.createForIssueComment({ ...comment, content: 'laugh' });
    await hubot.rest.reactions.createForIssueComment({ ...comment, content: 'hooray' });
    await hubot.rest.reactions.createForIssueComment({ ...comment, content: 'confused' });
    await hubot.rest.reactions.createForIssueComment({ ...comment, content: '-1' });
    const counted = {
      url: `${baseUrl}/repos/octo-org/tracker/issues/comments/${first.data.id}/reactions`,
      ...ZERO,
      total_count: 4,
      laugh: 1,
      hooray: 1,
      confused: 1,
      '-1': 1,
    };
    expect((await octocat.rest.issues.getComment(comment)).data.reactions).toEqual(counted);
    const listed = await octocat.rest.issues.listComments(at);
    expect(listed.data.map((c) => c.reactions)).toEqual([counted]);
    expect((await octocat.rest.issues.get(at)).data.reactions).toMatchObject({
      total_count: 1,
      heart: 1,
    });
    // the next comment's payload carries the issue's rollup and its own (still empty) one
    const second = await hubot.rest.issues.createComment({ ...at, body: 'second' });
    const created = await packet(
      'issue_comment',
      (p) => (p.comment as { id: number }).id === second.data.id,
    );
    const body = payload(created) as { issue: { reactions: JsonValue }; comment: JsonValue };
    expect(body.issue.reactions).toMatchObject({ total_count: 1, heart: 1 });
    expect((body.comment as { reactions: JsonValue }).reactions).toMatchObject(ZERO);
    expect(second.data.reactions).toMatchObject(ZERO);
  });

  it('closed_by: null while open, the closer once closed, null again when reopened', async () => {
    const made = await octocat.rest.issues.create({ ...repo, title: 'Closed by someone' });
    const at = { ...repo, issue_number: made.data.number };
    expect(made.data.closed_by).toBeNull();
    expect((await octocat.rest.issues.get(at)).data.closed_by).toBeNull();
    const closed = await hubot.rest.issues.update({ ...at, state: 'closed' });
    expect(closed.data.closed_by).toMatchObject({ login: 'hubot', type: 'User' });
    expect(closed.data.closed_by!.url).toBe(`${baseUrl}/users/hubot`);
    expect((await octocat.rest.issues.get(at)).data.closed_by).toMatchObject({ login: 'hubot' });
    const listed = await octocat.rest.issues.listForRepo({ ...repo, state: 'closed' });
    expect(listed.data.find((i) => i.number === at.issue_number)!.closed_by).toMatchObject({
      login: 'hubot',
    });
    const hook = await packet(
      'issues',
      (p) => p.action === 'closed' && (p.issue as { number: number }).number === at.issue_number,
    );
    expect(payload(hook).issue).not.toHaveProperty('closed_by');
    const reopened = await octocat.rest.issues.update({ ...at, state: 'open' });
    expect(reopened.data.closed_by).toBeNull();
    expect((await octocat.rest.issues.get(at)).data.closed_by).toBeNull();
    await octocat.rest.issues.update({ ...at, state: 'closed', state_reason: 'not_planned' });
    expect((await hubot.rest.issues.get(at)).data.closed_by).toMatchObject({ login: 'octocat' });
  });

  it('a body over 65536 characters is 422 custom on body, on create and on update', async () => {
    const tooLong = {
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'Issue',
              field: 'body',
              code: 'custom',
              message: 'body is too long (maximum is 65536 characters)',
            },
          ],
        },
      },
    };
    await expect(
      octocat.rest.issues.create({ ...repo, title: 'long', body: 'x'.repeat(65_537) }),
    ).rejects.toMatchObject(tooLong);
    const made = await octocat.rest.issues.create({
      ...repo,
      title: 'long',
      body: 'x'.repeat(65_536),
    });
    expect(made.data.body).toHaveLength(65_536);
    // GitHub counts characters: 65536 emoji (two UTF-16 units each) are within the limit
    const emoji = '🚀'.repeat(65_536);
    const at = { ...repo, issue_number: made.data.number };
    expect((await octocat.rest.issues.update({ ...at, body: emoji })).data.body).toBe(emoji);
    await expect(
      octocat.rest.issues.update({ ...at, body: `${emoji}x`, title: 'not applied' }),
    ).rejects.toMatchObject(tooLong);
    const kept = await octocat.rest.issues.get(at);
    expect([kept.data.title, kept.data.body]).toEqual(['long', emoji]);
  });
  it('listComments takes since (last updated at or after it); listForIssue takes content', async () => {
    const made = await octocat.rest.issues.create({ ...repo, title: 'Polled' });
    const at = { ...repo, issue_number: made.data.number };
    const old = await octocat.rest.issues.createComment({ ...at, body: 'old' });
    await (t.world.clock as VirtualClock).advance(60_000);
    const since = new Date(t.world.clock.now()).toISOString();
    const fresh = await hubot.rest.issues.createComment({ ...at, body: 'fresh' });
    const bodies = async (q: { since?: string } = {}) =>
      (await octocat.rest.issues.listComments({ ...at, ...q })).data.map((c) => c.body);
    expect(await bodies()).toEqual(['old', 'fresh']);
    expect(await bodies({ since })).toEqual(['fresh']);
    expect(await bodies({ since: '2999-01-01T00:00:00Z' })).toEqual([]);
    // an edit makes a comment recent again
    await (t.world.clock as VirtualClock).advance(60_000);
    const later = new Date(t.world.clock.now()).toISOString();
    await octocat.rest.issues.updateComment({
      ...repo,
      comment_id: old.data.id,
      body: 'old, edited',
    });
    expect(await bodies({ since: later })).toEqual(['old, edited']);
    // a time without a zone is UTC, whatever the host's zone
    expect(await bodies({ since: later.replace(/\.\d{3}Z$/, '') })).toEqual(['old, edited']);
    await expect(bodies({ since: 'yesterday' })).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ resource: 'IssueComment', field: 'since', code: 'invalid' }] },
      },
    });
    expect(fresh.status).toBe(201);
    await octocat.rest.reactions.createForIssue({ ...at, content: 'rocket' });
    await hubot.rest.reactions.createForIssue({ ...at, content: 'eyes' });
    await hubot.rest.reactions.createForIssue({ ...at, content: 'rocket' });
    const reacted = async (content?: 'rocket' | 'eyes' | 'heart') =>
      (
        await octocat.rest.reactions.listForIssue({ ...at, ...(content ? { content } : {}) })
      ).data.map((r) => `${r.user!.login}:${r.content}`);
    expect(await reacted()).toEqual(['octocat:rocket', 'hubot:eyes', 'hubot:rocket']);
    expect(await reacted('rocket')).toEqual(['octocat:rocket', 'hubot:rocket']);
    expect(await reacted('heart')).toEqual([]);
    await expect(reacted('smile' as never)).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ resource: 'Reaction', field: 'content', code: 'invalid' }] } },
    });
  });
  it('a title may be a number, as GitHub (and Octokit’s types) take it, on create and on update', async () => {
    const made = await octocat.rest.issues.create({ ...repo, title: 42 });
    expect(made.status).toBe(201);
    expect(made.data.title).toBe('42');
    const at = { ...repo, issue_number: made.data.number };
    expect((await octocat.rest.issues.update({ ...at, title: 7 })).data.title).toBe('7');
    await expect(
      octocat.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
        ...at,
        title: { text: 'no' } as never,
      }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ resource: 'Issue', field: 'title', code: 'invalid' }] } },
    });
  });
  it('listForRepo takes since, creator, assignee, milestone, sort and direction as GitHub does', async () => {
    const at = { owner: 'octo-org', repo: 'sorted' };
    await octocat.rest.repos.createInOrg({ org: 'octo-org', name: 'sorted' });
    const clock = t.world.clock as VirtualClock;
    const a = (await octocat.rest.issues.create({ ...at, title: 'a' })).data.number;
    const b = (await hubot.rest.issues.create({ ...at, title: 'b' })).data.number;
    const c = (await octocat.rest.issues.create({ ...at, title: 'c' })).data.number;
    await octocat.rest.issues.addAssignees({ ...at, issue_number: b, assignees: ['hubot'] });
    await clock.advance(60_000);
    const since = new Date(clock.now()).toISOString();
    await hubot.rest.issues.createComment({ ...at, issue_number: a, body: 'bump' });
    await hubot.rest.issues.createComment({ ...at, issue_number: a, body: 'bump again' });
    const list = async (q: Record<string, string> = {}) =>
      (await octocat.rest.issues.listForRepo({ ...at, ...q })).data.map((i) => i.number);
    expect(await list()).toEqual([c, b, a]);
    expect(await list({ direction: 'asc' })).toEqual([a, b, c]);
    expect(await list({ since })).toEqual([a]);
    expect(await list({ sort: 'updated' })).toEqual([a, c, b]);
    expect(await list({ sort: 'comments' })).toEqual([a, c, b]);
    expect(await list({ creator: 'HUBOT' })).toEqual([b]);
    expect(await list({ assignee: 'hubot' })).toEqual([b]);
    expect(await list({ assignee: '*' })).toEqual([b]);
    expect(await list({ assignee: 'none' })).toEqual([c, a]);
    expect(await list({ milestone: 'none' })).toEqual([c, b, a]);
    expect(await list({ milestone: '*' })).toEqual([]);
    for (const [field, code, q] of [
      ['sort', 'invalid', { sort: 'popularity' }],
      ['direction', 'invalid', { direction: 'up' }],
      ['since', 'invalid', { since: 'last week' }],
      ['mentioned', 'custom', { mentioned: 'octocat' }],
    ] as const)
      await expect(list(q)).rejects.toMatchObject({
        status: 422,
        response: { data: { errors: [{ resource: 'Issue', field, code }] } },
      });
  });
});
