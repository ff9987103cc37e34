// For each Slack event an app's Request URL takes, the writes that cause it in one workspace
// that has the app, a person (ada) and a #general channel: what both `twinworld send` (which
// installs its target app with the workspace) and `twinworld trigger` (which acts in each
// workspace whose app takes the event) run. `data` is merged into the causing call's input.
import type { JsonObject, Twin } from '../../src/index.js';
import { addReaction, joinChannel, leaveChannel, openAppHome, removeReaction } from './activity.js';
import { uninstallApp, type SlackApp } from './apps.js';
import { clickButton, runSlashCommand } from './interactivity.js';
import { mention, postMessage } from './messages.js';
import { openView, runShortcut, submitView } from './views.js';
import {
  createChannel,
  createUser,
  updateUser,
  type SlackChannel,
  type SlackTeam,
  type SlackUser,
} from './workspace.js';

export interface Workspace {
  readonly team: SlackTeam;
  /** A person in the workspace, the creator of `channel`. */
  readonly user: SlackUser;
  readonly channel: SlackChannel;
  readonly app: SlackApp;
}

interface RecipeContext {
  readonly twin: Twin;
  readonly data: JsonObject | undefined;
  readonly w: Workspace;
}

export interface Recipe {
  /** Which of the app's endpoints takes the event. */
  readonly endpoint: 'event_subscription' | 'interactivity' | 'slash_command';
  readonly keys: readonly string[];
  run(ctx: RecipeContext): Promise<void>;
}

/** The slash command `slash_command` runs. */
export const SLASH_COMMAND = '/deploy';

/** The modal view_submission submits: one text input. */
export const FEEDBACK_MODAL = {
  type: 'modal' as const,
  callback_id: 'feedback',
  title: { type: 'plain_text', text: 'Feedback' },
  submit: { type: 'plain_text', text: 'Send' },
  blocks: [
    {
      type: 'input',
      block_id: 'comment',
      label: { type: 'plain_text', text: 'Comment' },
      element: { type: 'plain_text_input', action_id: 'text' },
    },
  ],
};

/** Types a trigger does not run in a world's existing workspaces: they uninstall its app. */
export const NOT_TRIGGERED: ReadonlySet<string> = new Set(['app_uninstalled', 'tokens_revoked']);

/** A button a bot posts: what block_actions clicks. */
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

const text = (data: JsonObject | undefined, fallback: string) =>
  typeof data?.text === 'string' ? data.text : fallback;

export const recipes: Readonly<Record<string, Recipe>> = {
  message: {
    endpoint: 'event_subscription',
    keys: ['text', 'thread_ts', 'blocks'],
    async run({ twin, data, w }) {
      await postMessage(twin, {
        channel: w.channel.id,
        user: w.user.id,
        text: 'Hello from twinworld',
        ...(data as { text?: string } | undefined),
      });
    },
  },
  app_mention: {
    endpoint: 'event_subscription',
    keys: ['text', 'thread_ts'],
    async run({ twin, data, w }) {
      const input = data as { text?: string } | undefined;
      // The mention is what makes this an app_mention, so it leads whatever text is given.
      await postMessage(twin, {
        channel: w.channel.id,
        user: w.user.id,
        ...input,
        text: `${mention(w.app.bot_user_id)} ${input?.text ?? 'can you help?'}`,
      });
    },
  },
  reaction_added: {
    endpoint: 'event_subscription',
    keys: ['name'],
    async run({ twin, data, w }) {
      const posted = await postMessage(twin, {
        channel: w.channel.id,
        user: w.user.id,
        text: 'Shipped!',
      });
      await addReaction(twin, {
        channel: w.channel.id,
        ts: posted.ts,
        user: w.user.id,
        name: typeof data?.name === 'string' ? data.name : 'tada',
      });
    },
  },
  member_joined_channel: {
    endpoint: 'event_subscription',
    keys: [],
    async run({ twin, w }) {
      const grace = await createUser(twin, {
        team: w.team.id,
        name: 'grace',
        real_name: 'Grace Hopper',
      });
      await joinChannel(twin, { channel: w.channel.id, user: grace.id, inviter: w.user.id });
    },
  },
  member_left_channel: {
    endpoint: 'event_subscription',
    keys: [],
    async run({ twin, w }) {
      const count = (await twin.list('channel')).length;
      const channel = await createChannel(twin, {
        team: w.team.id,
        creator: w.user.id,
        name: `project-${count + 1}`,
      });
      await leaveChannel(twin, { channel: channel.id, user: w.user.id });
    },
  },
  user_change: {
    endpoint: 'event_subscription',
    keys: ['real_name', 'name', 'email'],
    async run({ twin, data, w }) {
      await updateUser(twin, {
        user: w.user.id,
        real_name: 'Ada King',
        ...(data as { real_name?: string; name?: string; email?: string } | undefined),
      });
    },
  },
  app_home_opened: {
    endpoint: 'event_subscription',
    keys: ['tab'],
    async run({ twin, data, w }) {
      await openAppHome(twin, {
        app: w.app.id,
        user: w.user.id,
        ...(data as { tab?: 'home' | 'messages' } | undefined),
      });
    },
  },
  block_actions: {
    endpoint: 'interactivity',
    keys: [],
    async run({ twin, w }) {
      const posted = await postMessage(twin, {
        channel: w.channel.id,
        user: w.app.bot_user_id,
        text: 'Deploy v1.2.0 to production?',
        blocks: APPROVE_BLOCKS,
      });
      await clickButton(twin, {
        channel: w.channel.id,
        ts: posted.ts,
        user: w.user.id,
        action_id: 'approve',
      });
    },
  },
  slash_command: {
    endpoint: 'slash_command',
    keys: ['text'],
    async run({ twin, data, w }) {
      await runSlashCommand(twin, {
        team: w.team.id,
        command: SLASH_COMMAND,
        text: text(data, 'v1.2.0 to production'),
        user: w.user.id,
        channel: w.channel.id,
      });
    },
  },
  reaction_removed: {
    endpoint: 'event_subscription',
    keys: ['name'],
    async run({ twin, data, w }) {
      const posted = await postMessage(twin, {
        channel: w.channel.id,
        user: w.user.id,
        text: 'Shipped?',
      });
      const name = typeof data?.name === 'string' ? data.name : 'tada';
      const at = { channel: w.channel.id, ts: posted.ts, user: w.user.id, name };
      await addReaction(twin, at);
      await removeReaction(twin, at);
    },
  },
  channel_created: {
    endpoint: 'event_subscription',
    keys: ['name'],
    async run({ twin, data, w }) {
      const count = (await twin.list('channel')).length;
      await createChannel(twin, {
        team: w.team.id,
        creator: w.user.id,
        name: typeof data?.name === 'string' ? data.name : `project-${count + 1}`,
      });
    },
  },
  team_join: {
    endpoint: 'event_subscription',
    keys: ['name', 'real_name'],
    async run({ twin, data, w }) {
      await createUser(twin, {
        team: w.team.id,
        name: 'grace',
        real_name: 'Grace Hopper',
        ...(data as { name?: string; real_name?: string } | undefined),
      });
    },
  },
  app_uninstalled: {
    endpoint: 'event_subscription',
    keys: [],
    async run({ twin, w }) {
      await uninstallApp(twin, w.app.id);
    },
  },
  tokens_revoked: {
    endpoint: 'event_subscription',
    keys: [],
    async run({ twin, w }) {
      await uninstallApp(twin, w.app.id);
    },
  },
  view_submission: {
    endpoint: 'interactivity',
    keys: ['values'],
    async run({ twin, data, w }) {
      const opened = await openView(twin, { app: w.app.id, user: w.user.id, view: FEEDBACK_MODAL });
      await submitView(twin, {
        view_id: opened.id,
        user: w.user.id,
        values: (data?.values as JsonObject | undefined) ?? {
          comment: { text: { type: 'plain_text_input', value: 'Ship it!' } },
        },
      });
    },
  },
  shortcut: {
    endpoint: 'interactivity',
    keys: ['callback_id'],
    async run({ twin, data, w }) {
      await runShortcut(twin, {
        team: w.team.id,
        user: w.user.id,
        callback_id: typeof data?.callback_id === 'string' ? data.callback_id : 'new_ticket',
      });
    },
  },
  message_action: {
    endpoint: 'interactivity',
    keys: ['callback_id'],
    async run({ twin, data, w }) {
      const posted = await postMessage(twin, {
        channel: w.channel.id,
        user: w.user.id,
        text: 'The build is broken again',
      });
      await runShortcut(twin, {
        team: w.team.id,
        user: w.user.id,
        channel: w.channel.id,
        ts: posted.ts,
        callback_id: typeof data?.callback_id === 'string' ? data.callback_id : 'file_bug',
      });
    },
  },
};
