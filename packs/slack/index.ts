// The Slack pack: its declaration, operations and scenarios.
export {
  slackPack as pack,
  slackEvents as events,
  SLACK_RETRY,
  SLACK_EVENT_TYPES,
} from './pack.js';
export {
  createTeam,
  createUser,
  createChannel,
  updateUser,
  type SlackTeam,
  type SlackUser,
  type SlackChannel,
} from './workspace.js';
export {
  createApp,
  updateEventSubscription,
  setInteractivityUrl,
  deleteApp,
  BOT_EVENTS,
  type SlackApp,
  type EventSubscription,
  type CreateAppInput,
  type Interactivity,
} from './apps.js';
export { postMessage, mention, type SlackMessage, type PostMessageInput } from './messages.js';
export {
  addReaction,
  joinChannel,
  openAppHome,
  type SlackReaction,
  type ChannelMember,
  type AppHomeVisit,
} from './activity.js';
export {
  createSlashCommand,
  updateSlashCommand,
  runSlashCommand,
  clickButton,
  type SlashCommand,
  type BlockActionFields,
  type CommandInvocation,
} from './interactivity.js';
export { slackConversation, type SlackConversation } from './conversation.js';
export { slackRetryReason } from './retry-headers.js';
export { slackIdShapes as idShapes } from './ids.js';
export { scenarios, APPROVE_BLOCKS } from './scenarios.js';
export { removeReaction, leaveChannel } from './activity.js';
export { uninstallApp } from './apps.js';
export {
  openView,
  updateView,
  publishView,
  submitView,
  runShortcut,
  type SlackView,
  type ViewInput,
  type ViewSubmission,
  type ShortcutRun,
} from './views.js';
export {
  updateMessage,
  deleteMessage,
  postEphemeral,
  type EphemeralMessage,
} from './message-edits.js';
export {
  scheduleMessage,
  deleteScheduledMessage,
  scheduledDueAt,
  postDueScheduledMessages,
  type ScheduledMessage,
} from './scheduled-messages.js';
export { openDirectMessage, type DirectMessage } from './direct-messages.js';
