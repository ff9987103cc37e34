// `twinworld send slack <type>`: a fresh workspace with the target as its app's Request URL (or
// Interactivity URL, or a slash command's URL) and signing secret, a user and a #general
// channel, then the causing write. `--data` is merged into it, e.g. {"text": "…"}.
import type { JsonObject, Twin } from '../../src/index.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../kit/vendor-pack.js';
import { joinChannel, openAppHome, addReaction } from './activity.js';
import { createApp, setInteractivityUrl, updateEventSubscription } from './apps.js';
import { createSlashCommand, clickButton, runSlashCommand } from './interactivity.js';
import { mention, postMessage } from './messages.js';
import { createChannel, createTeam, createUser } from './workspace.js';

/** A button a bot posts: what block_actions scenarios click. */
export const APPROVE_BLOCKS: JsonObject[] = [
  {
    type: 'section',
    block_id: 'request',
    text: { type: 'mrkdwn', text: 'Deploy *v1.2.0* to production?' },
  },
  {
    type: 'actions',
    block_id: 'decision',
    elements: [
      {
        type: 'button',
        action_id: 'approve',
        text: { type: 'plain_text', text: 'Approve', emoji: true },
        value: 'v1.2.0',
        style: 'primary',
      },
    ],
  },
];

async function workspace(ctx: ScenarioContext, botEvents: string[], requestUrl = ctx.target.url) {
  const twin: Twin = ctx.twin;
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

const events = (appId: string): ScenarioResult => ({
  endpointKind: 'event_subscription',
  endpointId: appId,
});
const text = (data: JsonObject | undefined, fallback: string) =>
  typeof data?.text === 'string' ? data.text : fallback;

export const scenarios: Readonly<Record<string, Scenario>> = {
  message: async (ctx) => {
    const w = await workspace(ctx, ['message.channels']);
    await postMessage(ctx.twin, {
      channel: w.channel.id,
      user: w.user.id,
      text: 'Hello from twinworld',
      ...(ctx.data as { text?: string } | undefined),
    });
    return events(w.app.id);
  },
  app_mention: async (ctx) => {
    const w = await workspace(ctx, ['app_mention']);
    const data = ctx.data as { text?: string } | undefined;
    // The mention is what makes this an app_mention, so it leads whatever text is given.
    await postMessage(ctx.twin, {
      channel: w.channel.id,
      user: w.user.id,
      ...data,
      text: `${mention(w.app.bot_user_id)} ${data?.text ?? 'can you help?'}`,
    });
    return events(w.app.id);
  },
  reaction_added: async (ctx) => {
    const w = await workspace(ctx, ['reaction_added']);
    const posted = await postMessage(ctx.twin, {
      channel: w.channel.id,
      user: w.user.id,
      text: 'Shipped!',
    });
    await addReaction(ctx.twin, {
      channel: w.channel.id,
      ts: posted.ts,
      user: w.user.id,
      name: typeof ctx.data?.name === 'string' ? ctx.data.name : 'tada',
    });
    return events(w.app.id);
  },
  member_joined_channel: async (ctx) => {
    const w = await workspace(ctx, ['member_joined_channel']);
    const grace = await createUser(ctx.twin, {
      team: w.team.id,
      name: 'grace',
      real_name: 'Grace Hopper',
    });
    await joinChannel(ctx.twin, { channel: w.channel.id, user: grace.id, inviter: w.user.id });
    return events(w.app.id);
  },
  app_home_opened: async (ctx) => {
    const w = await workspace(ctx, ['app_home_opened']);
    await openAppHome(ctx.twin, {
      app: w.app.id,
      user: w.user.id,
      ...(ctx.data as { tab?: 'home' | 'messages' } | undefined),
    });
    return events(w.app.id);
  },
  url_verification: async (ctx) => {
    // Installed with another URL; setting the target as the Request URL sends the challenge there.
    const w = await workspace(ctx, ['message.channels'], 'https://old.example.com/slack/events');
    await updateEventSubscription(ctx.twin, w.app.id, { request_url: ctx.target.url });
    return events(w.app.id);
  },
  block_actions: async (ctx) => {
    const w = await workspace(ctx, ['app_mention'], 'https://events.example.com/slack/events');
    const posted = await postMessage(ctx.twin, {
      channel: w.channel.id,
      user: w.app.bot_user_id,
      text: 'Deploy v1.2.0 to production?',
      blocks: APPROVE_BLOCKS,
    });
    await setInteractivityUrl(ctx.twin, w.app.id, { request_url: ctx.target.url });
    await clickButton(ctx.twin, {
      channel: w.channel.id,
      ts: posted.ts,
      user: w.user.id,
      action_id: 'approve',
    });
    return { endpointKind: 'interactivity', endpointId: w.app.id };
  },
  slash_command: async (ctx) => {
    const w = await workspace(ctx, ['app_mention'], 'https://events.example.com/slack/events');
    const command = await createSlashCommand(ctx.twin, {
      team: w.team.id,
      command: '/deploy',
      url: ctx.target.url,
      description: 'Deploy a version',
      usage_hint: '[version]',
    });
    await runSlashCommand(ctx.twin, {
      team: w.team.id,
      command: '/deploy',
      text: text(ctx.data, 'v1.2.0 to production'),
      user: w.user.id,
      channel: w.channel.id,
    });
    return { endpointKind: 'slash_command', endpointId: command.id };
  },
};
