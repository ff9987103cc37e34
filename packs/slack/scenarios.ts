// `twinworld send slack <type>`: a fresh workspace with the target as its app's Request URL (or
// Interactivity URL, or a slash command's URL) and signing secret, a user and a #general
// channel, then the type's recipe (recipes.ts). `--data` is merged into it, e.g. {"text": "…"}.
import type {
  Scenario,
  ScenarioContext,
  ScenarioKeys,
  ScenarioResult,
} from '../kit/vendor-pack.js';
import { createApp, setInteractivityUrl, updateEventSubscription } from './apps.js';
import { createSlashCommand } from './interactivity.js';
import { recipes, SLASH_COMMAND, type Recipe, type Workspace } from './recipes.js';
import { createChannel, createTeam, createUser } from './workspace.js';

export { APPROVE_BLOCKS } from './recipes.js';

const ELSEWHERE = 'https://events.example.com/slack/events';

async function workspace(
  ctx: ScenarioContext,
  botEvents: string[],
  requestUrl = ctx.target.url,
): Promise<Workspace> {
  const twin = ctx.twin;
  const team = await createTeam(twin, { name: 'Twinworld' });
  const user = await createUser(twin, { team: team.id, name: 'ada', real_name: 'Ada Lovelace' });
  const channel = await createChannel(twin, { team: team.id, name: 'general', creator: user.id });
  const { app } = await createApp(twin, {
    team: team.id,
    name: 'Twin App',
    request_url: requestUrl,
    signing_secret: ctx.target.secret,
    bot_events: botEvents,
  });
  return { team, user, channel, app };
}

/** The app's Request URL is the target, subscribed to `botEvent` only. */
function viaEvents(recipe: Recipe, botEvent: string): Scenario {
  return async (ctx) => {
    const w = await workspace(ctx, [botEvent]);
    await recipe.run({ twin: ctx.twin, data: ctx.data, w });
    return { endpointKind: 'event_subscription', endpointId: w.app.id };
  };
}

/** The app's Interactivity URL is the target; its Request URL is elsewhere. */
function viaInteractivity(recipe: Recipe): Scenario {
  return async (ctx): Promise<ScenarioResult> => {
    const w = await workspace(ctx, ['app_mention'], ELSEWHERE);
    await setInteractivityUrl(ctx.twin, w.app.id, { request_url: ctx.target.url });
    await recipe.run({ twin: ctx.twin, data: ctx.data, w });
    return { endpointKind: 'interactivity', endpointId: w.app.id };
  };
}

export const scenarios: Readonly<Record<string, Scenario>> = {
  message: viaEvents(recipes.message!, 'message.channels'),
  app_mention: viaEvents(recipes.app_mention!, 'app_mention'),
  reaction_added: viaEvents(recipes.reaction_added!, 'reaction_added'),
  member_joined_channel: viaEvents(recipes.member_joined_channel!, 'member_joined_channel'),
  app_home_opened: viaEvents(recipes.app_home_opened!, 'app_home_opened'),
  reaction_removed: viaEvents(recipes.reaction_removed!, 'reaction_removed'),
  channel_created: viaEvents(recipes.channel_created!, 'channel_created'),
  team_join: viaEvents(recipes.team_join!, 'team_join'),
  member_left_channel: viaEvents(recipes.member_left_channel!, 'member_left_channel'),
  user_change: viaEvents(recipes.user_change!, 'user_change'),
  app_uninstalled: viaEvents(recipes.app_uninstalled!, 'app_uninstalled'),
  tokens_revoked: viaEvents(recipes.tokens_revoked!, 'tokens_revoked'),
  view_submission: viaInteractivity(recipes.view_submission!),
  shortcut: viaInteractivity(recipes.shortcut!),
  message_action: viaInteractivity(recipes.message_action!),
  url_verification: async (ctx) => {
    // Installed with another URL; setting the target as the Request URL sends the challenge there.
    const w = await workspace(ctx, ['message.channels'], 'https://old.example.com/slack/events');
    await updateEventSubscription(ctx.twin, w.app.id, { request_url: ctx.target.url });
    return { endpointKind: 'event_subscription', endpointId: w.app.id };
  },
  block_actions: viaInteractivity(recipes.block_actions!),
  slash_command: async (ctx) => {
    const w = await workspace(ctx, ['app_mention'], ELSEWHERE);
    const command = await createSlashCommand(ctx.twin, {
      team: w.team.id,
      command: SLASH_COMMAND,
      url: ctx.target.url,
      description: 'Deploy a version',
      usage_hint: '[version]',
    });
    await recipes.slash_command!.run({ twin: ctx.twin, data: ctx.data, w });
    return { endpointKind: 'slash_command', endpointId: command.id };
  },
};

/** Each scenario takes its recipe's keys; setting a Request URL (url_verification) takes none. */
export const scenarioKeys: Readonly<Record<string, ScenarioKeys>> = Object.fromEntries(
  Object.keys(scenarios).map((type) => [type, recipes[type]?.keys ?? []]),
);
