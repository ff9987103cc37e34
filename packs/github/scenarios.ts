// `twinworld send github <type>`: an organization, a user and a repository (reused when the
// world already has them), whatever else the event needs (an issue, a pull request, a CI app, a
// check run, a workflow run), a hook subscribed to the event's family, then the causing write.
import type { JsonObject, Twin } from '../../src/index.js';
import { withData } from '../kit/input.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../kit/vendor-pack.js';
import { createOrganization, createUser, LOGIN_INDEX } from './accounts.js';
import { createApp, installApp, setAppWebhook, SLUG_INDEX, uninstallApp } from './apps.js';
import { push } from './branches.js';
import { completeCheckRun, createCheckRun, type CheckConclusion } from './checks.js';
import { commentOnIssue } from './comments.js';
import { createRepositoryHook } from './hooks.js';
import { closeIssue, editIssue, openIssue } from './issues.js';
import { closePullRequest, openPullRequest } from './pull-requests.js';
import { publishRelease } from './releases.js';
import { createRepository, FULL_NAME_INDEX } from './repositories.js';
import { starRepository, unstarRepository } from './stars.js';
import { completeWorkflowRun, requestWorkflowRun, startWorkflowRun } from './workflows.js';

const ORG = 'octo-org';
const USER = 'octocat';
const REPO = `${ORG}/hello-world`;
const CI_APP = 'twin-ci';

async function ensureRepository(twin: Twin): Promise<void> {
  if ((await twin.lookup('organization', LOGIN_INDEX, ORG)).length === 0)
    await createOrganization(twin, { login: ORG, description: 'A twinworld organization' });
  if ((await twin.lookup('user', LOGIN_INDEX, USER)).length === 0)
    await createUser(twin, { login: USER });
  if ((await twin.lookup('repository', FULL_NAME_INDEX, REPO)).length === 0)
    await createRepository(twin, {
      owner: ORG,
      name: 'hello-world',
      description: 'My first repository on GitHub!',
    });
}

async function ensureCiApp(twin: Twin): Promise<void> {
  if ((await twin.lookup('app', SLUG_INDEX, CI_APP)).length === 0)
    await createApp(twin, { owner: ORG, name: 'Twin CI', description: 'Checks every push' });
}

async function subscribe(ctx: ScenarioContext, family: string): Promise<ScenarioResult> {
  const hook = await createRepositoryHook(ctx.twin, {
    repository: REPO,
    url: ctx.target.url,
    secret: ctx.target.secret,
    events: [family],
  });
  return { endpointKind: 'repository_hook', endpointId: String(hook.id) };
}

/** A new app per send (an app's webhook is its own endpoint), installed after `prepare`. */
async function subscribedApp(
  ctx: ScenarioContext,
): Promise<{ slug: string; result: ScenarioResult }> {
  const apps = await ctx.twin.list('app');
  const app = await createApp(ctx.twin, { owner: ORG, name: `Twin App ${apps.length + 1}` });
  await setAppWebhook(ctx.twin, app.slug, { url: ctx.target.url, secret: ctx.target.secret });
  return { slug: app.slug, result: { endpointKind: 'app', endpointId: String(app.id) } };
}

const issue = (data?: JsonObject) =>
  withData({ title: 'Found a bug', body: "I'm having a problem with this." }, data) as {
    title: string;
    body?: string;
  };
const pull = (data?: JsonObject) =>
  withData(
    {
      title: 'Amazing new feature',
      head: 'new-topic',
      body: 'Please pull these awesome changes in!',
    },
    data,
  ) as { title: string; head: string };
const conclusion = (data?: JsonObject) => (data?.conclusion ?? 'success') as CheckConclusion;

/** A run on a fresh commit, so its suite holds only this run even in a world that has seen others. */
async function checkRun(ctx: ScenarioContext) {
  await ensureRepository(ctx.twin);
  await ensureCiApp(ctx.twin);
  await push(ctx.twin, {
    repository: REPO,
    branch: 'main',
    sender: USER,
    messages: ['Bump version'],
  });
  return createCheckRun(ctx.twin, {
    repository: REPO,
    app: CI_APP,
    name: 'build',
    status: 'in_progress',
    sender: USER,
  });
}

async function workflowRun(ctx: ScenarioContext) {
  await ensureRepository(ctx.twin);
  return requestWorkflowRun(ctx.twin, { repository: REPO, workflow: 'CI', sender: USER });
}

export const scenarios: Readonly<Record<string, Scenario>> = {
  ping: async (ctx) => {
    await ensureRepository(ctx.twin);
    return subscribe(ctx, 'push');
  },
  push: async (ctx) => {
    await ensureRepository(ctx.twin);
    const sub = await subscribe(ctx, 'push');
    await push(ctx.twin, {
      repository: REPO,
      sender: USER,
      ...(withData({ branch: 'main', messages: ['Update README.md'] }, ctx.data) as {
        branch: string;
        messages: string[];
      }),
    });
    return sub;
  },
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
    await editIssue(ctx.twin, {
      repository: REPO,
      number: opened.number,
      sender: USER,
      ...withData({ title: 'Found a bug in the parser' }, ctx.data),
    });
    return sub;
  },
  'issues.closed': async (ctx) => {
    await ensureRepository(ctx.twin);
    const opened = await openIssue(ctx.twin, { repository: REPO, sender: USER, ...issue() });
    const sub = await subscribe(ctx, 'issues');
    await closeIssue(ctx.twin, {
      repository: REPO,
      number: opened.number,
      sender: USER,
      ...(ctx.data as { state_reason?: 'completed' | 'not_planned' } | undefined),
    });
    return sub;
  },
  'issue_comment.created': async (ctx) => {
    await ensureRepository(ctx.twin);
    const opened = await openIssue(ctx.twin, { repository: REPO, sender: USER, ...issue() });
    const sub = await subscribe(ctx, 'issue_comment');
    await commentOnIssue(ctx.twin, {
      repository: REPO,
      number: opened.number,
      sender: USER,
      ...(withData({ body: 'Thanks, looking into it.' }, ctx.data) as { body: string }),
    });
    return sub;
  },
  'pull_request.opened': async (ctx) => {
    await ensureRepository(ctx.twin);
    const sub = await subscribe(ctx, 'pull_request');
    await openPullRequest(ctx.twin, { repository: REPO, sender: USER, ...pull(ctx.data) });
    return sub;
  },
  'pull_request.synchronize': async (ctx) => {
    await ensureRepository(ctx.twin);
    const opened = await openPullRequest(ctx.twin, { repository: REPO, sender: USER, ...pull() });
    const sub = await subscribe(ctx, 'pull_request');
    await push(ctx.twin, {
      repository: REPO,
      sender: USER,
      branch: opened.head.ref,
      ...(withData({ messages: ['Address review comments'] }, ctx.data) as { messages: string[] }),
    });
    return sub;
  },
  'pull_request.closed': async (ctx) => {
    await ensureRepository(ctx.twin);
    const opened = await openPullRequest(ctx.twin, {
      repository: REPO,
      sender: USER,
      title: 'Amazing new feature',
      head: 'new-topic',
    });
    const sub = await subscribe(ctx, 'pull_request');
    await closePullRequest(ctx.twin, {
      repository: REPO,
      number: opened.number,
      sender: USER,
      ...withData({ merge: true }, ctx.data),
    });
    return sub;
  },
  'check_run.created': async (ctx) => {
    await ensureRepository(ctx.twin);
    await ensureCiApp(ctx.twin);
    const sub = await subscribe(ctx, 'check_run');
    await createCheckRun(ctx.twin, {
      repository: REPO,
      app: CI_APP,
      sender: USER,
      ...(withData({ name: 'build' }, ctx.data) as { name: string }),
    });
    return sub;
  },
  'check_run.completed': async (ctx) => {
    const run = await checkRun(ctx);
    const sub = await subscribe(ctx, 'check_run');
    await completeCheckRun(ctx.twin, {
      repository: REPO,
      check_run_id: run.id,
      conclusion: conclusion(ctx.data),
      sender: USER,
    });
    return sub;
  },
  'check_suite.completed': async (ctx) => {
    const run = await checkRun(ctx);
    const sub = await subscribe(ctx, 'check_suite');
    await completeCheckRun(ctx.twin, {
      repository: REPO,
      check_run_id: run.id,
      conclusion: conclusion(ctx.data),
      sender: USER,
    });
    return sub;
  },
  'workflow_run.requested': async (ctx) => {
    await ensureRepository(ctx.twin);
    const sub = await subscribe(ctx, 'workflow_run');
    await requestWorkflowRun(ctx.twin, {
      repository: REPO,
      sender: USER,
      ...(withData({ workflow: 'CI' }, ctx.data) as { workflow: string }),
    });
    return sub;
  },
  'workflow_run.in_progress': async (ctx) => {
    const run = await workflowRun(ctx);
    const sub = await subscribe(ctx, 'workflow_run');
    await startWorkflowRun(ctx.twin, { repository: REPO, run_id: run.id, sender: USER });
    return sub;
  },
  'workflow_run.completed': async (ctx) => {
    const run = await workflowRun(ctx);
    await startWorkflowRun(ctx.twin, { repository: REPO, run_id: run.id, sender: USER });
    const sub = await subscribe(ctx, 'workflow_run');
    await completeWorkflowRun(ctx.twin, {
      repository: REPO,
      run_id: run.id,
      conclusion: conclusion(ctx.data),
      sender: USER,
    });
    return sub;
  },
  'installation.created': async (ctx) => {
    await ensureRepository(ctx.twin);
    const { slug, result } = await subscribedApp(ctx);
    await installApp(ctx.twin, {
      app: slug,
      account: ORG,
      sender: USER,
      ...(ctx.data as { repositories?: string[] } | undefined),
    });
    return result;
  },
  'installation.deleted': async (ctx) => {
    await ensureRepository(ctx.twin);
    const apps = await ctx.twin.list('app');
    const app = await createApp(ctx.twin, { owner: ORG, name: `Twin App ${apps.length + 1}` });
    const installation = await installApp(ctx.twin, { app: app.slug, account: ORG, sender: USER });
    await setAppWebhook(ctx.twin, app.slug, { url: ctx.target.url, secret: ctx.target.secret });
    await uninstallApp(ctx.twin, { installation: installation.id, sender: USER });
    return { endpointKind: 'app', endpointId: String(app.id) };
  },
  'release.created': (ctx) => release(ctx),
  'release.published': (ctx) => release(ctx),
  'star.created': async (ctx) => {
    await ensureRepository(ctx.twin);
    await unstarRepository(ctx.twin, { repository: REPO, sender: USER });
    const sub = await subscribe(ctx, 'star');
    await starRepository(ctx.twin, { repository: REPO, sender: USER });
    return sub;
  },
  'star.deleted': async (ctx) => {
    await ensureRepository(ctx.twin);
    await starRepository(ctx.twin, { repository: REPO, sender: USER });
    const sub = await subscribe(ctx, 'star');
    await unstarRepository(ctx.twin, { repository: REPO, sender: USER });
    return sub;
  },
};

async function release(ctx: ScenarioContext): Promise<ScenarioResult> {
  await ensureRepository(ctx.twin);
  const releases = await ctx.twin.list('release');
  const sub = await subscribe(ctx, 'release');
  await publishRelease(ctx.twin, {
    repository: REPO,
    sender: USER,
    ...(withData(
      {
        tag_name: `v1.${releases.length}.0`,
        name: `v1.${releases.length}.0`,
        body: 'Fixes and improvements.',
      },
      ctx.data,
    ) as { tag_name: string }),
  });
  return sub;
}
