// What an app draws and how it is configured: modals and Home tabs (views.open / update /
// publish) and the app manifest (apps.manifest.create / update), the faithful way for a test to
// set an app's Request URL — Slack sends the url_verification challenge there before any event.
import type { JsonObject, JsonValue, Twin } from '../../../src/index.js';
import { createApp, updateEventSubscription } from '../apps.js';
import { blockActionKind, commandInvocationKind } from '../interactivity.js';
import { renderView } from '../render-interactive.js';
import {
  openView,
  publishView,
  shortcutRunKind,
  updateView,
  viewSubmissionKind,
} from '../views.js';
import type { ViewInput } from '../views.js';
import { SlackMethodError } from './errors.js';
import { botApp, ok, optionalStr, parsed, route, str, type SlackRoute } from './route.js';

/** The view argument: a JSON object (the pack checks its type, blocks and title). */
function viewArg(input: JsonObject): ViewInput {
  const v = parsed(input, 'view');
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new SlackMethodError('invalid_arguments', 'view must be a JSON object');
  return v as ViewInput;
}

/** The person a trigger_id (from an interactive payload) was issued to. */
async function triggerUser(twin: Twin, triggerId: string): Promise<string> {
  const user = await twin.read(
    (view) =>
      blockActionKind.read(view, triggerId)?.user ??
      commandInvocationKind.read(view, triggerId)?.user_id ??
      shortcutRunKind.read(view, triggerId)?.user ??
      viewSubmissionKind.read(view, triggerId)?.user,
  );
  if (user === undefined)
    throw new SlackMethodError(
      'invalid_trigger_id',
      `no interaction issued trigger_id ${triggerId}`,
    );
  return user;
}

type Manifest = {
  display_information?: { name?: JsonValue };
  settings?: {
    event_subscriptions?: { request_url?: JsonValue; bot_events?: JsonValue };
    interactivity?: { request_url?: JsonValue };
  };
};

function manifestOf(input: JsonObject): Manifest {
  const m = parsed(input, 'manifest');
  if (m === null || typeof m !== 'object' || Array.isArray(m))
    throw new SlackMethodError('invalid_manifest', 'manifest must be a JSON object');
  return m as Manifest;
}

function requestUrlOf(m: Manifest): string {
  const url = m.settings?.event_subscriptions?.request_url;
  if (typeof url !== 'string')
    throw new SlackMethodError(
      'invalid_manifest',
      'manifest.settings.event_subscriptions.request_url is required',
    );
  return url;
}

export const APP_METHODS: readonly SlackRoute[] = [
  route('views.open', 'write', async ({ principal: p, input }) => {
    const app = botApp(p);
    const user = await triggerUser(p.twin, str(input, 'trigger_id'));
    const view = await openView(p.twin, { app: app.id, user, view: viewArg(input) });
    return ok({ view: renderView(view) });
  }),
  route('views.publish', 'write', async ({ principal: p, input }) => {
    const app = botApp(p);
    const view = await publishView(p.twin, {
      app: app.id,
      user: str(input, 'user_id'),
      view: viewArg(input),
    });
    return ok({ view: renderView(view) });
  }),
  route('views.update', 'write', async ({ principal: p, input }) => {
    const app = botApp(p);
    const viewId = optionalStr(input, 'view_id');
    const externalId = optionalStr(input, 'external_id');
    if (viewId === undefined && externalId === undefined)
      throw new SlackMethodError('invalid_arguments', 'view_id or external_id is required');
    const hash = optionalStr(input, 'hash');
    const view = await updateView(p.twin, {
      app: app.id,
      ...(viewId === undefined ? { external_id: externalId! } : { view_id: viewId }),
      ...(hash === undefined ? {} : { hash }),
      view: viewArg(input),
    });
    return ok({ view: renderView(view) });
  }),
  route(
    'apps.manifest.create',
    'write',
    async ({ principal: p, input, origin }) => {
      // The twin's manifest API takes a person's token (xoxp-) and installs the new app in that
      // person's workspace at once; its bot token is then xoxb-<app_id>-….
      if (p.isBot)
        throw new SlackMethodError(
          'not_allowed_token_type',
          'apps.manifest.create takes a person\u2019s token (xoxp-)',
        );
      const m = manifestOf(input);
      const name = m.display_information?.name;
      if (typeof name !== 'string' || name === '')
        throw new SlackMethodError(
          'invalid_manifest',
          'manifest.display_information.name is required',
        );
      const events = m.settings?.event_subscriptions?.bot_events;
      const interactivity = m.settings?.interactivity?.request_url;
      const { app, signingSecret } = await createApp(p.twin, {
        team: p.team,
        name,
        request_url: requestUrlOf(m),
        verify_url: true,
        ...(Array.isArray(events) ? { bot_events: events.map(String) } : {}),
        ...(typeof interactivity === 'string' ? { interactivity_url: interactivity } : {}),
      });
      return ok({
        app_id: app.id,
        credentials: {
          client_id: `${app.team_id}.${app.id}`,
          verification_token: app.verification_token,
          signing_secret: signingSecret,
        },
        oauth_authorize_url: `${origin}/oauth/v2/authorize?client_id=${app.team_id}.${app.id}`,
      });
    },
    ['url_verification'],
  ),
  route(
    'apps.manifest.update',
    'write',
    async ({ principal: p, input }) => {
      const app = botApp(p);
      if (input.app_id !== undefined && input.app_id !== app.id)
        throw new SlackMethodError('invalid_app_id', `the token belongs to app ${app.id}`);
      const m = manifestOf(input);
      const events = m.settings?.event_subscriptions?.bot_events;
      await updateEventSubscription(p.twin, app.id, {
        request_url: requestUrlOf(m),
        ...(Array.isArray(events) ? { bot_events: events.map(String) } : {}),
      });
      return ok({ app_id: app.id, permissions_updated: false });
    },
    ['url_verification'],
  ),
];
