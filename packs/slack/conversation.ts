// A Slack conversation, as a walk calls it: a newcomer joins #general and opens the app's Home;
// someone asks the bot for a deploy (app_mention); the bot answers with an Approve button, which
// a person clicks (block_actions); the deploy is also asked for with /deploy (a slash command);
// the result is celebrated with a reaction. The app's Request URL is set along the way
// (url_verification) when `eventsUrl` differs from the one the app was installed with.
import type { Twin } from '../../src/index.js';
import { addReaction, joinChannel, openAppHome } from './activity.js';
import { appOfTeam, updateEventSubscription } from './apps.js';
import { clickButton, runSlashCommand } from './interactivity.js';
import { mention, postMessage, type SlackMessage } from './messages.js';
import { APPROVE_BLOCKS } from './scenarios.js';
import { slackError } from './errors.js';

export interface SlackConversation {
  readonly team: string;
  readonly channel: string;
  /** Who asks for the deploy. */
  readonly asker: string;
  /** Who joins the channel and approves. */
  readonly newcomer: string;
  /** A new Events Request URL to verify first, if any. */
  readonly eventsUrl?: string;
  /** The slash command (created beforehand with createSlashCommand), e.g. "/deploy". */
  readonly command: string;
  /** Called between steps (e.g. a walk's clock advance), so each step has its own time. */
  readonly between?: () => Promise<void> | void;
}

export async function slackConversation(
  twin: Twin,
  c: SlackConversation,
): Promise<{ request: SlackMessage; prompt: SlackMessage }> {
  const app = await twin.read((view) => appOfTeam(view, c.team));
  if (app === undefined)
    throw slackError('app_not_found', `workspace ${c.team} has no app installed`, 'team');
  if (c.eventsUrl !== undefined)
    await updateEventSubscription(twin, app.id, { request_url: c.eventsUrl });
  await joinChannel(twin, { channel: c.channel, user: c.newcomer, inviter: c.asker });
  await openAppHome(twin, { app: app.id, user: c.newcomer });
  await c.between?.();
  const request = await postMessage(twin, {
    channel: c.channel,
    user: c.asker,
    text: `${mention(app.bot_user_id)} deploy v1.2.0 please`,
  });
  const prompt = await postMessage(twin, {
    channel: c.channel,
    user: app.bot_user_id,
    text: 'Deploy v1.2.0 to production?',
    thread_ts: request.ts,
    blocks: APPROVE_BLOCKS,
  });
  await c.between?.();
  await clickButton(twin, {
    channel: c.channel,
    ts: prompt.ts,
    user: c.newcomer,
    action_id: 'approve',
  });
  await runSlashCommand(twin, {
    team: c.team,
    command: c.command,
    text: 'v1.2.0 to production',
    user: c.asker,
    channel: c.channel,
  });
  await c.between?.();
  const done = await postMessage(twin, {
    channel: c.channel,
    user: app.bot_user_id,
    text: 'Deployed v1.2.0 :rocket:',
    thread_ts: request.ts,
  });
  await addReaction(twin, { channel: c.channel, ts: done.ts, user: c.asker, name: 'tada' });
  return { request, prompt };
}
