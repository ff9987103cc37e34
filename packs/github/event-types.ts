// The GitHub events this twin sends, as kernel event types "<X-GitHub-Event>.<action>".
export const GITHUB_EVENT_RULES = [
  { operation: 'issue.open', types: ['issues.opened'] },
  { operation: 'issue.edit', types: ['issues.edited'] },
  { operation: 'issue.close', types: ['issues.closed'] },
  { operation: 'pull_request.open', types: ['pull_request.opened'] },
  { operation: 'pull_request.close', types: ['pull_request.closed'] },
] as const;

export const GITHUB_EVENT_TYPES: readonly string[] = GITHUB_EVENT_RULES.flatMap((r) => r.types);
