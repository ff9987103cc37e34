// Who a Slack token is. The twin's tokens name what they stand for and carry no secret of their
// own: `xoxb-<app id>-<anything>` is the bot of an installed app, `xoxp-<user id>-<anything>` a
// person of the workspace (what a test posts as). A token of an unknown app or person is
// `invalid_auth`; the bot token of an uninstalled app is `token_revoked`, as on Slack.
import type { Twin } from '../../../src/index.js';
import { appKind, type SlackApp } from '../apps.js';
import { userKind } from '../workspace.js';
import { SlackMethodError } from './errors.js';

export interface SlackPrincipal {
  readonly twin: Twin;
  readonly team: string;
  /** The user the call acts as: the app's bot user, or the person. */
  readonly user: string;
  readonly app?: SlackApp;
  readonly isBot: boolean;
}

const TOKEN = /^(xoxb|xoxp)-([A-Z0-9]{11})(?:-[A-Za-z0-9-]{0,200})?$/;

export function tokenOf(request: Request, input: Record<string, unknown>): string {
  const header = request.headers.get('authorization');
  const bearer = header === null ? undefined : /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1];
  const token = bearer ?? (typeof input.token === 'string' ? input.token : undefined);
  if (token === undefined) throw new SlackMethodError('not_authed', 'no token was given');
  return token;
}

export async function principalOf(twin: Twin, token: string): Promise<SlackPrincipal> {
  const m = TOKEN.exec(token);
  if (m === null)
    throw new SlackMethodError(
      'invalid_auth',
      'the token is not a bot (xoxb-) or user (xoxp-) token',
    );
  const [, kind, id] = m;
  if (kind === 'xoxb') {
    const app = await twin.get('app', id!);
    if (app === undefined || app.deleted)
      throw new SlackMethodError('invalid_auth', `no app ${id}`);
    if (app.fields.uninstalled === true)
      throw new SlackMethodError('token_revoked', `app ${id} was uninstalled`);
    const fields = appKind.of(app);
    return { twin, team: fields.team_id, user: fields.bot_user_id, app: fields, isBot: true };
  }
  const user = await twin.get('user', id!);
  if (user === undefined || user.deleted || user.fields.deleted === true)
    throw new SlackMethodError('invalid_auth', `no user ${id}`);
  const fields = userKind.of(user);
  return { twin, team: fields.team_id, user: fields.id, isBot: false };
}

/** The bot token the twin answers for an app. */
export function botToken(appId: string): string {
  return `xoxb-${appId}-twinworld`;
}

/** A person's token. */
export function userToken(userId: string): string {
  return `xoxp-${userId}-twinworld`;
}
