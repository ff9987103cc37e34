// `twinworld endpoints … slack` and `twinworld trigger slack …`: an endpoint is a Slack app —
// its Request URL, signing secret (32 hex characters, drawn when none is given) and bot events.
// Its Interactivity URL is the same URL, as a Bolt app serves both at one path. The app is made
// in the workspace `--team` names (which must exist and have no app yet) or, when none is named,
// in a new workspace of its own: this twin renders each event for one app per workspace.
// Triggers act in each workspace whose enabled app takes the event, with a person (ada) and a
// #general channel there, made by the first trigger that needs them.
import type { JsonObject, Twin } from '../../src/index.js';
import {
  option,
  requestedEvents,
  trigger,
  type EndpointSummary,
  type PackCli,
} from '../kit/cli.js';
import { checker } from '../kit/input.js';
import {
  BOT_EVENTS,
  createApp,
  deleteApp,
  setInteractivityUrl,
  updateEventSubscription,
  type EventSubscription,
  type SlackApp,
} from './apps.js';
import { slackError } from './errors.js';
import { createSlashCommand, updateSlashCommand } from './interactivity.js';
import { NOT_TRIGGERED, recipes, SLASH_COMMAND, type Recipe, type Workspace } from './recipes.js';
import {
  createChannel,
  createTeam,
  createUser,
  type SlackChannel,
  type SlackTeam,
  type SlackUser,
} from './workspace.js';
import { eventSubscriptionKind } from './apps.js';
import { channelKind, userKind } from './workspace.js';
import { teamKind } from './workspace.js';
import { appKind } from './apps.js';

const check = checker('slack');

function summary(subscription: EventSubscription): EndpointSummary {
  return {
    kind: 'event_subscription',
    id: subscription.id,
    url: subscription.request_url,
    events: subscription.bot_events,
    enabled: subscription.enabled,
    scope: subscription.team_id,
  };
}

async function listEndpoints(twin: Twin): Promise<EndpointSummary[]> {
  return (await twin.list('event_subscription')).map((r) => summary(eventSubscriptionKind.of(r)));
}

function botEvents(events: readonly string[] | undefined): string[] {
  if (events === undefined || events.includes('*')) return Object.keys(BOT_EVENTS);
  for (const e of events)
    if (!Object.hasOwn(BOT_EVENTS, e))
      throw slackError(
        'invalid_event',
        `bot event "${e}" is not sent by this twin; use "*" or ${Object.keys(BOT_EVENTS).join(', ')}`,
        'events',
        'invalid_input',
      );
  return [...events];
}

/** The person and channel triggers act as and in, made when the workspace lacks them. */
async function fixtures(twin: Twin, app: SlackApp): Promise<Workspace> {
  const teamId = app.team_id;
  const team = teamKind.of((await twin.get(teamKind.type, teamId))!);
  let user = (await twin.list('user'))
    .map((r) => userKind.of(r))
    .find((u) => u.team_id === teamId && u.name === 'ada' && !u.is_bot && !u.deleted);
  user ??= await createUser(twin, { team: teamId, name: 'ada', real_name: 'Ada Lovelace' });
  let channel = (await twin.list('channel'))
    .map((r) => channelKind.of(r))
    .find((c) => c.team_id === teamId && c.name === 'general');
  channel ??= await createChannel(twin, { team: teamId, name: 'general', creator: user.id });
  return { team, user, channel, app };
}

/** The apps whose endpoint for `type` is enabled and takes it, in the workspace named or in all. */
async function appsTaking(
  twin: Twin,
  type: string,
  recipe: Recipe,
  team: string | undefined,
): Promise<{ app: SlackApp; subscription: EventSubscription }[]> {
  const out: { app: SlackApp; subscription: EventSubscription }[] = [];
  for (const r of await twin.list('event_subscription')) {
    const subscription = eventSubscriptionKind.of(r);
    if (team !== undefined && subscription.team_id !== team) continue;
    if (!subscription.enabled) continue;
    if (recipe.endpoint === 'event_subscription' && !subscription.event_filter.includes(type))
      continue;
    if (recipe.endpoint === 'interactivity') {
      const interactivity = await twin.get('interactivity', subscription.app_id);
      if (interactivity === undefined || interactivity.deleted) continue;
      if (interactivity.fields.enabled !== true) continue;
    }
    if (recipe.endpoint === 'slash_command') {
      const command = await twin.get('slash_command', `${subscription.app_id}:${SLASH_COMMAND}`);
      if (command !== undefined && !command.deleted && command.fields.enabled !== true) continue;
    }
    const app = appKind.of((await twin.get(appKind.type, subscription.app_id))!);
    out.push({ app, subscription });
  }
  return out;
}

function fromRecipe(type: string, recipe: Recipe) {
  return trigger(['team', ...recipe.keys], async (twin, data) => {
    const { team, ...rest } = data ?? {};
    if (team !== undefined && typeof team !== 'string')
      throw slackError(
        'invalid_arguments',
        'team must be a workspace id, T…',
        'data.team',
        'invalid_input',
      );
    const apps = await appsTaking(twin, type, recipe, team);
    if (apps.length === 0)
      throw slackError(
        'app_not_found',
        `no enabled Slack app ${team === undefined ? 'in this world' : `in workspace ${team}`} takes ${type}; add one with \`twinworld endpoints add slack --url URL\` (or enable it)`,
        team === undefined ? 'eventType' : 'data.team',
      );
    const others: JsonObject | undefined = Object.keys(rest).length === 0 ? undefined : rest;
    for (const { app, subscription } of apps) {
      const w = await fixtures(twin, app);
      if (
        recipe.endpoint === 'slash_command' &&
        (await twin.get('slash_command', `${app.id}:${SLASH_COMMAND}`)) === undefined
      )
        await createSlashCommand(twin, {
          team: app.team_id,
          command: SLASH_COMMAND,
          url: subscription.request_url,
          description: 'Deploy a version',
          usage_hint: '[version]',
        });
      await recipe.run({ twin, data: others, w });
    }
  });
}

export const slackCli: PackCli = {
  endpointOptions: {
    team: 'Slack: install the app in this workspace (T…; it must exist and have no app yet);\na new workspace is made for the app when omitted',
  },
  checkEndpoint(request) {
    check.url(request.url, 'url');
    botEvents(requestedEvents(request));
    if (request.secret !== undefined) check.secret(request.secret, 'secret');
  },
  async addEndpoint(twin, request) {
    // Checked before a workspace is made for the app, so a refusal leaves nothing behind.
    const url = check.url(request.url, 'url');
    const events = botEvents(requestedEvents(request));
    const secret =
      request.secret === undefined ? undefined : check.secret(request.secret, 'secret');
    let team = option(request, 'team');
    if (team !== undefined && (await twin.get('team', team))?.deleted !== false)
      throw slackError(
        'team_not_found',
        `no workspace ${team}; leave --team out to make the app in a new workspace of its own`,
        'team',
      );
    team ??= (await createTeam(twin, { name: 'Twinworld' })).id;
    const made = await createApp(twin, {
      team,
      name: 'Twin App',
      request_url: url,
      interactivity_url: url,
      bot_events: events,
      ...(secret === undefined ? {} : { signing_secret: secret }),
    });
    return { ...summary(made.subscription), secret: made.signingSecret };
  },
  listEndpoints,
  async setEndpointEnabled(twin, endpoint, enabled) {
    await updateEventSubscription(twin, endpoint.id, { enabled });
    const interactivity = await twin.get('interactivity', endpoint.id);
    if (interactivity !== undefined && !interactivity.deleted)
      await setInteractivityUrl(twin, endpoint.id, {
        request_url: String(interactivity.fields.request_url),
        enabled,
      });
    for (const command of await twin.list('slash_command'))
      if (command.fields.app_id === endpoint.id)
        await updateSlashCommand(twin, command.id, { enabled });
  },
  async removeEndpoint(twin, endpoint) {
    await deleteApp(twin, endpoint.id);
  },
  triggers: Object.fromEntries(
    Object.entries(recipes)
      .filter(([type]) => !NOT_TRIGGERED.has(type))
      .map(([type, recipe]) => [type, fromRecipe(type, recipe)]),
  ),
};
