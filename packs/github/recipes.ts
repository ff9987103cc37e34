// For each GitHub event type a repository's hooks take, the writes that produce it in one
// repository and what they need first: what `twinworld send` (which subscribes its hook at
// `ready()`, right before the causing write) and `twinworld trigger` (which sends to the hooks
// already there) run. `data` is merged into the causing call's input; `keys` are the ones it takes.
import type { JsonObject, Twin } from '../../src/index.js';
import { withData } from '../kit/input.js';
import { createOrganization, createUser, LOGIN_INDEX } from './accounts.js';
import { createApp, SLUG_INDEX } from './apps.js';
import { push } from './branches.js';
import { completeCheckRun, createCheckRun, type CheckConclusion } from './checks.js';
import { commentOnIssue } from './comments.js';
import { closeIssue, editIssue, openIssue } from './issues.js';
import { closePullRequest, openPullRequest } from './pull-requests.js';
import { publishRelease } from './releases.js';
import type { Recipe, RecipeContext } from './recipe.js';
import { reviewRecipes } from './recipes-review.js';
import { createRepository, FULL_NAME_INDEX, type GitHubRepository } from './repositories.js';
import { starRepository, unstarRepository } from './stars.js';
import { completeWorkflowRun, requestWorkflowRun, startWorkflowRun } from './workflows.js';
import { repositoryKind } from './repositories.js';

/** The twin's sample accounts: what sends and triggers act on unless told otherwise. */
export const SAMPLE_ORG = 'octo-org';
export const SAMPLE_USER = 'octocat';
export const SAMPLE_REPO = `${SAMPLE_ORG}/hello-world`;
const CI_APP = 'twin-ci';

export type { Recipe } from './recipe.js';

/** The sample organization, user and repository, each made when the world lacks it. */
export async function ensureSampleRepository(twin: Twin): Promise<void> {
  if ((await twin.lookup('organization', LOGIN_INDEX, SAMPLE_ORG)).length === 0)
    await createOrganization(twin, { login: SAMPLE_ORG, description: 'A twinworld organization' });
  await ensureSampleUser(twin);
  if ((await twin.lookup('repository', FULL_NAME_INDEX, SAMPLE_REPO)).length === 0)
    await createRepository(twin, {
      owner: SAMPLE_ORG,
      name: 'hello-world',
      description: 'My first repository on GitHub!',
    });
}

export async function ensureSampleUser(twin: Twin): Promise<void> {
  if ((await twin.lookup('user', LOGIN_INDEX, SAMPLE_USER)).length === 0)
    await createUser(twin, { login: SAMPLE_USER });
}

/** The CI app checks come from, owned by the repository's owner when it is made. */
async function ensureCiApp(twin: Twin, repository: string): Promise<void> {
  if ((await twin.lookup('app', SLUG_INDEX, CI_APP)).length > 0) return;
  const [repo] = await twin.lookup('repository', FULL_NAME_INDEX, repository);
  const owner = repo === undefined ? undefined : repositoryKind.of(repo).owner.login;
  await createApp(twin, {
    owner: owner ?? SAMPLE_ORG,
    name: 'Twin CI',
    description: 'Checks every push',
  });
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
async function checkRun(ctx: RecipeContext) {
  await ensureCiApp(ctx.twin, ctx.repository);
  await push(ctx.twin, {
    repository: ctx.repository,
    branch: 'main',
    sender: SAMPLE_USER,
    messages: ['Bump version'],
  });
  return createCheckRun(ctx.twin, {
    repository: ctx.repository,
    app: CI_APP,
    name: 'build',
    status: 'in_progress',
    sender: SAMPLE_USER,
  });
}

function completedCheck(family: string): Recipe {
  return {
    family,
    keys: ['conclusion'],
    async run(ctx) {
      const run = await checkRun(ctx);
      await ctx.ready();
      await completeCheckRun(ctx.twin, {
        repository: ctx.repository,
        check_run_id: run.id,
        conclusion: conclusion(ctx.data),
        sender: SAMPLE_USER,
      });
    },
  };
}

const release: Recipe = {
  family: 'release',
  keys: ['tag_name', 'name', 'body', 'target_commitish', 'prerelease'],
  async run(ctx) {
    const releases = await ctx.twin.list('release');
    await ctx.ready();
    await publishRelease(ctx.twin, {
      repository: ctx.repository,
      sender: SAMPLE_USER,
      ...(withData(
        {
          tag_name: `v1.${releases.length}.0`,
          name: `v1.${releases.length}.0`,
          body: 'Fixes and improvements.',
        },
        ctx.data,
      ) as { tag_name: string }),
    });
  },
};

const ISSUE_KEYS = ['title', 'body'];

/** Who acts where: every recipe's writes are octocat's, in the context's repository. */
const by = (ctx: RecipeContext) => ({ repository: ctx.repository, sender: SAMPLE_USER });

/** An issue opened first, as the one the causing write acts on. */
async function openedIssue(ctx: RecipeContext) {
  const opened = await openIssue(ctx.twin, { ...by(ctx), ...issue() });
  return { ...by(ctx), number: opened.number };
}

/** A workflow run requested first. */
function requestedRun(ctx: RecipeContext) {
  return requestWorkflowRun(ctx.twin, { ...by(ctx), workflow: 'CI' });
}

export const recipes: Readonly<Record<string, Recipe>> = {
  ...reviewRecipes,
  push: {
    family: 'push',
    keys: ['branch', 'messages', 'forced'],
    async run(ctx) {
      await ctx.ready();
      await push(ctx.twin, {
        ...by(ctx),
        ...(withData({ branch: 'main', messages: ['Update README.md'] }, ctx.data) as {
          branch: string;
          messages: string[];
        }),
      });
    },
  },
  'issues.opened': {
    family: 'issues',
    keys: ISSUE_KEYS,
    async run(ctx) {
      await ctx.ready();
      await openIssue(ctx.twin, {
        ...by(ctx),
        ...issue(ctx.data),
      });
    },
  },
  'issues.edited': {
    family: 'issues',
    keys: ['title', 'body'],
    async run(ctx) {
      const opened = await openedIssue(ctx);
      await ctx.ready();
      await editIssue(ctx.twin, {
        ...opened,
        ...withData({ title: 'Found a bug in the parser' }, ctx.data),
      });
    },
  },
  'issues.closed': {
    family: 'issues',
    keys: ['state_reason'],
    async run(ctx) {
      const opened = await openedIssue(ctx);
      await ctx.ready();
      await closeIssue(ctx.twin, {
        ...opened,
        ...(ctx.data as { state_reason?: 'completed' | 'not_planned' } | undefined),
      });
    },
  },
  'issue_comment.created': {
    family: 'issue_comment',
    keys: ['body'],
    async run(ctx) {
      const opened = await openedIssue(ctx);
      await ctx.ready();
      await commentOnIssue(ctx.twin, {
        ...opened,
        ...(withData({ body: 'Thanks, looking into it.' }, ctx.data) as { body: string }),
      });
    },
  },
  'pull_request.opened': {
    family: 'pull_request',
    keys: ['title', 'head', 'base', 'body', 'draft'],
    async run(ctx) {
      await ctx.ready();
      await openPullRequest(ctx.twin, {
        ...by(ctx),
        ...pull(ctx.data),
      });
    },
  },
  'pull_request.synchronize': {
    family: 'pull_request',
    keys: ['messages'],
    async run(ctx) {
      const opened = await openPullRequest(ctx.twin, {
        ...by(ctx),
        ...pull(),
      });
      await ctx.ready();
      await push(ctx.twin, {
        ...by(ctx),
        branch: opened.head.ref,
        ...(withData({ messages: ['Address review comments'] }, ctx.data) as {
          messages: string[];
        }),
      });
    },
  },
  'pull_request.closed': {
    family: 'pull_request',
    keys: ['merge'],
    async run(ctx) {
      const opened = await openPullRequest(ctx.twin, {
        ...by(ctx),
        title: 'Amazing new feature',
        head: 'new-topic',
      });
      await ctx.ready();
      await closePullRequest(ctx.twin, {
        ...by(ctx),
        number: opened.number,
        ...withData({ merge: true }, ctx.data),
      });
    },
  },
  'check_run.created': {
    family: 'check_run',
    keys: ['name', 'head_branch', 'head_sha', 'status', 'external_id'],
    async run(ctx) {
      await ensureCiApp(ctx.twin, ctx.repository);
      await ctx.ready();
      await createCheckRun(ctx.twin, {
        repository: ctx.repository,
        app: CI_APP,
        sender: SAMPLE_USER,
        ...(withData({ name: 'build' }, ctx.data) as { name: string }),
      });
    },
  },
  'check_run.completed': completedCheck('check_run'),
  'check_suite.completed': completedCheck('check_suite'),
  'workflow_run.requested': {
    family: 'workflow_run',
    keys: ['workflow', 'path', 'branch', 'event'],
    async run(ctx) {
      await ctx.ready();
      await requestWorkflowRun(ctx.twin, {
        ...by(ctx),
        ...(withData({ workflow: 'CI' }, ctx.data) as { workflow: string }),
      });
    },
  },
  'workflow_run.in_progress': {
    family: 'workflow_run',
    keys: [],
    async run(ctx) {
      const run = await requestedRun(ctx);
      await ctx.ready();
      await startWorkflowRun(ctx.twin, {
        repository: ctx.repository,
        run_id: run.id,
        sender: SAMPLE_USER,
      });
    },
  },
  'workflow_run.completed': {
    family: 'workflow_run',
    keys: ['conclusion'],
    async run(ctx) {
      const run = await requestedRun(ctx);
      await startWorkflowRun(ctx.twin, {
        repository: ctx.repository,
        run_id: run.id,
        sender: SAMPLE_USER,
      });
      await ctx.ready();
      await completeWorkflowRun(ctx.twin, {
        repository: ctx.repository,
        run_id: run.id,
        conclusion: conclusion(ctx.data),
        sender: SAMPLE_USER,
      });
    },
  },
  'release.created': release,
  'release.published': release,
  'star.created': {
    family: 'star',
    keys: [],
    async run(ctx) {
      await unstarRepository(ctx.twin, { repository: ctx.repository, sender: SAMPLE_USER });
      await ctx.ready();
      await starRepository(ctx.twin, { repository: ctx.repository, sender: SAMPLE_USER });
    },
  },
  'star.deleted': {
    family: 'star',
    keys: [],
    async run(ctx) {
      await starRepository(ctx.twin, { repository: ctx.repository, sender: SAMPLE_USER });
      await ctx.ready();
      await unstarRepository(ctx.twin, { repository: ctx.repository, sender: SAMPLE_USER });
    },
  },
};
