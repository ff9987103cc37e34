// Recipes (see recipes.ts) for the events of triage, review, jobs, branches and statuses: what
// they need first (an issue or pull request, a reviewer, a workflow run), then the causing write.
import type { JsonObject, Twin } from '../../src/index.js';
import { withData } from '../kit/input.js';
import { createUser, LOGIN_INDEX } from './accounts.js';
import { createBranch, createCommitStatus, deleteBranch, type StatusState } from './refs.js';
import {
  closePullRequest,
  editPullRequest,
  openPullRequest,
  reopenPullRequest,
} from './pull-requests.js';
import { commentOnPullRequestLine, submitReview } from './reviews.js';
import { completeWorkflowJob, queueWorkflowJob, type JobConclusion } from './jobs.js';
import { addLabels, assignIssue, requestReviewers } from './triage.js';
import { openIssue } from './issues.js';
import { findRepository, FULL_NAME_INDEX, type GitHubRepository } from './repositories.js';
import { requestWorkflowRun } from './workflows.js';
import type { Recipe, RecipeContext } from './recipe.js';

const SENDER = 'octocat';
/** The second person of the sample world: reviews and takes assignments. */
const SAMPLE_REVIEWER = 'hubot';

async function ensureReviewer(twin: Twin): Promise<void> {
  if ((await twin.lookup('user', LOGIN_INDEX, SAMPLE_REVIEWER)).length === 0)
    await createUser(twin, { login: SAMPLE_REVIEWER });
}

const by = (ctx: RecipeContext) => ({ repository: ctx.repository, sender: SENDER });

/** A fresh topic branch per pull request, so a world can hold many open ones. */
async function openedPull(ctx: RecipeContext) {
  const pulls = await ctx.twin.list('pull_request');
  const pull = await openPullRequest(ctx.twin, {
    ...by(ctx),
    title: 'Amazing new feature',
    head: `topic-${pulls.length + 1}`,
    body: 'Please pull these awesome changes in!',
  });
  return { ...by(ctx), number: pull.number };
}

async function openedIssue(ctx: RecipeContext) {
  const issue = await openIssue(ctx.twin, { ...by(ctx), title: 'Found a bug' });
  return { ...by(ctx), number: issue.number };
}

const labels = (data?: JsonObject) =>
  (withData({ labels: ['bug'] }, data) as { labels: string[] }).labels;

export const reviewRecipes: Readonly<Record<string, Recipe>> = {
  'issues.labeled': {
    family: 'issues',
    keys: ['labels'],
    async run(ctx) {
      const issue = await openedIssue(ctx);
      await ctx.ready();
      await addLabels(ctx.twin, { ...issue, labels: labels(ctx.data) });
    },
  },
  'issues.assigned': {
    family: 'issues',
    keys: ['assignees'],
    async run(ctx) {
      await ensureReviewer(ctx.twin);
      const issue = await openedIssue(ctx);
      await ctx.ready();
      await assignIssue(ctx.twin, {
        ...issue,
        ...(withData({ assignees: [SAMPLE_REVIEWER] }, ctx.data) as { assignees: string[] }),
      });
    },
  },
  'pull_request.reopened': {
    family: 'pull_request',
    keys: [],
    async run(ctx) {
      const pull = await openedPull(ctx);
      await closePullRequest(ctx.twin, { ...pull, merge: false });
      await ctx.ready();
      await reopenPullRequest(ctx.twin, pull);
    },
  },
  'pull_request.edited': {
    family: 'pull_request',
    keys: ['title', 'body'],
    async run(ctx) {
      const pull = await openedPull(ctx);
      await ctx.ready();
      await editPullRequest(ctx.twin, {
        ...pull,
        ...(withData({ title: 'Amazing new feature, reworked' }, ctx.data) as { title: string }),
      });
    },
  },
  'pull_request.labeled': {
    family: 'pull_request',
    keys: ['labels'],
    async run(ctx) {
      const pull = await openedPull(ctx);
      await ctx.ready();
      await addLabels(ctx.twin, {
        ...pull,
        labels: labels(withData({ labels: ['enhancement'] }, ctx.data)),
      });
    },
  },
  'pull_request.assigned': {
    family: 'pull_request',
    keys: ['assignees'],
    async run(ctx) {
      await ensureReviewer(ctx.twin);
      const pull = await openedPull(ctx);
      await ctx.ready();
      await assignIssue(ctx.twin, {
        ...pull,
        ...(withData({ assignees: [SENDER] }, ctx.data) as { assignees: string[] }),
      });
    },
  },
  'pull_request.review_requested': {
    family: 'pull_request',
    keys: ['reviewers'],
    async run(ctx) {
      await ensureReviewer(ctx.twin);
      const pull = await openedPull(ctx);
      await ctx.ready();
      await requestReviewers(ctx.twin, {
        ...pull,
        ...(withData({ reviewers: [SAMPLE_REVIEWER] }, ctx.data) as { reviewers: string[] }),
      });
    },
  },
  'pull_request_review.submitted': {
    family: 'pull_request_review',
    keys: ['event', 'body'],
    async run(ctx) {
      await ensureReviewer(ctx.twin);
      const pull = await openedPull(ctx);
      await ctx.ready();
      await submitReview(ctx.twin, {
        ...pull,
        sender: SAMPLE_REVIEWER,
        ...(withData({ event: 'APPROVE', body: 'Looks good to me.' }, ctx.data) as {
          event: string;
        }),
      });
    },
  },
  'pull_request_review_comment.created': {
    family: 'pull_request_review_comment',
    keys: ['path', 'line', 'body'],
    async run(ctx) {
      await ensureReviewer(ctx.twin);
      const pull = await openedPull(ctx);
      await ctx.ready();
      await commentOnPullRequestLine(ctx.twin, {
        ...pull,
        sender: SAMPLE_REVIEWER,
        ...(withData({ path: 'README.md', line: 1, body: 'Maybe spell this out?' }, ctx.data) as {
          path: string;
          line: number;
          body: string;
        }),
      });
    },
  },
  'workflow_job.queued': {
    family: 'workflow_job',
    keys: ['name', 'labels'],
    async run(ctx) {
      const run = await requestWorkflowRun(ctx.twin, { ...by(ctx), workflow: 'CI' });
      await ctx.ready();
      await queueWorkflowJob(ctx.twin, {
        ...by(ctx),
        run_id: run.id,
        ...(withData({ name: 'build' }, ctx.data) as { name: string }),
      });
    },
  },
  'workflow_job.completed': {
    family: 'workflow_job',
    keys: ['conclusion'],
    async run(ctx) {
      const run = await requestWorkflowRun(ctx.twin, { ...by(ctx), workflow: 'CI' });
      const job = await queueWorkflowJob(ctx.twin, { ...by(ctx), run_id: run.id, name: 'build' });
      await ctx.ready();
      await completeWorkflowJob(ctx.twin, {
        ...by(ctx),
        job_id: job.id,
        conclusion: (ctx.data?.conclusion ?? 'success') as JobConclusion,
      });
    },
  },
  create: {
    family: 'create',
    keys: ['branch', 'from'],
    async run(ctx) {
      const branches = await ctx.twin.list('branch');
      await ctx.ready();
      await createBranch(ctx.twin, {
        ...by(ctx),
        ...(withData({ branch: `feature-${branches.length + 1}` }, ctx.data) as { branch: string }),
      });
    },
  },
  delete: {
    family: 'delete',
    keys: [],
    async run(ctx) {
      const branches = await ctx.twin.list('branch');
      const made = await createBranch(ctx.twin, {
        ...by(ctx),
        branch: `old-feature-${branches.length + 1}`,
      });
      await ctx.ready();
      await deleteBranch(ctx.twin, { ...by(ctx), branch: made.name });
    },
  },
  status: {
    family: 'status',
    keys: ['state', 'context', 'description', 'target_url'],
    async run(ctx) {
      const [r] = await ctx.twin.lookup('repository', FULL_NAME_INDEX, ctx.repository);
      const repo = r!.fields as unknown as GitHubRepository;
      const main = await ctx.twin.read((view) => {
        findRepository(view, ctx.repository);
        return view.get('branch', `${repo.id}:${repo.default_branch}`)!.fields.sha as string;
      });
      await ctx.ready();
      await createCommitStatus(ctx.twin, {
        ...by(ctx),
        sha: main,
        ...(withData(
          { state: 'success', context: 'ci/twin', description: 'The build succeeded!' },
          ctx.data,
        ) as { state: StatusState }),
      });
    },
  },
};
