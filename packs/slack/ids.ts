// Slack-shaped ids (T…, U…, C…, A…, B… in upper-case alphanumerics), message timestamps
// ("1700000000.000100") and signing secrets (32 hex), from the world's id source and clock.
import type { IdSource } from '../../src/index.js';
import { hexToken, upperId } from '../kit/ids.js';
import type { IdShapes } from '../kit/vendor-pack.js';

export const slackIds = {
  team: (ids: IdSource) => upperId(ids, 'T'),
  user: (ids: IdSource) => upperId(ids, 'U'),
  channel: (ids: IdSource) => upperId(ids, 'C'),
  app: (ids: IdSource) => upperId(ids, 'A'),
  bot: (ids: IdSource) => upperId(ids, 'B'),
  /** A direct-message channel (the app's DM with a user). */
  dm: (ids: IdSource) => upperId(ids, 'D'),
  view: (ids: IdSource) => upperId(ids, 'V'),
  signingSecret: (ids: IdSource) => hexToken(ids, 16),
  /** The legacy verification token every event_callback still carries. */
  verificationToken: (ids: IdSource) => ids.vendorId('', 24),
};

/** A message ts: seconds, a dot, six digits — unique per channel; `bump` skips taken ones. */
export function messageTs(nowMs: number, bump: number): string {
  const seconds = Math.floor(nowMs / 1000);
  const micros = (nowMs % 1000) * 1000 + bump;
  return `${seconds + Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

export const slackIdShapes: IdShapes = {
  eventId: /^Ev[0-9A-Za-z]{8,}$/,
  messageId: /^msg_[0-9A-Za-z]{24}$/,
  resources: {
    team: /^T[0-9A-Z]{10}$/,
    user: /^U[0-9A-Z]{10}$/,
    channel: /^C[0-9A-Z]{10}$/,
    app: /^A[0-9A-Z]{10}$/,
    event_subscription: /^A[0-9A-Z]{10}$/,
    message: /^C[0-9A-Z]{10}:\d{10}\.\d{6}$/,
    interactivity: /^A[0-9A-Z]{10}$/,
    slash_command: /^A[0-9A-Z]{10}:\/[a-z0-9_-]{1,31}$/,
    reaction: /^C[0-9A-Z]{10}:\d{10}\.\d{6}:[a-z0-9_+'-]+(::skin-tone-[2-6])?:U[0-9A-Z]{10}$/,
    channel_member: /^C[0-9A-Z]{10}:U[0-9A-Z]{10}$/,
    app_home: /^A[0-9A-Z]{10}:U[0-9A-Z]{10}$/,
    block_action: /^\d{13}\.\d{11}\.[0-9a-f]{32}$/,
    command_invocation: /^\d{13}\.\d{11}\.[0-9a-f]{32}$/,
    view: /^V[0-9A-Z]{10}$/,
    home_view: /^A[0-9A-Z]{10}:U[0-9A-Z]{10}$/,
    view_submission: /^\d{13}\.\d{11}\.[0-9a-f]{32}$/,
    shortcut_run: /^\d{13}\.\d{11}\.[0-9a-f]{32}$/,
  },
};
