// A Slack app installed in a workspace: its bot user, its signing secret (in world.secrets) and
// its Events API subscription — the endpoint, with the Request URL and the bot events it wants.
// One app per workspace: an event is rendered once, for the one app it is addressed to.
import { commit, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin, secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { slackIds } from './ids.js';
import { getTeam } from './workspace.js';

export const TEAM_INDEX = 'team_id';

export type SlackApp = { id: string; name: string; team_id: string; bot_id: string; bot_user_id: string; verification_token: string };

export type EventSubscription = {
  id: string;
  app_id: string;
  team_id: string;
  request_url: string;
  /** Slack's bot event names: message.channels, app_mention. */
  bot_events: string[];
  enabled: boolean;
  // Twin bookkeeping read by the kernel's fan-out:
  secret_ref: string;
  event_filter: string[];
};

/** Bot events this twin sends, and the kernel event type each one subscribes to. */
export const BOT_EVENTS: Readonly<Record<string, string>> = { 'message.channels': 'message', app_mention: 'app_mention' };

const check = checker('slack');

function eventFilter(value: unknown): { bot_events: string[]; event_filter: string[] } {
  const events = check.stringArray(value, 'bot_events');
  for (const e of events) {
    if (!(e in BOT_EVENTS)) throw slackError('invalid_event', `bot event "${e}" is not sent by this twin; use ${Object.keys(BOT_EVENTS).join(', ')}`, 'bot_events', 'invalid_input');
  }
  return { bot_events: events, event_filter: [...new Set(events.map((e) => BOT_EVENTS[e]!))] };
}

export function appOfTeam(view: ReadView, teamId: string): SlackApp | undefined {
  return view.lookup('app', TEAM_INDEX, teamId)[0]?.fields as SlackApp | undefined;
}

export interface CreateAppInput {
  team: string;
  name: string;
  request_url: string;
  bot_events?: string[];
  /** Defaults to 32 hex characters drawn from the world's id source. */
  signing_secret?: string;
}

/** Creates and installs the app; answers it with its signing secret (shown once, as in app settings). */
export async function createApp(twin: Twin, input: CreateAppInput): Promise<{ app: SlackApp; subscription: EventSubscription; signingSecret: string }> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  const url = check.url(input.request_url, 'request_url');
  const events = eventFilter(input.bot_events ?? ['message.channels', 'app_mention']);
  const ids = twin.world.ids;
  const secret = input.signing_secret === undefined ? slackIds.signingSecret(ids) : check.secret(input.signing_secret, 'signing_secret');
  const appId = slackIds.app(ids);
  const ref = secretRefFor(twin, appId);
  return withStoredSecret(twin, ref, secret, async () =>
    (await twin.applyAtomic((view) => {
      getTeam(view, input.team);
      if (appOfTeam(view, input.team) !== undefined) {
        throw slackError('app_already_installed', `workspace ${input.team} already has an app; this twin renders each event for one app per workspace`, 'team', 'conflict');
      }
      const botUserId = slackIds.user(ids);
      const app: SlackApp = { id: appId, name, team_id: input.team, bot_id: slackIds.bot(ids), bot_user_id: botUserId, verification_token: slackIds.verificationToken(ids) };
      const subscription: EventSubscription = { id: appId, app_id: appId, team_id: input.team, request_url: url, ...events, enabled: true, secret_ref: ref };
      return commit(
        {
          operation: 'app.install',
          subjectType: 'app',
          subjectId: appId,
          fields: app,
          projection: {
            creates: [
              { type: 'user', id: botUserId, fields: { id: botUserId, team_id: input.team, name: name.toLowerCase().replace(/[^a-z0-9]+/g, '_'), real_name: name, is_bot: true, deleted: false } },
              { type: 'event_subscription', id: appId, fields: subscription },
            ],
          },
        },
        { app, subscription, signingSecret: secret },
      );
    })).result,
  );
}

export async function updateEventSubscription(twin: Twin, appId: string, input: { request_url?: string; bot_events?: string[]; enabled?: boolean }): Promise<EventSubscription> {
  requirePackTwin(twin, 'slack');
  const fields: JsonObject = {};
  if (input.request_url !== undefined) fields.request_url = check.url(input.request_url, 'request_url');
  if (input.bot_events !== undefined) Object.assign(fields, eventFilter(input.bot_events));
  if (input.enabled !== undefined) fields.enabled = check.boolean(input.enabled, 'enabled');
  return (await twin.applyAtomic((view) => {
    const r = view.get('event_subscription', appId);
    if (r === undefined || r.deleted) throw slackError('app_not_found', `no app ${appId}`, 'app');
    return commit({ operation: 'event_subscription.update', subjectType: 'event_subscription', subjectId: appId, fields }, { ...(r.fields as unknown as EventSubscription), ...fields } as EventSubscription);
  })).result;
}
