// The Slack pack: its declaration, operations and scenarios.
export { slackPack as pack, slackEvents as events, SLACK_RETRY, SLACK_EVENT_TYPES } from './pack.js';
export { createTeam, createUser, createChannel, type SlackTeam, type SlackUser, type SlackChannel } from './workspace.js';
export { createApp, updateEventSubscription, BOT_EVENTS, type SlackApp, type EventSubscription, type CreateAppInput } from './apps.js';
export { postMessage, mention, type SlackMessage, type PostMessageInput } from './messages.js';
export { slackRetryReason } from './retry-headers.js';
export { slackIdShapes as idShapes } from './ids.js';
export { scenarios } from './scenarios.js';
