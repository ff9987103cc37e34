// Helpers of the GitHub conformance suite (github-sdk.test.ts): a GitHub twin on loopback (a world
// on a durable home, the host with the GitHub surface, a receiver, two users, an organization and
// an App with its key), waiting on an event, an App JWT made as @octokit/auth-app makes one, and
// finding URL fields that would leave the twin.
import { generateKeyPairSync, sign } from 'node:crypto';
import * as github from '../../packs/github/index.js';
import { generateAppKey, githubSurface, mintUserToken } from '../../packs/github/surface/index.js';
import type { JsonValue, Twin } from '../../src/index.js';
import { createHost, listen, type Listening, type SurfaceHost } from '../../src/host/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import type { World } from '../../src/world/world.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { openWorldAt } from '../support/world-at.js';

export interface GitHubTwin {
  readonly world: World;
  readonly host: SurfaceHost;
  readonly twin: Twin;
  readonly listening: Listening;
  readonly receiver: Receiver;
  readonly appId: number;
  /** The App's private key (PEM). */
  readonly privateKey: string;
  /** octocat's and hubot's tokens. */
  readonly tokens: string[];
}

export async function startGitHubTwin(spec: string): Promise<GitHubTwin> {
  const world = openWorldAt(spec, { clock: new VirtualClock(Date.now()), seed: 'github-sdk' });
  const host = createHost({ world });
  const twin = host.packTwin(github.pack);
  host.serve(githubSurface({ twin, redeliver: (id) => host.dispatcher.redeliver(id) }));
  const listening = await listen(host);
  const receiver = await startReceiver();
  await github.createUser(twin, { login: 'octocat' });
  await github.createUser(twin, { login: 'hubot' });
  await github.createOrganization(twin, { login: 'octo-org' });
  const app = await github.createApp(twin, { owner: 'octo-org', name: 'Twin CI' });
  const privateKey = await generateAppKey(twin, app.id);
  const tokens = [await mintUserToken(twin, 'octocat'), await mintUserToken(twin, 'hubot')];
  return { world, host, twin, listening, receiver, appId: app.id, privateKey, tokens };
}

export async function closeGitHubTwin(
  t: Partial<Pick<GitHubTwin, 'world' | 'host' | 'listening' | 'receiver'>>,
): Promise<void> {
  await t.listening?.close();
  await t.receiver?.close();
  await t.host?.close();
  await t.world?.close();
}

export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An App JWT as @octokit/auth-app makes one: RS256 over {iat, exp, iss}, times in seconds from now. */
export function appJwt(
  appId: number,
  privateKey: string,
  at: { iat: number; exp: number } = { iat: -30, exp: 540 },
): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const claims = { iat: now + at.iat, exp: now + at.exp, iss: appId };
  const body = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${sign('RSA-SHA256', Buffer.from(body), privateKey).toString('base64url')}`;
}

/** A private key (PEM) the twin never gave anyone. */
export function otherKey(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Every string under a url / *_url / href key, with its path. */
export function urlFields(value: JsonValue, path = ''): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => urlFields(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    typeof v === 'string' && (k === 'url' || k.endsWith('_url') || k === 'href')
      ? [[`${path}.${k}`, v] as [string, string]]
      : urlFields(v, `${path}.${k}`),
  );
}

/** URL fields that leave the twin (user-given ones and GitHub's documentation excepted). */
export function leaving(
  value: JsonValue,
  origin: string,
  allowed: readonly string[] = [],
): string[] {
  return urlFields(value)
    .filter(([path]) => !/\.(documentation_url|target_url|details_url|external_url)$/.test(path))
    .filter(([, url]) => /^https?:/.test(url))
    .filter(([, url]) => !url.startsWith(origin) && !allowed.some((a) => url.startsWith(a)))
    .map(([path, url]) => `${path}=${url}`);
}
