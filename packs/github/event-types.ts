// The GitHub events this twin sends, as kernel event types "<X-GitHub-Event>.<action>" — or the
// bare event name for payloads without an action (push, ping).
export const GITHUB_EVENT_RULES = [
  { operation: 'repository_hook.create', types: ['ping'] },
  { operation: 'repository_hook.ping', types: ['ping'] },
  { operation: 'organization_hook.create', types: ['ping'] },
  { operation: 'organization_hook.ping', types: ['ping'] },
  { operation: 'branch.push', types: ['push'] },
  { operation: 'issue.open', types: ['issues.opened'] },
  { operation: 'issue.edit', types: ['issues.edited'] },
  { operation: 'issue.close', types: ['issues.closed'] },
  { operation: 'issue_comment.create', types: ['issue_comment.created'] },
  { operation: 'pull_request.open', types: ['pull_request.opened'] },
  { operation: 'pull_request.synchronize', types: ['pull_request.synchronize'] },
  { operation: 'pull_request.close', types: ['pull_request.closed'] },
  { operation: 'check_run.create', types: ['check_run.created'] },
  { operation: 'check_run.complete', types: ['check_run.completed'] },
  { operation: 'check_suite.complete', types: ['check_suite.completed'] },
  { operation: 'workflow_run.request', types: ['workflow_run.requested'] },
  { operation: 'workflow_run.start', types: ['workflow_run.in_progress'] },
  { operation: 'workflow_run.complete', types: ['workflow_run.completed'] },
  { operation: 'installation.create', types: ['installation.created'] },
  { operation: 'installation.delete', types: ['installation.deleted'] },
  { operation: 'release.publish', types: ['release.created', 'release.published'] },
  { operation: 'star.create', types: ['star.created'] },
  { operation: 'star.delete', types: ['star.deleted'] },
] as const;

export const GITHUB_EVENT_TYPES: readonly string[] = [
  ...new Set(GITHUB_EVENT_RULES.flatMap((r) => r.types)),
];
