// The Slack pack as data: Events API event_callback envelopes (one message write rendering as
// `message` and, when the app is mentioned, `app_mention`; reactions, channel joins, App Home
// visits), url_verification when a Request URL is set, interactivity (block_actions) and slash
// commands as signed form bodies; Slack's v0 signature, and Slack's retries — three,
// immediately, after about a minute, after about five — with retry headers.
import { SLACK_HEALTH } from './health.js';
import type {
  EndpointKind,
  EventsDeclaration,
  RenderContext,
  RetryPolicy,
} from '../../src/index.js';
import type { VendorPack } from '../kit/vendor-pack.js';
import { appOfTeam, TEAM_INDEX, setInteractivityUrl, updateEventSubscription } from './apps.js';
import { slackCli } from './cli.js';
import { encodeSlackBody, envelopeValues, mentionsApp, messageSubscribed } from './envelope.js';
import { messageKind } from './messages.js';
import { slackIdShapes } from './ids.js';
import { updateSlashCommand } from './interactivity.js';
import { slackHeaders } from './retry-headers.js';
import { scenarioKeys, scenarios } from './scenarios.js';
import { scheduledMessageKind } from './scheduled-messages.js';
import { reactionKind } from './activity.js';
import { channelKind } from './workspace.js';

export const SLACK_RETRY: RetryPolicy = {
  delaysMs: [0, 60_000, 300_000],
  retryOn: ['failed', 'unknown'],
};

export const SLACK_EVENT_TYPES: readonly string[] = [
  'message',
  'app_mention',
  'reaction_added',
  'member_joined_channel',
  'app_home_opened',
  'url_verification',
  'block_actions',
  'slash_command',
  'reaction_removed',
  'channel_created',
  'team_join',
  'app_uninstalled',
  'tokens_revoked',
  'view_submission',
  'shortcut',
  'message_action',
  'member_left_channel',
  'user_change',
];

const endpoint = (type: string, urlField: string, match: EndpointKind['match']) => ({
  type,
  urlField,
  secretRefField: 'secret_ref',
  eventsField: 'event_filter',
  enabledWhen: { field: 'enabled', value: true },
  match,
});

/** Whether the app of the subject's workspace subscribes to `type`. */
function subscribed(type: string, ctx: Pick<RenderContext, 'subject' | 'view'>): boolean {
  const team = ctx.subject?.fields.team_id;
  const app = typeof team === 'string' ? appOfTeam(ctx.view, team) : undefined;
  const filter = app && ctx.view.get('event_subscription', app.id)?.fields.event_filter;
  return Array.isArray(filter) && filter.includes(type);
}

function editSubscribed(type: string, ctx: Pick<RenderContext, 'previous' | 'view'>): boolean {
  return (
    ctx.previous !== undefined && messageSubscribed(type, ctx.view, messageKind.from(ctx.previous))
  );
}

export const slackEvents: EventsDeclaration = {
  rules: [
    {
      operation: 'message.post',
      types: ['message', 'app_mention'],
      when: (type, ctx) =>
        ctx.subject !== undefined &&
        messageSubscribed(type, ctx.view, messageKind.from(ctx.subject.fields)) &&
        (type !== 'app_mention' || mentionsApp(ctx)),
    },
    // Edits and deletions reach an app subscribed to messages as `message` with a subtype.
    { operation: 'message.update', types: ['message'], when: editSubscribed },
    { operation: 'message.delete', types: ['message'], when: editSubscribed },
    // A thread's parent deleted while it has replies: changed into a tombstone.
    { operation: 'message.tombstone', types: ['message'], when: editSubscribed },
    { operation: 'reaction.add', types: ['reaction_added'] },
    { operation: 'reaction.remove', types: ['reaction_removed'] },
    // Workspace-wide events exist only for an app that subscribes to them: a world whose app does
    // not draws no event id for every channel or person made (`when` runs before the draw).
    { operation: 'channel.create', types: ['channel_created'], when: subscribed },
    { operation: 'user.create', types: ['team_join'], when: subscribed },
    { operation: 'user.update', types: ['user_change'], when: subscribed },
    // Slack revokes the bot token, then says the app is gone.
    { operation: 'app.uninstall', types: ['tokens_revoked', 'app_uninstalled'] },
    { operation: 'view.submit', types: ['view_submission'] },
    { operation: 'shortcut.run', types: ['shortcut'] },
    { operation: 'message_shortcut.run', types: ['message_action'] },
    { operation: 'channel_member.join', types: ['member_joined_channel'] },
    { operation: 'channel_member.leave', types: ['member_left_channel'] },
    { operation: 'app_home.open', types: ['app_home_opened'] },
    // Only a write that changes the Request URL verifies it.
    {
      operation: 'event_subscription.update',
      types: ['url_verification'],
      when: (_type, ctx) =>
        typeof ctx.entry.fields?.request_url === 'string' &&
        ctx.entry.fields.request_url !== ctx.previous?.request_url,
    },
    { operation: 'block_action.click', types: ['block_actions'] },
    { operation: 'slash_command.run', types: ['slash_command'] },
  ],
  envelope: '$envelope',
  values: envelopeValues,
  encodeBody: encodeSlackBody,
  eventIdPrefix: 'Ev',
  endpoints: [
    // Only the app the envelope was rendered for takes it.
    endpoint('event_subscription', 'request_url', [{ field: 'app_id', bodyPath: 'api_app_id' }]),
    // The Interactivity URL takes every interactive payload of its app (block_actions, view
    // submissions, shortcuts): no filter field applies (`interactive_events` is never written;
    // an absent filter takes every type), and `team.id` — which only interactive payloads
    // carry, events have `team_id` — keeps events and commands away from it.
    {
      ...endpoint('interactivity', 'request_url', [
        [
          { field: 'app_id', bodyPath: 'api_app_id' },
          { field: 'team_id', bodyPath: 'team.id' },
        ],
      ]),
      eventsField: 'interactive_events',
    },
    // Both must hold: one group (a `match` takes any one of its groups).
    endpoint('slash_command', 'url', [
      [
        { field: 'app_id', bodyPath: 'api_app_id' },
        { field: 'command', bodyPath: 'command' },
      ],
    ]),
  ],
  signing: 'slack',
  recordType: 'event_delivery',
  retry: SLACK_RETRY,
  health: SLACK_HEALTH,
  headers: slackHeaders,
  // Slack expects an answer within three seconds.
  timeoutMs: 3_000,
};

export const slackPack: VendorPack = {
  name: 'slack',
  description:
    'Slack: workspaces, channels, messages, reactions, App Home, interactivity and slash commands, delivered as Slack delivers them',
  indexes: [
    { type: 'app', name: TEAM_INDEX, field: 'team_id' },
    ...messageKind.indexes,
    ...scheduledMessageKind.indexes,
    ...channelKind.indexes,
    ...reactionKind.indexes,
  ],
  events: slackEvents,
  scenarios,
  scenarioKeys,
  cli: slackCli,
  idShapes: slackIdShapes,
  retireEndpoint: async (twin, kind, id) => {
    if (kind === 'interactivity') {
      const current = await twin.get('interactivity', id);
      await setInteractivityUrl(twin, id, {
        request_url: String(current?.fields.request_url),
        enabled: false,
      });
    } else if (kind === 'slash_command') await updateSlashCommand(twin, id, { enabled: false });
    else await updateEventSubscription(twin, id, { enabled: false });
  },
};
