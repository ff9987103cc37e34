// The credentials the twin hands out, kept in world.secrets and never in a log: user tokens
// (`ghp_…`, what a person's personal access token is), installation access tokens (`ghs_…`, an
// hour long on the world clock, minted by an App with its JWT) and each App's public key (what
// its RS256 JWTs are verified with). A token is found by its SHA-256, so the store holds no
// token in the clear either.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Twin } from '../../../src/index.js';
import { requirePackTwin } from '../../kit/twin-checks.js';
import { findUser } from '../accounts.js';
import { appKind } from '../apps.js';
import { notFound } from '../errors.js';

export type TokenGrant =
  | { readonly kind: 'user'; readonly id: number }
  | { readonly kind: 'installation'; readonly id: number; readonly expires: number };

const INSTALLATION_TOKEN_MS = 3600_000;

function tokenRef(twin: Twin, token: string): string {
  return `${twin.name}/token/${createHash('sha256').update(token).digest('hex')}`;
}

function appKeyRef(twin: Twin, appId: number): string {
  return `${twin.name}/app-key/${appId}`;
}

function fresh(prefix: 'ghp_' | 'ghs_'): string {
  // GitHub's tokens: a prefix and 36 base62 characters.
  let out = '';
  while (out.length < 36)
    out += randomBytes(30)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '');
  return prefix + out.slice(0, 36);
}

/** A new personal access token for the user `login` (who must exist). */
export async function mintUserToken(twin: Twin, login: string): Promise<string> {
  requirePackTwin(twin, 'github');
  const user = await twin.read((view) => findUser(view, login, 'login'));
  const token = fresh('ghp_');
  await twin.world.secrets.set(
    tokenRef(twin, token),
    JSON.stringify({ kind: 'user', id: user.id }),
  );
  return token;
}

/** A new installation access token, valid for an hour of world time. */
export async function mintInstallationToken(
  twin: Twin,
  installationId: number,
): Promise<{ token: string; expires: number }> {
  const token = fresh('ghs_');
  const expires = twin.world.clock.now() + INSTALLATION_TOKEN_MS;
  const grant: TokenGrant = { kind: 'installation', id: installationId, expires };
  await twin.world.secrets.set(tokenRef(twin, token), JSON.stringify(grant));
  return { token, expires };
}

// Grants found once are kept per twin: a grant never changes (an installation token's expiry is
// checked on every use), so each request need not ask the secret store again.
const known = new WeakMap<Twin, Map<string, TokenGrant>>();

/** What a token grants, or undefined when the twin never minted it (or it has expired). */
export async function grantOf(twin: Twin, token: string): Promise<TokenGrant | undefined> {
  const ref = tokenRef(twin, token);
  const cache = known.get(twin) ?? new Map<string, TokenGrant>();
  known.set(twin, cache);
  let grant = cache.get(ref);
  if (grant === undefined) {
    const [stored] = await twin.world.secrets.resolve(ref, twin.world.clock.now());
    if (stored === undefined) return undefined;
    grant = JSON.parse(stored) as TokenGrant;
    cache.set(ref, grant);
  }
  if (grant.kind === 'user') return grant;
  return grant.kind === 'installation' && grant.expires > twin.world.clock.now()
    ? grant
    : undefined;
}

/** Gives the app a key pair, as "Generate a private key" does; answers the private key (PEM). */
export async function generateAppKey(twin: Twin, appId: number): Promise<string> {
  requirePackTwin(twin, 'github');
  const app = await twin.read((view) => appKind.read(view, appId));
  if (app === undefined) throw notFound(`app ${appId}`, 'app');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await twin.world.secrets.set(
    appKeyRef(twin, appId),
    publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  );
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The app's public key (PEM), if it has one. */
export async function appPublicKey(twin: Twin, appId: number): Promise<string | undefined> {
  const [pem] = await twin.world.secrets.resolve(appKeyRef(twin, appId), twin.world.clock.now());
  return pem;
}
