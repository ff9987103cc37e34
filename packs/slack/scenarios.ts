// `twinworld send slack <type>`: a fresh workspace with the target as its app's Request URL and
// signing secret, a user and a #general channel, then a post (mentioning the bot for
// app_mention). `--data` is merged into the post, e.g. {"text": "…"}.
import type { Twin } from '../../src/index.js';
import type { Scenario, ScenarioContext } from '../kit/vendor-pack.js';
import { createApp } from './apps.js';
import { mention, postMessage } from './messages.js';
import { createChannel, createTeam, createUser } from './workspace.js';

async function workspace(ctx: ScenarioContext, botEvents: string[]) {
  const twin: Twin = ctx.twin;
  const team = await createTeam(twin, { name: 'Twinworld' });
  const user = await createUser(twin, { team: team.id, name: 'ada', real_name: 'Ada Lovelace' });
  const channel = await createChannel(twin, { team: team.id, name: 'general', creator: user.id });
  const { app } = await createApp(twin, { team: team.id, name: 'Twin App', request_url: ctx.target.url, signing_secret: ctx.target.secret, bot_events: botEvents });
  return { team, user, channel, app };
}

export const scenarios: Readonly<Record<string, Scenario>> = {
  message: async (ctx) => {
    const w = await workspace(ctx, ['message.channels']);
    await postMessage(ctx.twin, { channel: w.channel.id, user: w.user.id, text: 'Hello from twinworld', ...(ctx.data as { text?: string } | undefined) });
    return { endpointKind: 'event_subscription', endpointId: w.app.id };
  },
  app_mention: async (ctx) => {
    const w = await workspace(ctx, ['app_mention']);
    const data = ctx.data as { text?: string } | undefined;
    // The mention is what makes this an app_mention, so it leads whatever text is given.
    await postMessage(ctx.twin, { channel: w.channel.id, user: w.user.id, ...data, text: `${mention(w.app.bot_user_id)} ${data?.text ?? 'can you help?'}` });
    return { endpointKind: 'event_subscription', endpointId: w.app.id };
  },
};
