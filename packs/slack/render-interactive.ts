// Interactivity payloads beyond block_actions: a modal's submission (`view_submission`), a
// global shortcut (`shortcut`) and a message shortcut (`message_action`), as Slack posts them to
// the Interactivity Request URL inside `payload=<JSON>`.
import type { JsonObject, ReadView, RenderContext } from '../../src/index.js';
import type { SlackApp } from './apps.js';
import { messageKey, type SlackMessage } from './messages.js';
import type { ShortcutRun, SlackView, ViewSubmission } from './views.js';
import type { SlackChannel, SlackTeam, SlackUser } from './workspace.js';

function get<T>(view: ReadView, type: string, id: string): T {
  return view.get(type, id)!.fields as unknown as T;
}

/** A view as Slack renders it to the app (the twin's `user` bookkeeping left out). */
export function renderView(v: SlackView, values: JsonObject = {}): JsonObject {
  const { user: _user, ...shown } = v;
  return { ...shown, state: { values } } as unknown as JsonObject;
}

export function interactivePayload(ctx: RenderContext): JsonObject | undefined {
  const fields = ctx.subject?.fields;
  if (fields === undefined) return undefined;
  const view = ctx.view;
  if (ctx.eventType === 'view_submission') {
    const s = fields as unknown as ViewSubmission;
    const app = get<SlackApp>(view, 'app', s.app_id);
    const team = get<SlackTeam>(view, 'team', s.team);
    const user = get<SlackUser>(view, 'user', s.user);
    return {
      type: 'view_submission',
      team: { id: team.id, domain: team.domain },
      user: { id: user.id, username: user.name, name: user.name, team_id: user.team_id },
      api_app_id: app.id,
      token: app.verification_token,
      trigger_id: s.trigger_id,
      view: renderView(get<SlackView>(view, 'view', s.view_id), s.values),
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    };
  }
  const run = fields as unknown as ShortcutRun;
  const app = get<SlackApp>(view, 'app', run.app_id);
  const team = get<SlackTeam>(view, 'team', run.team);
  const user = get<SlackUser>(view, 'user', run.user);
  const common = {
    type: run.type,
    token: app.verification_token,
    action_ts: run.action_ts,
    team: { id: team.id, domain: team.domain },
    user: { id: user.id, username: user.name, name: user.name, team_id: user.team_id },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: run.callback_id,
    trigger_id: run.trigger_id,
  };
  if (run.type === 'shortcut') return { ...common, api_app_id: app.id };
  const channel = get<SlackChannel>(view, 'channel', run.channel!);
  const message = get<SlackMessage>(view, 'message', messageKey(channel.id, run.message_ts!));
  const { client_msg_id: _c, team: _t, channel: _ch, ...shown } = message;
  return {
    ...common,
    api_app_id: app.id,
    channel: { id: channel.id, name: channel.name },
    message_ts: run.message_ts!,
    message: shown as unknown as JsonObject,
    response_url: run.response_url!,
  };
}
