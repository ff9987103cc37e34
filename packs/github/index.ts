// The GitHub pack: its declaration, operations and scenarios.
export { githubPack as pack, githubEvents as events } from './pack.js';
export { createUser, createOrganization, findUser, findOrganization, type GitHubUser, type GitHubOrganization, type AccountSummary } from './accounts.js';
export { createRepository, findRepository, type GitHubRepository, type CreateRepositoryInput } from './repositories.js';
export { openIssue, editIssue, closeIssue, type GitHubIssue, type IssueRef } from './issues.js';
export { openPullRequest, closePullRequest, type GitHubPullRequest, type OpenPullRequestInput } from './pull-requests.js';
export { createRepositoryHook, createOrganizationHook, updateHook, deleteHook, type GitHubHook, type HookInput, type HookKind } from './hooks.js';
export { GITHUB_EVENT_TYPES } from './event-types.js';
export { githubIdShapes as idShapes, githubTime } from './ids.js';
export { scenarios } from './scenarios.js';
