// `twinworld send github <type>`: an organization, a user and a repository (reused when the
// world already has them), a repository hook subscribed to the event's family, then the write.
import type { JsonObject, Twin } from '../../src/index.js';
import { withData } from '../kit/input.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../kit/vendor-pack.js';
import { createOrganization, createUser, LOGIN_INDEX } from './accounts.js';
import { createRepositoryHook } from './hooks.js';
import { closeIssue, editIssue, openIssue } from './issues.js';
import { closePullRequest, openPullRequest } from './pull-requests.js';
import { createRepository, FULL_NAME_INDEX } from './repositories.js';

const ORG = 'octo-org';
const USER = 'octocat';
const REPO = `${ORG}/hello-world`;

async function ensureRepository(twin: Twin): Promise<void> {
  if ((await twin.lookup('organization', LOGIN_INDEX, ORG)).length === 0) await createOrganization(twin, { login: ORG, description: 'A twinworld organization' });
  if ((await twin.lookup('user', LOGIN_INDEX, USER)).length === 0) await createUser(twin, { login: USER });
  if ((await twin.lookup('repository', FULL_NAME_INDEX, REPO)).length === 0) await createRepository(twin, { owner: ORG, name: 'hello-world', description: 'My first repository on GitHub!' });
}

async function subscribe(ctx: ScenarioContext, family: string): Promise<ScenarioResult> {
  const hook = await createRepositoryHook(ctx.twin, { repository: REPO, url: ctx.target.url, secret: ctx.target.secret, events: [family] });
  return { endpointKind: 'repository_hook', endpointId: String(hook.id) };
}

const issue = (data?: JsonObject) => withData({ title: 'Found a bug', body: "I'm having a problem with this." }, data) as { title: string; body?: string };

export const scenarios: Readonly<Record<string, Scenario>> = {
  'issues.opened': async (ctx) => {
    await ensureRepository(ctx.twin);
    const sub = await subscribe(ctx, 'issues');
    await openIssue(ctx.twin, { repository: REPO, sender: USER, ...issue(ctx.data) });
    return sub;
  },
  'issues.edited': async (ctx) => {
    await ensureRepository(ctx.twin);
    const opened = await openIssue(ctx.twin, { repository: REPO, sender: USER, ...issue() });
    const sub = await subscribe(ctx, 'issues');
    await editIssue(ctx.twin, { repository: REPO, number: opened.number, sender: USER, ...withData({ title: 'Found a bug in the parser' }, ctx.data) });
    return sub;
  },
  'issues.closed': async (ctx) => {
    await ensureRepository(ctx.twin);
    const opened = await openIssue(ctx.twin, { repository: REPO, sender: USER, ...issue() });
    const sub = await subscribe(ctx, 'issues');
    await closeIssue(ctx.twin, { repository: REPO, number: opened.number, sender: USER, ...(ctx.data as { state_reason?: 'completed' | 'not_planned' } | undefined) });
    return sub;
  },
  'pull_request.opened': async (ctx) => {
    await ensureRepository(ctx.twin);
    const sub = await subscribe(ctx, 'pull_request');
    await openPullRequest(ctx.twin, { repository: REPO, sender: USER, ...(withData({ title: 'Amazing new feature', head: 'new-topic', body: 'Please pull these awesome changes in!' }, ctx.data) as { title: string; head: string }) });
    return sub;
  },
  'pull_request.closed': async (ctx) => {
    await ensureRepository(ctx.twin);
    const pull = await openPullRequest(ctx.twin, { repository: REPO, sender: USER, title: 'Amazing new feature', head: 'new-topic' });
    const sub = await subscribe(ctx, 'pull_request');
    await closePullRequest(ctx.twin, { repository: REPO, number: pull.number, sender: USER, ...withData({ merge: true }, ctx.data) });
    return sub;
  },
};
