// Interactivity and slash commands: a user clicks a button in a message (block_actions, sent to
// the app's Interactivity Request URL as a form body `payload=<JSON>`), or runs a slash command
// (sent to the command's Request URL as form fields). Both are signed like events.
import { commit, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin, secretRefFor } from '../kit/twin-checks.js';
import { appOfTeam, type SlackApp } from './apps.js';
import { slackError } from './errors.js';
import { messageTs } from './ids.js';
import { messageKey, type SlackMessage } from './messages.js';
import { getChannel, getTeam, getUser } from './workspace.js';
import { recordKind } from '../../src/index.js';

export type SlashCommand = {
  id: string;
  app_id: string;
  team_id: string;
  command: string;
  url: string;
  description: string;
  usage_hint: string;
  enabled: boolean;
  secret_ref: string;
  event_filter: string[];
};

export type BlockActionFields = {
  app_id: string;
  team: string;
  user: string;
  channel: string;
  message_ts: string;
  action: {
    type: string;
    block_id: string;
    action_id: string;
    text: JsonObject;
    value?: string;
    action_ts: string;
  };
  trigger_id: string;
  response_url: string;
};

/** The block_action records of the twin, typed (src/state/record-kind.ts). */
export const blockActionKind = recordKind<BlockActionFields>({ type: 'block_action' });

export type CommandInvocation = {
  app_id: string;
  team_id: string;
  channel_id: string;
  user_id: string;
  command: string;
  text: string;
  trigger_id: string;
  response_url: string;
};

/** The command_invocation records of the twin, typed (src/state/record-kind.ts). */
export const commandInvocationKind = recordKind<CommandInvocation>({ type: 'command_invocation' });

const check = checker('slack');
const COMMAND = /^\/[a-z0-9_-]{1,31}$/;

export function appOf(view: ReadView, teamId: string, path: string): SlackApp {
  const app = appOfTeam(view, teamId);
  if (app === undefined)
    throw slackError('app_not_found', `workspace ${teamId} has no app installed`, path);
  return app;
}

/** Slack's trigger_id: `<digits>.<team digits>.<32 hex>`, drawn from the world. */
export function triggerId(twin: Twin): string {
  const ids = twin.world.ids;
  const digits = (n: number) => String(Math.floor(ids.random() * 10 ** n)).padStart(n, '0');
  return `${digits(13)}.${digits(11)}.${ids.bytes(16).toString('hex')}`;
}

export function responseUrl(twin: Twin, team: string, kind: 'actions' | 'commands'): string {
  const ids = twin.world.ids;
  return `https://hooks.slack.com/${kind}/${team}/${String(Math.floor(ids.random() * 1e12)).padStart(12, '0')}/${ids.vendorId('', 24)}`;
}

/** Creates a slash command of the workspace's app, delivering to its own Request URL. */
export async function createSlashCommand(
  twin: Twin,
  input: { team: string; command: string; url: string; description?: string; usage_hint?: string },
): Promise<SlashCommand> {
  requirePackTwin(twin, 'slack');
  const command = check.string(input?.command, 'command');
  if (!COMMAND.test(command))
    throw slackError(
      'invalid_command',
      'command must be "/" and 1–31 lowercase letters, digits, "-" or "_", e.g. /deploy',
      'command',
      'invalid_input',
    );
  const url = check.url(input.url, 'url');
  const done = await twin.applyAtomic((view) => {
    getTeam(view, input.team);
    const app = appOf(view, input.team, 'team');
    const id = `${app.id}:${command}`;
    if (view.get('slash_command', id) !== undefined)
      throw slackError(
        'command_exists',
        `${command} already exists for app ${app.id}`,
        'command',
        'conflict',
      );
    const cmd: SlashCommand = {
      id,
      app_id: app.id,
      team_id: input.team,
      command,
      url,
      description: input.description ?? '',
      usage_hint: input.usage_hint ?? '',
      enabled: true,
      secret_ref: secretRefFor(twin, app.id),
      event_filter: ['slash_command'],
    };
    return commit(
      {
        operation: 'slash_command.create',
        subjectType: 'slash_command',
        subjectId: id,
        fields: cmd,
      },
      cmd,
    );
  });
  return done.result;
}

export async function updateSlashCommand(
  twin: Twin,
  id: string,
  input: { url?: string; enabled?: boolean },
): Promise<void> {
  requirePackTwin(twin, 'slack');
  const fields: JsonObject = {};
  if (input.url !== undefined) fields.url = check.url(input.url, 'url');
  if (input.enabled !== undefined) fields.enabled = check.boolean(input.enabled, 'enabled');
  await twin.applyAtomic((view) => {
    if (view.get('slash_command', id) === undefined)
      throw slackError('command_not_found', `no slash command ${id}`, 'command');
    return commit(
      { operation: 'slash_command.update', subjectType: 'slash_command', subjectId: id, fields },
      undefined,
    );
  });
}

/** A user runs `/command text` in a channel. */
export async function runSlashCommand(
  twin: Twin,
  input: { team: string; command: string; text?: string; user: string; channel: string },
): Promise<CommandInvocation> {
  requirePackTwin(twin, 'slack');
  const text = input?.text ?? '';
  if (typeof text !== 'string' || text.length > 4_000)
    throw slackError(
      'invalid_arguments',
      'text must be a string of at most 4,000 characters',
      'text',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    const app = appOf(view, input.team, 'team');
    const cmd = view.get('slash_command', `${app.id}:${input.command}`);
    if (cmd === undefined || cmd.deleted)
      throw slackError(
        'command_not_found',
        `${String(input.command)} is not a command of app ${app.id}`,
        'command',
      );
    const user = getUser(view, input.user);
    const channel = getChannel(view, input.channel);
    if (user.team_id !== input.team || channel.team_id !== input.team)
      throw slackError(
        'channel_not_found',
        "the user and the channel must be in the command's workspace",
        'channel',
      );
    const invocation: CommandInvocation = {
      app_id: app.id,
      team_id: input.team,
      channel_id: channel.id,
      user_id: user.id,
      command: input.command,
      text,
      trigger_id: triggerId(twin),
      response_url: responseUrl(twin, input.team, 'commands'),
    };
    return commit(
      {
        operation: 'slash_command.run',
        subjectType: 'command_invocation',
        subjectId: invocation.trigger_id,
        fields: invocation,
      },
      invocation,
    );
  });
  return done.result;
}

/** A user clicks a button (an interactive element with `action_id`) in a message's blocks. */
export async function clickButton(
  twin: Twin,
  input: { channel: string; ts: string; user: string; action_id: string },
): Promise<BlockActionFields> {
  requirePackTwin(twin, 'slack');
  const actionId = check.string(input?.action_id, 'action_id');
  const done = await twin.applyAtomic((view) => {
    const channel = getChannel(view, input.channel);
    const user = getUser(view, input.user);
    const message = view.get('message', messageKey(channel.id, input.ts))?.fields as
      SlackMessage | undefined;
    if (message === undefined)
      throw slackError(
        'message_not_found',
        `no message ${input.ts} in channel ${channel.id}`,
        'ts',
      );
    let found: { block: JsonObject; element: JsonObject } | undefined;
    // A deleted thread's parent (a tombstone) shows no blocks to click.
    for (const block of message.subtype === 'tombstone' ? [] : (message.blocks ?? [])) {
      for (const element of (block.elements as JsonObject[] | undefined) ?? [])
        if (element.action_id === actionId) found = { block, element };
    }
    if (found === undefined)
      throw slackError(
        'action_not_found',
        `message ${input.ts} has no interactive element with action_id "${actionId}"`,
        'action_id',
      );
    const app = appOf(view, channel.team_id, 'channel');
    if (view.get('interactivity', app.id) === undefined)
      throw slackError(
        'interactivity_disabled',
        `app ${app.id} has no Interactivity Request URL; set one with setInteractivityUrl`,
        'app',
        'invalid_input',
      );
    const now = twin.world.clock.now();
    const fields: BlockActionFields = {
      app_id: app.id,
      team: channel.team_id,
      user: user.id,
      channel: channel.id,
      message_ts: message.ts,
      action: {
        type: String(found.element.type),
        block_id: String(found.block.block_id ?? ''),
        action_id: actionId,
        text: (found.element.text as JsonObject | undefined) ?? {
          type: 'plain_text',
          text: actionId,
          emoji: true,
        },
        ...(typeof found.element.value === 'string' ? { value: found.element.value } : {}),
        action_ts: messageTs(now, 0),
      },
      trigger_id: triggerId(twin),
      response_url: responseUrl(twin, channel.team_id, 'actions'),
    };
    return commit(
      {
        operation: 'block_action.click',
        subjectType: 'block_action',
        subjectId: fields.trigger_id,
        fields: blockActionKind.json(fields),
      },
      fields,
    );
  });
  return done.result;
}
