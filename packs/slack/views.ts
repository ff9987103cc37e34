// Surfaces an app draws and people act on: modals (views.open / views.update) that a user
// submits (`view_submission`), the App Home tab an app publishes for a user (views.publish; the
// next `app_home_opened` carries it), and shortcuts — global ones from the composer (`shortcut`)
// and message ones from a message's menu (`message_action`). Submissions and shortcuts go to
// the app's Interactivity Request URL as `payload=<JSON>` forms, signed like events.
import { commit, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { appKind, type SlackApp } from './apps.js';
import { recordKind } from '../../src/index.js';
import { slackError } from './errors.js';
import { messageTs, slackIds } from './ids.js';
import { appOf, responseUrl, triggerId } from './interactivity.js';
import { messageKey, type SlackMessage } from './messages.js';
import { getChannel, getUser } from './workspace.js';

export type ViewInput = {
  type: 'modal' | 'home';
  callback_id?: string;
  title?: JsonObject;
  blocks: JsonObject[];
  submit?: JsonObject;
  close?: JsonObject;
  private_metadata?: string;
  external_id?: string;
};

export type SlackView = {
  id: string;
  team_id: string;
  type: 'modal' | 'home';
  blocks: JsonObject[];
  private_metadata: string;
  callback_id: string;
  hash: string;
  title: JsonObject | null;
  close: JsonObject | null;
  submit: JsonObject | null;
  clear_on_close: boolean;
  notify_on_close: boolean;
  root_view_id: string;
  previous_view_id: string | null;
  app_id: string;
  external_id: string;
  app_installed_team_id: string;
  bot_id: string;
  /** Twin bookkeeping: whose screen the view is on. */
  user: string;
};

export type ViewSubmission = {
  view_id: string;
  app_id: string;
  team: string;
  user: string;
  /** block_id → action_id → the element's state, as Slack's `view.state.values`. */
  values: JsonObject;
  trigger_id: string;
};

export type ShortcutRun = {
  type: 'shortcut' | 'message_action';
  app_id: string;
  team: string;
  user: string;
  callback_id: string;
  trigger_id: string;
  action_ts: string;
  channel?: string;
  message_ts?: string;
  response_url?: string;
};

/** The view records of the twin (modals and Home tabs), typed (src/state/record-kind.ts). */
export const viewKind = recordKind<SlackView>({ type: 'view' });
/** The view_submission records of the twin, typed. */
export const viewSubmissionKind = recordKind<ViewSubmission>({ type: 'view_submission' });
/** The shortcut_run records of the twin, typed. */
export const shortcutRunKind = recordKind<ShortcutRun>({ type: 'shortcut_run' });

const plain = (text: string) => ({ type: 'plain_text', text, emoji: true });

function checkView(input: unknown, type: 'modal' | 'home'): ViewInput {
  const v = input as ViewInput | undefined;
  if (v === null || typeof v !== 'object' || v.type !== type)
    throw slackError(
      'invalid_arguments',
      `view must be an object with type "${type}"`,
      'view',
      'invalid_input',
    );
  if (
    !Array.isArray(v.blocks) ||
    v.blocks.length > 100 ||
    v.blocks.some((b) => b === null || typeof b !== 'object' || typeof b.type !== 'string')
  )
    throw slackError(
      'invalid_blocks',
      'view.blocks must be an array of at most 100 blocks, each with a type',
      'view.blocks',
      'invalid_input',
    );
  if (
    type === 'modal' &&
    (v.title === undefined || typeof v.title.text !== 'string' || v.title.text.length > 24)
  )
    throw slackError(
      'invalid_arguments',
      'a modal needs a plain_text title of at most 24 characters',
      'view.title',
      'invalid_input',
    );
  if (
    v.private_metadata !== undefined &&
    (typeof v.private_metadata !== 'string' || v.private_metadata.length > 3000)
  )
    throw slackError(
      'invalid_arguments',
      'private_metadata must be a string of at most 3,000 characters',
      'view.private_metadata',
      'invalid_input',
    );
  return v;
}

function installedApp(view: ReadView, appId: string): SlackApp {
  const r = view.get('app', appId);
  if (r === undefined || r.deleted || r.fields.uninstalled === true)
    throw slackError('app_not_found', `no app ${appId} installed`, 'app');
  return appKind.of(r);
}

function getView(view: ReadView, id: string): SlackView {
  const r = view.get('view', id);
  if (r === undefined || r.deleted) throw slackError('not_found', `no view ${id}`, 'view_id');
  return viewKind.of(r);
}

function drawn(
  twin: Twin,
  app: SlackApp,
  user: string,
  v: ViewInput,
  id: string,
  root: string,
  previous: string | null,
): SlackView {
  return {
    id,
    team_id: app.team_id,
    type: v.type,
    blocks: v.blocks,
    private_metadata: v.private_metadata ?? '',
    callback_id: v.callback_id ?? '',
    hash: `${Math.floor(twin.world.clock.now() / 1000)}.${twin.world.ids.vendorId('', 8)}`,
    title: v.title ?? (v.type === 'home' ? null : plain('App')),
    close: v.close ?? (v.type === 'modal' ? plain('Cancel') : null),
    submit: v.submit ?? null,
    clear_on_close: false,
    notify_on_close: false,
    root_view_id: root,
    previous_view_id: previous,
    app_id: app.id,
    external_id: v.external_id ?? '',
    app_installed_team_id: app.team_id,
    bot_id: app.bot_id,
    user,
  };
}

/** Opens a modal for a user (views.open). */
export async function openView(
  twin: Twin,
  input: { app: string; user: string; view: ViewInput },
): Promise<SlackView> {
  requirePackTwin(twin, 'slack');
  const v = checkView(input?.view, 'modal');
  const done = await twin.applyAtomic((view) => {
    const app = installedApp(view, input.app);
    const user = getUser(view, input.user);
    if (user.team_id !== app.team_id)
      throw slackError('user_not_found', `user ${user.id} is not in the app's workspace`, 'user');
    const id = slackIds.view(twin.world.ids);
    const made = drawn(twin, app, user.id, v, id, id, null);
    return commit(viewKind.write('view.open', id, made), made);
  });
  return done.result;
}

/**
 * Replaces an open view's content (views.update); the id stays, the hash changes. The view is
 * named by `view_id` or by the `external_id` its app gave it; a `hash` that is not the view's
 * current one is `hash_conflict` (someone updated it since), as on Slack. `app`, when given,
 * must own the view.
 */
export async function updateView(
  twin: Twin,
  input: { view_id?: string; external_id?: string; hash?: string; app?: string; view: ViewInput },
): Promise<SlackView> {
  requirePackTwin(twin, 'slack');
  const done = await twin.applyAtomic((view) => {
    const current =
      input?.view_id !== undefined
        ? getView(view, input.view_id)
        : viewKind
            .list(view)
            .find(
              (v) =>
                v.external_id !== '' &&
                v.external_id === input?.external_id &&
                (input.app === undefined || v.app_id === input.app),
            );
    if (current === undefined || (input.app !== undefined && current.app_id !== input.app))
      throw slackError(
        'not_found',
        `no view ${input.view_id ?? input.external_id ?? ''} of this app`,
        'view_id',
      );
    if (input.hash !== undefined && input.hash !== current.hash)
      throw slackError(
        'hash_conflict',
        `view ${current.id} changed since hash ${input.hash}`,
        'hash',
        'conflict',
      );
    const v = checkView(input.view, current.type);
    const app = installedApp(view, current.app_id);
    const next = drawn(
      twin,
      app,
      current.user,
      v,
      current.id,
      current.root_view_id,
      current.previous_view_id,
    );
    return commit(viewKind.write('view.update', current.id, next), next);
  });
  return done.result;
}

export function homeKey(appId: string, userId: string): string {
  return `${appId}:${userId}`;
}

/** Publishes the user's App Home (views.publish): the view `app_home_opened` then carries. */
export async function publishView(
  twin: Twin,
  input: { app: string; user: string; view: ViewInput },
): Promise<SlackView> {
  requirePackTwin(twin, 'slack');
  const v = checkView(input?.view, 'home');
  const done = await twin.applyAtomic((view) => {
    const app = installedApp(view, input.app);
    const user = getUser(view, input.user);
    if (user.team_id !== app.team_id)
      throw slackError('user_not_found', `user ${user.id} is not in the app's workspace`, 'user');
    const key = homeKey(app.id, user.id);
    const kept = view.get('home_view', key)?.fields.view_id as string | undefined;
    const id = kept ?? slackIds.view(twin.world.ids);
    const made = drawn(twin, app, user.id, v, id, id, null);
    return commit(
      viewKind.write('view.publish', id, made, {
        projection:
          kept === undefined
            ? { creates: [{ type: 'home_view', id: key, fields: { view_id: id } }] }
            : undefined,
      }),
      made,
    );
  });
  return done.result;
}

function requireInteractivity(view: ReadView, app: SlackApp): void {
  const r = view.get('interactivity', app.id);
  if (r === undefined || r.deleted)
    throw slackError(
      'interactivity_disabled',
      `app ${app.id} has no Interactivity Request URL; set one with setInteractivityUrl`,
      'app',
      'invalid_input',
    );
}

/** The user presses the modal's submit button with these input values (`view_submission`). */
export async function submitView(
  twin: Twin,
  input: { view_id: string; user: string; values?: JsonObject },
): Promise<ViewSubmission> {
  requirePackTwin(twin, 'slack');
  const values = input?.values ?? {};
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    throw slackError(
      'invalid_arguments',
      'values must map block_id → action_id → state',
      'values',
      'invalid_input',
    );
  const done = await twin.applyAtomic((view) => {
    const current = getView(view, input.view_id);
    if (current.type !== 'modal')
      throw slackError(
        'invalid_arguments',
        `view ${current.id} is an App Home, not a modal`,
        'view_id',
        'invalid_input',
      );
    if (current.submit === null)
      throw slackError(
        'invalid_arguments',
        `view ${current.id} has no submit button`,
        'view_id',
        'invalid_input',
      );
    const user = getUser(view, input.user);
    if (user.id !== current.user)
      throw slackError(
        'not_authed',
        `view ${current.id} is open for ${current.user}, not ${user.id}`,
        'user',
        'invalid_input',
      );
    const app = installedApp(view, current.app_id);
    requireInteractivity(view, app);
    const submission: ViewSubmission = {
      view_id: current.id,
      app_id: app.id,
      team: app.team_id,
      user: user.id,
      values,
      trigger_id: triggerId(twin),
    };
    return commit(
      viewSubmissionKind.write('view.submit', submission.trigger_id, submission),
      submission,
    );
  });
  return done.result;
}

const CALLBACK = /^[A-Za-z0-9_.-]{1,255}$/;

/** A global shortcut from the composer (`shortcut`), or a message shortcut on `ts` in `channel` (`message_action`). */
export async function runShortcut(
  twin: Twin,
  input: { team: string; user: string; callback_id: string; channel?: string; ts?: string },
): Promise<ShortcutRun> {
  requirePackTwin(twin, 'slack');
  if (typeof input?.callback_id !== 'string' || !CALLBACK.test(input.callback_id))
    throw slackError(
      'invalid_arguments',
      'callback_id must be 1–255 letters, digits, ".", "-" or "_"',
      'callback_id',
      'invalid_input',
    );
  const onMessage = input.channel !== undefined || input.ts !== undefined;
  const done = await twin.applyAtomic((view) => {
    const app = appOf(view, input.team, 'team');
    requireInteractivity(view, app);
    const user = getUser(view, input.user);
    if (user.team_id !== input.team)
      throw slackError(
        'user_not_found',
        `user ${user.id} is not in workspace ${input.team}`,
        'user',
      );
    const now = twin.world.clock.now();
    const run: ShortcutRun = {
      type: onMessage ? 'message_action' : 'shortcut',
      app_id: app.id,
      team: input.team,
      user: user.id,
      callback_id: input.callback_id,
      trigger_id: triggerId(twin),
      action_ts: messageTs(now, 0),
    };
    if (onMessage) {
      const channel = getChannel(view, String(input.channel));
      const message = view.get('message', messageKey(channel.id, String(input.ts)))?.fields as
        SlackMessage | undefined;
      if (message === undefined)
        throw slackError(
          'message_not_found',
          `no message ${String(input.ts)} in channel ${channel.id}`,
          'ts',
        );
      Object.assign(run, {
        channel: channel.id,
        message_ts: message.ts,
        response_url: responseUrl(twin, input.team, 'actions'),
      });
    }
    return commit(
      shortcutRunKind.write(
        onMessage ? 'message_shortcut.run' : 'shortcut.run',
        run.trigger_id,
        run,
      ),
      run,
    );
  });
  return done.result;
}
