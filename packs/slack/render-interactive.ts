// Interactivity payloads beyond block_actions: a modal's submission (`view_submission`), a
// global shortcut (`shortcut`) and a message shortcut (`message_action`), as Slack posts them to
// the Interactivity Request URL inside `payload=<JSON>`.
import type { JsonObject, ReadView, RecordKind, RenderContext } from '../../src/index.js';
import { appKind } from './apps.js';
import { messageKey, messageKind } from './messages.js';
import { shortcutRunKind, viewKind, viewSubmissionKind, type SlackView } from './views.js';
import { channelKind, teamKind, userKind } from './workspace.js';

/** A record the payload names: present, since the write that caused the payload checked it. */
function get<F extends object>(view: ReadView, kind: RecordKind<F>, id: string): F {
  return kind.fieldsAt(view, id)!;
}

/** A view as Slack renders it to the app (the twin's `user` bookkeeping left out). */
export function renderView(v: SlackView, values: JsonObject = {}): JsonObject {
  const { user: _user, ...shown } = v;
  return { ...viewKind.json(shown), state: { values } };
}

export function interactivePayload(ctx: RenderContext): JsonObject | undefined {
  const fields = ctx.subject?.fields;
  if (fields === undefined) return undefined;
  const view = ctx.view;
  if (ctx.eventType === 'view_submission') {
    const s = viewSubmissionKind.from(fields);
    const app = get(view, appKind, s.app_id);
    const team = get(view, teamKind, s.team);
    const user = get(view, userKind, s.user);
    return {
      type: 'view_submission',
      team: { id: team.id, domain: team.domain },
      user: { id: user.id, username: user.name, name: user.name, team_id: user.team_id },
      api_app_id: app.id,
      token: app.verification_token,
      trigger_id: s.trigger_id,
      view: renderView(get(view, viewKind, s.view_id), s.values),
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    };
  }
  const run = shortcutRunKind.from(fields);
  const app = get(view, appKind, run.app_id);
  const team = get(view, teamKind, run.team);
  const user = get(view, userKind, run.user);
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
  const channel = get(view, channelKind, run.channel!);
  const message = get(view, messageKind, messageKey(channel.id, run.message_ts!));
  const { client_msg_id: _c, team: _t, channel: _ch, ...shown } = message;
  return {
    ...common,
    api_app_id: app.id,
    channel: { id: channel.id, name: channel.name },
    message_ts: run.message_ts!,
    message: messageKind.json(shown),
    response_url: run.response_url!,
  };
}
