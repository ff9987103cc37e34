// A Slack app installed in a workspace: its bot user, its signing secret (in world.secrets) and
// its Events API subscription — the endpoint, with the Request URL and the bot events it wants.
// Setting a new Request URL sends Slack's url_verification challenge to it. One app per
// workspace: an event is rendered once, for the one app it is addressed to.
import {
  commit,
  type JsonObject,
  type ProjectedResource,
  type ReadView,
  type Twin,
  type Write,
} from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin, secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import { slackError } from './errors.js';
import { slackIds } from './ids.js';
import { getTeam } from './workspace.js';
import { recordKind } from '../../src/index.js';

export const TEAM_INDEX = 'team_id';

export type SlackApp = {
  id: string;
  name: string;
  team_id: string;
  bot_id: string;
  bot_user_id: string;
  verification_token: string;
};

/** The app records of the twin, typed (src/state/record-kind.ts). */
export const appKind = recordKind<SlackApp>({ type: 'app' });

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

/** The event_subscription records of the twin, typed (src/state/record-kind.ts). */
export const eventSubscriptionKind = recordKind<EventSubscription>({ type: 'event_subscription' });

/** Bot events this twin sends, and the kernel event type each one subscribes to. */
export const BOT_EVENTS: Readonly<Record<string, string>> = {
  'message.channels': 'message',
  app_mention: 'app_mention',
  reaction_added: 'reaction_added',
  app_home_opened: 'app_home_opened',
  member_joined_channel: 'member_joined_channel',
  reaction_removed: 'reaction_removed',
  channel_created: 'channel_created',
  team_join: 'team_join',
  app_uninstalled: 'app_uninstalled',
  tokens_revoked: 'tokens_revoked',
  member_left_channel: 'member_left_channel',
  user_change: 'user_change',
  'message.im': 'message',
};

/** The Interactivity Request URL: where block_actions payloads go (form-encoded). */
export type Interactivity = {
  id: string;
  app_id: string;
  team_id: string;
  request_url: string;
  enabled: boolean;
  secret_ref: string;
  event_filter: string[];
};

const check = checker('slack');

function eventFilter(value: unknown): { bot_events: string[]; event_filter: string[] } {
  const events = check.stringArray(value, 'bot_events');
  for (const e of events) {
    if (!(e in BOT_EVENTS))
      throw slackError(
        'invalid_event',
        `bot event "${e}" is not sent by this twin; use ${Object.keys(BOT_EVENTS).join(', ')}`,
        'bot_events',
        'invalid_input',
      );
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
  /** Where interactive payloads (block_actions) go; none when omitted. */
  interactivity_url?: string;
  /**
   * Verify the Request URL as Slack does for an app made from a manifest (apps.manifest.create):
   * the subscription starts without a URL and is given it in the same commit, which sends the
   * url_verification challenge there before any event. Without it the URL counts as verified.
   */
  verify_url?: boolean;
}

function interactivityOf(appId: string, teamId: string, url: string, ref: string): Interactivity {
  return {
    id: appId,
    app_id: appId,
    team_id: teamId,
    request_url: url,
    enabled: true,
    secret_ref: ref,
    event_filter: ['block_actions'],
  };
}

/**
 * Creates and installs the app with its Request URL already verified (as an app made from a
 * manifest); answers it with its signing secret (shown once, as in app settings).
 */
export async function createApp(
  twin: Twin,
  input: CreateAppInput,
): Promise<{ app: SlackApp; subscription: EventSubscription; signingSecret: string }> {
  requirePackTwin(twin, 'slack');
  const name = check.string(input?.name, 'name');
  const url = check.url(input.request_url, 'request_url');
  const events = eventFilter(input.bot_events ?? ['message.channels', 'app_mention']);
  const interactivityUrl =
    input.interactivity_url === undefined
      ? undefined
      : check.url(input.interactivity_url, 'interactivity_url');
  const ids = twin.world.ids;
  const secret =
    input.signing_secret === undefined
      ? slackIds.signingSecret(ids)
      : check.secret(input.signing_secret, 'signing_secret');
  const appId = slackIds.app(ids);
  const ref = secretRefFor(twin, appId);
  const done = await withStoredSecret(twin, ref, secret, () =>
    twin.applyAtomic((view) => {
      getTeam(view, input.team);
      if (appOfTeam(view, input.team) !== undefined) {
        throw slackError(
          'app_already_installed',
          `workspace ${input.team} already has an app; this twin renders each event for one app per workspace`,
          'team',
          'conflict',
        );
      }
      const botUserId = slackIds.user(ids);
      const app: SlackApp = {
        id: appId,
        name,
        team_id: input.team,
        bot_id: slackIds.bot(ids),
        bot_user_id: botUserId,
        verification_token: slackIds.verificationToken(ids),
      };
      const subscription: EventSubscription = {
        id: appId,
        app_id: appId,
        team_id: input.team,
        request_url: url,
        ...events,
        enabled: true,
        secret_ref: ref,
      };
      const verified: readonly Write[] =
        input.verify_url === true
          ? [
              eventSubscriptionKind.write('event_subscription.update', appId, {
                request_url: url,
                enabled: true,
                event_filter: [...events.event_filter, URL_VERIFICATION],
              }),
            ]
          : [];
      const interactivity: ProjectedResource[] =
        interactivityUrl === undefined
          ? []
          : [
              {
                type: 'interactivity',
                id: appId,
                fields: interactivityOf(appId, input.team, interactivityUrl, ref),
              },
            ];
      const install: Write = {
        operation: 'app.install',
        subjectType: 'app',
        subjectId: appId,
        fields: app,
        projection: {
          creates: [
            {
              type: 'user',
              id: botUserId,
              fields: {
                id: botUserId,
                team_id: input.team,
                name: name.toLowerCase().replace(/[^a-z0-9]+/g, '_'),
                real_name: name,
                is_bot: true,
                deleted: false,
              },
            },
            {
              type: 'event_subscription',
              id: appId,
              fields:
                verified.length === 0
                  ? subscription
                  : { ...subscription, request_url: '', enabled: false },
            },
            ...interactivity,
          ],
        },
      };
      const answer = { app, subscription, signingSecret: secret };
      // An app whose URL counts as verified is one write, as it always was (golden logs).
      return verified.length === 0
        ? commit(install, answer)
        : commit([install, ...verified], answer);
    }),
  );
  return done.result;
}

/**
 * Changes the Events API subscription. A new Request URL is verified as Slack does: the
 * url_verification challenge goes to it, signed like every event (the subscription takes
 * url_verification from then on).
 */
export async function updateEventSubscription(
  twin: Twin,
  appId: string,
  input: { request_url?: string; bot_events?: string[]; enabled?: boolean },
): Promise<EventSubscription> {
  requirePackTwin(twin, 'slack');
  const fields: JsonObject = {};
  if (input.request_url !== undefined)
    fields.request_url = check.url(input.request_url, 'request_url');
  if (input.bot_events !== undefined) Object.assign(fields, eventFilter(input.bot_events));
  if (input.enabled !== undefined) fields.enabled = check.boolean(input.enabled, 'enabled');
  const done = await twin.applyAtomic((view) => {
    const r = view.get('event_subscription', appId);
    if (r === undefined || r.deleted) throw slackError('app_not_found', `no app ${appId}`, 'app');
    const current = eventSubscriptionKind.of(r);
    if (fields.request_url !== undefined && fields.request_url !== current.request_url) {
      const filter = (fields.event_filter as string[] | undefined) ?? current.event_filter;
      fields.event_filter = filter.includes(URL_VERIFICATION)
        ? filter
        : [...filter, URL_VERIFICATION];
      // Slack verifies the URL it is given: the subscription is on from the moment it answers.
      if (input.enabled === undefined) fields.enabled = true;
    } else if (
      fields.event_filter !== undefined &&
      current.event_filter.includes(URL_VERIFICATION)
    ) {
      fields.event_filter = [...(fields.event_filter as string[]), URL_VERIFICATION];
    }
    return commit(
      {
        operation: 'event_subscription.update',
        subjectType: 'event_subscription',
        subjectId: appId,
        fields,
      },
      { ...current, ...fields } as EventSubscription,
    );
  });
  return done.result;
}

const URL_VERIFICATION = 'url_verification';

/** Sets (or changes) the app's Interactivity Request URL, where block_actions payloads go. */
export async function setInteractivityUrl(
  twin: Twin,
  appId: string,
  input: { request_url: string; enabled?: boolean },
): Promise<Interactivity> {
  requirePackTwin(twin, 'slack');
  const url = check.url(input?.request_url, 'request_url');
  const enabled = input.enabled === undefined ? true : check.boolean(input.enabled, 'enabled');
  const done = await twin.applyAtomic((view) => {
    const app = view.get('app', appId);
    if (app === undefined || app.deleted)
      throw slackError('app_not_found', `no app ${appId}`, 'app');
    const existing = view.get('interactivity', appId);
    const fields = {
      ...interactivityOf(appId, String(app.fields.team_id), url, secretRefFor(twin, appId)),
      enabled,
    };
    const write =
      existing === undefined
        ? {
            operation: 'interactivity.create',
            subjectType: 'interactivity',
            subjectId: appId,
            fields,
          }
        : {
            operation: 'interactivity.update',
            subjectType: 'interactivity',
            subjectId: appId,
            fields: { request_url: url, enabled },
          };
    return commit(write, fields);
  });
  return done.result;
}

/**
 * Deletes the app (Slack's "Delete App"): its Events API subscription, Interactivity URL and
 * slash commands go with it and its bot user is deactivated, in one commit; its signing secret
 * leaves the secret store.
 */
export async function deleteApp(twin: Twin, appId: string): Promise<void> {
  requirePackTwin(twin, 'slack');
  await twin.applyAtomic((view) => {
    const app = view.get('app', appId);
    if (app === undefined || app.deleted)
      throw slackError('app_not_found', `no app ${appId}`, 'app');
    const gone = (type: string, id: string) => ({
      operation: `${type}.delete`,
      subjectType: type,
      subjectId: id,
      delete: true as const,
    });
    const commands = view.list('slash_command').filter((c) => c.fields.app_id === appId);
    return commit([
      ...commands.map((c) => gone('slash_command', c.id)),
      ...(view.get('interactivity', appId)?.deleted === false
        ? [gone('interactivity', appId)]
        : []),
      gone('event_subscription', appId),
      {
        operation: 'user.deactivate',
        subjectType: 'user',
        subjectId: String(app.fields.bot_user_id),
        fields: { deleted: true },
      },
      gone('app', appId),
    ]);
  });
  await twin.world.secrets.delete(secretRefFor(twin, appId));
}

/**
 * Uninstalls the app from its workspace: Slack revokes its bot token (`tokens_revoked`) and tells
 * it (`app_uninstalled`), both from one write. The app, its subscription and its secret stay, so
 * those two events still reach its Request URL; the Web API refuses its token from then on.
 */
export async function uninstallApp(twin: Twin, appId: string): Promise<void> {
  requirePackTwin(twin, 'slack');
  await twin.applyAtomic((view) => {
    const app = view.get('app', appId);
    if (app === undefined || app.deleted || app.fields.uninstalled === true)
      throw slackError('app_not_found', `no app ${appId} installed`, 'app');
    return commit(
      {
        operation: 'app.uninstall',
        subjectType: 'app',
        subjectId: appId,
        fields: { uninstalled: true },
      },
      undefined,
    );
  });
}
