// The events apps built on GitHub and Slack wait for most, per vendor: the lists issue 27 measures
// the packs against (test/packs/event-coverage.test.ts writes docs/event-coverage.md). Neither
// vendor publishes usage numbers, so each list is our own reading, stated here so it can be
// argued with: the events issue 27 names, the events the vendors' SDK docs and starter apps
// handle (Probot's and Bolt's examples, GitHub Actions' common workflow triggers, Slack's
// Events API and interactivity guides), and the ones a CI, review or chat bot cannot do without.
// An entry stays on its list whether or not the twin sends it: that is what the percentage means.

export interface MostUsed {
  /** As the vendor names it: GitHub `X-GitHub-Event.action`; Slack the event type or payload type. */
  readonly name: string;
  /** Why it is on the list. */
  readonly why: string;
}

export const GITHUB_MOST_USED: readonly MostUsed[] = [
  { name: 'ping', why: 'every new webhook receives it first' },
  { name: 'push', why: 'the most common CI trigger' },
  { name: 'create', why: 'branch and tag creation (release automation)' },
  { name: 'delete', why: 'branch cleanup, preview environments torn down' },
  { name: 'status', why: 'commit statuses from external CI' },
  { name: 'issues.opened', why: 'triage bots' },
  { name: 'issues.edited', why: 'triage bots re-reading a changed issue' },
  { name: 'issues.closed', why: 'project boards, changelogs' },
  { name: 'issues.reopened', why: 'triage bots' },
  { name: 'issues.labeled', why: 'label-driven automation' },
  { name: 'issues.assigned', why: 'assignment notifications' },
  { name: 'issue_comment.created', why: 'chat-ops commands in comments' },
  { name: 'issue_comment.edited', why: 'commands re-read after an edit' },
  { name: 'pull_request.opened', why: 'CI and review bots' },
  { name: 'pull_request.synchronize', why: 'CI on every new commit' },
  { name: 'pull_request.closed', why: 'merge automation (`merged: true`)' },
  { name: 'pull_request.reopened', why: 'CI re-run on reopen' },
  { name: 'pull_request.edited', why: 'title and body linters' },
  { name: 'pull_request.labeled', why: 'label-driven merges and deploys' },
  { name: 'pull_request.assigned', why: 'assignment notifications' },
  { name: 'pull_request.review_requested', why: 'reviewer notifications' },
  { name: 'pull_request.ready_for_review', why: 'draft → ready CI gates' },
  { name: 'pull_request_review.submitted', why: 'approval gates' },
  { name: 'pull_request_review_comment.created', why: 'review bots answering line comments' },
  { name: 'check_run.created', why: 'GitHub Apps running checks' },
  { name: 'check_run.completed', why: 'status aggregation, auto-merge' },
  { name: 'check_run.rerequested', why: 'the "Re-run" button of a GitHub App check' },
  { name: 'check_suite.requested', why: 'a GitHub App starting its checks for a push' },
  { name: 'check_suite.completed', why: 'status aggregation, auto-merge' },
  { name: 'workflow_run.requested', why: 'workflow dashboards' },
  { name: 'workflow_run.completed', why: 'chaining workflows, notifications' },
  { name: 'workflow_job.queued', why: 'self-hosted runner autoscalers' },
  { name: 'workflow_job.completed', why: 'self-hosted runner autoscalers' },
  { name: 'installation.created', why: 'every GitHub App onboards an account' },
  { name: 'installation.deleted', why: 'every GitHub App offboards an account' },
  { name: 'installation_repositories.added', why: 'GitHub Apps on selected repositories' },
  { name: 'release.published', why: 'release notes, package publishing' },
  { name: 'deployment_status.created', why: 'deploy notifications' },
  { name: 'star.created', why: 'community dashboards' },
  { name: 'fork', why: 'community dashboards' },
];

export const SLACK_MOST_USED: readonly MostUsed[] = [
  { name: 'url_verification', why: 'every Request URL is verified before any event' },
  { name: 'message.channels', why: 'the message event in public channels' },
  { name: 'message.im', why: 'people talking to the bot in its DM' },
  { name: 'message_changed', why: 'message subtype: bots re-reading an edited message' },
  { name: 'message_deleted', why: 'message subtype: bots cleaning up after a deletion' },
  { name: 'app_mention', why: 'the way people call a bot in a channel' },
  { name: 'reaction_added', why: 'emoji-driven workflows' },
  { name: 'reaction_removed', why: 'emoji-driven workflows, undone' },
  { name: 'member_joined_channel', why: 'welcome bots' },
  { name: 'member_left_channel', why: 'membership sync' },
  { name: 'channel_created', why: 'workspace governance bots' },
  { name: 'team_join', why: 'onboarding bots' },
  { name: 'user_change', why: 'directory sync' },
  { name: 'app_home_opened', why: 'every app with a Home tab' },
  { name: 'app_uninstalled', why: 'every app cleans up its installation' },
  { name: 'tokens_revoked', why: 'every app drops revoked tokens' },
  { name: 'link_shared', why: 'unfurling apps' },
  { name: 'file_shared', why: 'file-processing bots' },
  { name: 'block_actions', why: 'buttons and menus in messages' },
  { name: 'view_submission', why: 'every modal form' },
  { name: 'view_closed', why: 'modals that track cancellation' },
  { name: 'shortcut', why: 'global shortcuts' },
  { name: 'message_action', why: 'message shortcuts' },
  { name: 'slash_command', why: 'slash commands' },
];
