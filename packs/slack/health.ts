// Slack turns off an app's event subscriptions when its Request URL keeps failing within an hour,
// emails the app's collaborators, and leaves re-enabling to them in the app's settings
// (https://docs.slack.dev/apis/events-api/#failure-limits). Slack counts a failure ratio over 60
// minutes; the twin counts an unbroken run of failures over the same 60 minutes, which agrees for
// a receiver that is down. Slack's 30,000 events an hour are per workspace and app, not per
// endpoint, so no per-endpoint rate is declared.
import type { EventsDeclaration } from '../../src/index.js';

export const SLACK_HEALTH: NonNullable<EventsDeclaration['health']> = {
  source: 'https://docs.slack.dev/apis/events-api/#failure-limits',
  disable: { afterMs: 3_600_000, minFailures: 10, announce: 'notice' },
};
