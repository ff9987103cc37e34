// The Slack pack as data: Events API event_callback envelopes, one message write rendering as
// `message` and (when the app is mentioned) `app_mention`, Slack's v0 signature, and Slack's
// retries — three, immediately, after about a minute, after about five — with retry headers.
import type { EventsDeclaration, RetryPolicy } from '../../src/index.js';
import type { VendorPack } from '../kit/vendor-pack.js';
import { TEAM_INDEX, updateEventSubscription } from './apps.js';
import { envelopeValues, mentionsApp } from './envelope.js';
import { slackIdShapes } from './ids.js';
import { slackHeaders } from './retry-headers.js';
import { scenarios } from './scenarios.js';

export const SLACK_RETRY: RetryPolicy = {
  delaysMs: [0, 60_000, 300_000],
  retryOn: ['failed', 'unknown'],
};

export const SLACK_EVENT_TYPES: readonly string[] = ['message', 'app_mention'];

export const slackEvents: EventsDeclaration = {
  rules: [{ operation: 'message.post', types: SLACK_EVENT_TYPES, when: (type, ctx) => type !== 'app_mention' || mentionsApp(ctx) }],
  envelope: {
    token: '$token',
    team_id: '$teamId',
    context_team_id: '$teamId',
    context_enterprise_id: null,
    api_app_id: '$appId',
    event: '$event',
    type: 'event_callback',
    event_id: '$id',
    event_time: '$created',
    authorizations: '$authorizations',
    is_ext_shared_channel: false,
    event_context: '$eventContext',
  },
  values: envelopeValues,
  eventIdPrefix: 'Ev',
  endpoints: [
    {
      type: 'event_subscription',
      urlField: 'request_url',
      secretRefField: 'secret_ref',
      eventsField: 'event_filter',
      enabledWhen: { field: 'enabled', value: true },
      // Only the app the envelope was rendered for takes it.
      match: [{ field: 'app_id', bodyPath: 'api_app_id' }],
    },
  ],
  signing: 'slack',
  recordType: 'event_delivery',
  retry: SLACK_RETRY,
  headers: slackHeaders,
  // Slack expects an answer within three seconds.
  timeoutMs: 3_000,
};

export const slackPack: VendorPack = {
  name: 'slack',
  description: 'Slack: workspaces, channels and messages, delivered as Events API callbacks',
  indexes: [{ type: 'app', name: TEAM_INDEX, field: 'team_id' }],
  events: slackEvents,
  scenarios,
  idShapes: slackIdShapes,
  retireEndpoint: (twin, _kind, id) => updateEventSubscription(twin, id, { enabled: false }),
};
