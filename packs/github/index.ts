// The GitHub pack: its declaration, operations and scenarios.
export { githubPack as pack, githubEvents as events } from './pack.js';
export {
  createUser,
  createOrganization,
  findUser,
  findOrganization,
  type GitHubUser,
  type GitHubOrganization,
  type AccountSummary,
} from './accounts.js';
export {
  createRepository,
  findRepository,
  type GitHubRepository,
  type CreateRepositoryInput,
} from './repositories.js';
export {
  push,
  findBranch,
  type GitHubBranch,
  type GitPush,
  type GitCommit,
  type PushInput,
} from './branches.js';
export { openIssue, editIssue, closeIssue, type GitHubIssue, type IssueRef } from './issues.js';
export { commentOnIssue, type GitHubIssueComment } from './comments.js';
export {
  openPullRequest,
  closePullRequest,
  type GitHubPullRequest,
  type OpenPullRequestInput,
} from './pull-requests.js';
export {
  createRepositoryHook,
  createOrganizationHook,
  updateHook,
  deleteHook,
  pingHook,
  type GitHubHook,
  type HookInput,
  type HookKind,
} from './hooks.js';
export {
  createApp,
  setAppWebhook,
  installApp,
  uninstallApp,
  type GitHubApp,
  type GitHubInstallation,
  type CreateAppInput,
  type InstallAppInput,
} from './apps.js';
export {
  createCheckRun,
  completeCheckRun,
  type GitHubCheckRun,
  type GitHubCheckSuite,
  type CheckConclusion,
  type CreateCheckRunInput,
  type CompleteCheckRunInput,
} from './checks.js';
export {
  requestWorkflowRun,
  startWorkflowRun,
  completeWorkflowRun,
  type GitHubWorkflow,
  type GitHubWorkflowRun,
  type RequestWorkflowRunInput,
} from './workflows.js';
export { publishRelease, type GitHubRelease, type PublishReleaseInput } from './releases.js';
export { starRepository, unstarRepository, type GitHubStar } from './stars.js';
export { GITHUB_EVENT_TYPES } from './event-types.js';
export { githubIdShapes as idShapes, githubTime } from './ids.js';
export { scenarios } from './scenarios.js';
export { pullRequestLife, type PullRequestLife } from './life.js';
export {
  addLabels,
  assignIssue,
  requestReviewers,
  type GitHubLabel,
  type TriageTarget,
} from './triage.js';
export { editPullRequest, reopenPullRequest } from './pull-requests.js';
export {
  submitReview,
  commentOnPullRequestLine,
  type GitHubReview,
  type GitHubReviewComment,
} from './reviews.js';
export {
  queueWorkflowJob,
  completeWorkflowJob,
  type GitHubWorkflowJob,
  type JobConclusion,
} from './jobs.js';
export {
  createBranch,
  deleteBranch,
  createCommitStatus,
  type GitHubStatus,
  type StatusState,
} from './refs.js';
export { addInstallationRepositories } from './apps.js';
export { updateIssue, type UpdateIssueInput } from './issue-update.js';
export { editComment } from './comments.js';
export { addReaction, type GitHubReaction } from './reactions.js';
export { setGitHubOrigin } from './origin.js';
