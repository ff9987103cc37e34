// Who a request is. Octokit sends `authorization: token <t>` for tokens and `bearer <jwt>` for an
// App's JWT (three dot-separated parts). A user token is that user; an installation token is the
// installation (and its app); a JWT is the App itself, verified RS256 against the key the twin
// gave it (node:crypto). No header at all is an anonymous caller, who may read public things.
import { createPublicKey, verify } from 'node:crypto';
import type { Twin } from '../../../src/index.js';
import { userKind, type GitHubUser } from '../accounts.js';
import { appKind, installationKind, type GitHubApp, type GitHubInstallation } from '../apps.js';
import { appPublicKey, grantOf } from './credentials.js';
import { badCredentials, GitHubApiError } from './errors.js';

export type GitHubPrincipal =
  | { readonly kind: 'anonymous'; readonly twin: Twin }
  | { readonly kind: 'user'; readonly twin: Twin; readonly user: GitHubUser }
  | { readonly kind: 'app'; readonly twin: Twin; readonly app: GitHubApp }
  | {
      readonly kind: 'installation';
      readonly twin: Twin;
      readonly installation: GitHubInstallation;
      readonly app: GitHubApp;
    };

/** GitHub accepts a JWT whose lifetime is at most ten minutes (plus a minute of clock drift). */
const MAX_JWT_SECONDS = 600;
const DRIFT_SECONDS = 60;

function b64json(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const jwtRefused = (why: string) =>
  new GitHubApiError(401, `A JSON web token could not be decoded (${why})`);

async function appOfJwt(twin: Twin, jwt: string): Promise<GitHubApp> {
  const [head, claims, signature] = jwt.split('.') as [string, string, string];
  const header = b64json(head);
  const payload = b64json(claims);
  if (header === undefined || payload === undefined) throw jwtRefused('not base64url JSON');
  if (header.alg !== 'RS256') throw jwtRefused('alg must be RS256');
  const iss = Number(payload.iss);
  if (!Number.isInteger(iss)) throw jwtRefused("'iss' must be the App's id");
  const app = await twin.read((view) => appKind.read(view, iss));
  if (app === undefined) throw jwtRefused(`no App has id ${String(payload.iss)}`);
  const pem = await appPublicKey(twin, iss);
  if (pem === undefined)
    throw jwtRefused(`App ${iss} has no key yet; generate one with generateAppKey`);
  const signed = verify(
    'RSA-SHA256',
    Buffer.from(`${head}.${claims}`),
    createPublicKey(pem),
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw jwtRefused("the signature does not match the App's key");
  // The App mints its JWT with its own clock, so it is judged by the wall clock, not the world's.
  const now = Math.floor(Date.now() / 1000);
  const { iat, exp } = payload;
  if (typeof iat !== 'number' || typeof exp !== 'number')
    throw jwtRefused("'iat' and 'exp' must be numbers (seconds)");
  if (iat > now + DRIFT_SECONDS) throw jwtRefused("'iat' is in the future");
  if (exp <= now) throw jwtRefused("'exp' is in the past");
  if (exp - iat > MAX_JWT_SECONDS + DRIFT_SECONDS)
    throw jwtRefused("'exp' is too far in the future (at most 10 minutes after 'iat')");
  return app;
}

// A user, once found, is kept per twin: the pack only ever creates users (no rename, no delete),
// so a request need not read the record again.
const knownUsers = new WeakMap<Twin, Map<number, GitHubUser>>();

export async function principalOf(twin: Twin, request: Request): Promise<GitHubPrincipal> {
  const header = request.headers.get('authorization');
  if (header === null || header.trim() === '') return { kind: 'anonymous', twin };
  const m = /^(token|bearer)\s+(\S+)$/i.exec(header.trim());
  if (m === null) throw badCredentials();
  const credential = m[2]!;
  if (credential.split('.').length === 3)
    return { kind: 'app', twin, app: await appOfJwt(twin, credential) };
  const grant = await grantOf(twin, credential);
  if (grant === undefined) throw badCredentials();
  if (grant.kind === 'user') {
    const users = knownUsers.get(twin) ?? new Map<number, GitHubUser>();
    knownUsers.set(twin, users);
    const user = users.get(grant.id) ?? (await twin.read((view) => userKind.read(view, grant.id)));
    if (user === undefined) throw badCredentials();
    users.set(grant.id, user);
    return { kind: 'user', twin, user };
  }
  const found = await twin.read((view) => {
    const installation = installationKind.read(view, grant.id);
    const app = installation === undefined ? undefined : appKind.read(view, installation.app_id);
    return installation === undefined || app === undefined ? undefined : { installation, app };
  });
  // An uninstalled app's tokens die with the installation, as on GitHub.
  if (found === undefined) throw badCredentials();
  return { kind: 'installation', twin, ...found };
}
