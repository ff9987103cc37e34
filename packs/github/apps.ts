// GitHub Apps and their installations. An app may have a webhook (its URL, secret and events):
// GitHub delivers `installation` events to it, with X-GitHub-Hook-Installation-Target-Type
// "integration". Check runs are made by apps too (checks.ts).
import { commit, skip, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin, secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import {
  actorOf,
  findUser,
  LOGIN_INDEX,
  summary,
  type AccountSummary,
  type GitHubOrganization,
  type GitHubUser,
} from './accounts.js';
import { notFound, validationFailed } from './errors.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';
import { organizationKind, userKind } from './accounts.js';

export const SLUG_INDEX = 'slug';

export type GitHubApp = {
  id: number;
  slug: string;
  node_id: string;
  owner: AccountSummary;
  name: string;
  description: string | null;
  external_url: string;
  html_url: string;
  created_at: string;
  updated_at: string;
  permissions: Record<string, string>;
  events: string[];
  // The app's webhook, read by the kernel's fan-out (never rendered):
  hook_id: number | null;
  delivery_url: string | null;
  secret_ref: string | null;
  event_filter: string[];
  active: boolean;
};

/** The app records of the twin, typed (src/state/record-kind.ts). */
export const appKind = recordKind<GitHubApp>({ type: 'app' });

export type GitHubInstallation = {
  id: number;
  node_id: string;
  app_id: number;
  app_slug: string;
  account: AccountSummary;
  repository_selection: 'all' | 'selected';
  /** Ids of the selected repositories (empty when all). */
  repository_ids: number[];
  target_type: 'User' | 'Organization';
  permissions: Record<string, string>;
  events: string[];
  created_at: string;
  updated_at: string;
};

/** The installation records of the twin, typed (src/state/record-kind.ts). */
export const installationKind = recordKind<GitHubInstallation>({ type: 'installation' });

export interface CreateAppInput {
  /** Login of the owning user or organization. */
  owner: string;
  name: string;
  description?: string;
  /** The app's webhook; installation events go there. */
  webhook_url?: string;
  webhook_secret?: string;
  permissions?: Record<string, string>;
  /** Repository events the app subscribes to (as GitHub event names). */
  events?: string[];
}

const check = checker('github');
const DEFAULT_PERMISSIONS = {
  checks: 'write',
  contents: 'read',
  metadata: 'read',
  pull_requests: 'write',
};

/** The `actor` of a write an app made itself (an installation token): the payload's sender is its bot. */
export function appActor(app: GitHubApp): string {
  return `app:${app.id}`;
}

export function findApp(view: ReadView, slug: string, path = 'app'): GitHubApp {
  const [app] = view.lookup('app', SLUG_INDEX, slug);
  if (app === undefined) throw notFound(`app ${slug}`, path);
  return appKind.of(app);
}

function ownerOf(view: ReadView, login: string): GitHubUser | GitHubOrganization {
  const found =
    userKind.lookup(view, LOGIN_INDEX, login)[0] ??
    organizationKind.lookup(view, LOGIN_INDEX, login)[0];
  if (found === undefined) throw notFound(`user or organization ${login}`, 'owner');
  return found;
}

/** Registers a GitHub App; its webhook (when given) is an endpoint for installation events. */
export async function createApp(twin: Twin, input: CreateAppInput): Promise<GitHubApp> {
  requirePackTwin(twin, 'github');
  const name = check.string(input?.name, 'name');
  if (name.length > 34)
    throw validationFailed('name is too long (maximum is 34 characters)', 'name');
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const url = input.webhook_url === undefined ? null : check.url(input.webhook_url, 'webhook_url');
  if (url !== null && input.webhook_secret === undefined)
    throw validationFailed(
      'webhook_secret is required with a webhook_url: the twin never sends an unsigned packet',
      'webhook_secret',
    );
  const secret =
    input.webhook_secret === undefined
      ? undefined
      : check.secret(input.webhook_secret, 'webhook_secret');
  const events = input.events === undefined ? [] : check.stringArray(input.events, 'events');
  const id = githubIds.numeric(twin.world.ids);
  const ref = secretRefFor(twin, `app/${id}`);
  const write = () =>
    twin.applyAtomic((view) => {
      if (view.lookup('app', SLUG_INDEX, slug).length > 0)
        throw validationFailed(`name "${name}" is already taken by another app`, 'name');
      const owner = ownerOf(view, input.owner);
      const ids = twin.world.ids;
      const now = githubTime(twin.world.clock.now());
      const app: GitHubApp = {
        id,
        slug,
        node_id: githubIds.node(ids, 'A'),
        owner: summary(owner),
        name,
        description: input.description ?? null,
        external_url: `https://${slug}.example.com`,
        html_url: `https://github.com/apps/${slug}`,
        created_at: now,
        updated_at: now,
        permissions: input.permissions ?? DEFAULT_PERMISSIONS,
        events,
        hook_id: url === null ? null : githubIds.numeric(ids),
        delivery_url: url,
        secret_ref: url === null ? null : ref,
        event_filter: url === null ? [] : ['installation.*'],
        active: url !== null,
      };
      return commit(
        {
          operation: 'app.create',
          subjectType: 'app',
          subjectId: String(id),
          fields: appKind.json(app),
        },
        app,
      );
    });
  const done =
    secret === undefined ? await write() : await withStoredSecret(twin, ref, secret, write);
  return done.result;
}

export interface InstallAppInput {
  app: string;
  /** Login of the account the app is installed on. */
  account: string;
  /** Full names of the selected repositories; every repository of the account when omitted. */
  repositories?: string[];
  /** The user installing it. */
  sender: string;
}

export async function installApp(twin: Twin, input: InstallAppInput): Promise<GitHubInstallation> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const app = findApp(view, input.app);
    const account = ownerOf(view, input.account);
    const sender = findUser(view, input.sender);
    const key = `${app.id}:${account.id}`;
    if (view.get('installation_key', key) !== undefined)
      throw validationFailed(`${app.slug} is already installed on ${account.login}`, 'account');
    const repositoryIds = (input.repositories ?? []).map((fullName, i) => {
      const repo = findRepository(view, fullName, `repositories[${i}]`);
      if (repo.owner.id !== account.id)
        throw validationFailed(
          `${fullName} does not belong to ${account.login}`,
          `repositories[${i}]`,
        );
      return repo.id;
    });
    const ids = twin.world.ids;
    const now = githubTime(twin.world.clock.now());
    const installation: GitHubInstallation = {
      id: githubIds.numeric(ids),
      node_id: githubIds.node(ids, 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u'),
      app_id: app.id,
      app_slug: app.slug,
      account: summary(account),
      repository_selection: input.repositories === undefined ? 'all' : 'selected',
      repository_ids: repositoryIds,
      target_type: 'type' in account ? 'User' : 'Organization',
      permissions: app.permissions,
      events: app.events,
      created_at: now,
      updated_at: now,
    };
    return commit(
      {
        operation: 'installation.create',
        subjectType: 'installation',
        subjectId: String(installation.id),
        fields: installationKind.json(installation),
        actor: actorOf(sender),
        projection: {
          creates: [
            { type: 'installation_key', id: key, fields: { installation_id: installation.id } },
          ],
        },
      },
      installation,
    );
  });
  return done.result;
}

/** Uninstalls; uninstalling what is not installed changes nothing. */
export async function uninstallApp(
  twin: Twin,
  input: { installation: number; sender: string },
): Promise<void> {
  requirePackTwin(twin, 'github');
  await twin.applyAtomic((view) => {
    const r = view.get('installation', String(input.installation));
    if (r === undefined || r.deleted) return skip(undefined);
    const sender = findUser(view, input.sender);
    const inst = installationKind.of(r);
    return commit(
      {
        operation: 'installation.delete',
        subjectType: 'installation',
        subjectId: r.id,
        delete: true,
        actor: actorOf(sender),
        projection: {
          deletes: [{ type: 'installation_key', id: `${inst.app_id}:${inst.account.id}` }],
        },
      },
      undefined,
    );
  });
}

/** Points the app's webhook at a URL with a secret (GitHub's app settings), and turns it on. */
export async function setAppWebhook(
  twin: Twin,
  slug: string,
  input: { url: string; secret: string },
): Promise<GitHubApp> {
  requirePackTwin(twin, 'github');
  const url = check.url(input?.url, 'webhook_url');
  const secret = check.secret(input.secret, 'webhook_secret');
  const app = await twin.read((view) => findApp(view, slug));
  const ref = secretRefFor(twin, `app/${app.id}`);
  const done = await withStoredSecret(twin, ref, secret, () =>
    twin.applyAtomic((view) => {
      const current = findApp(view, slug);
      const fields = {
        delivery_url: url,
        secret_ref: ref,
        hook_id: current.hook_id ?? githubIds.numeric(twin.world.ids),
        event_filter: ['installation.*'],
        active: true,
        updated_at: githubTime(twin.world.clock.now()),
      };
      return commit(
        { operation: 'app.update', subjectType: 'app', subjectId: String(current.id), fields },
        { ...current, ...fields } as GitHubApp,
      );
    }),
  );
  return done.result;
}

/** Turns the app's webhook on or off (a retired send target). */
export async function setAppWebhookActive(
  twin: Twin,
  appId: number,
  active: boolean,
): Promise<void> {
  requirePackTwin(twin, 'github');
  await twin.applyAtomic((view) => {
    const r = view.get('app', String(appId));
    if (r === undefined || r.deleted) throw notFound(`app ${appId}`, 'app');
    return commit(
      {
        operation: 'app.update',
        subjectType: 'app',
        subjectId: r.id,
        fields: {
          active: active && r.fields.delivery_url !== null,
          updated_at: githubTime(twin.world.clock.now()),
        },
      },
      undefined,
    );
  });
}

/** Adds repositories to an installation that has selected ones (`installation_repositories.added`). */
export async function addInstallationRepositories(
  twin: Twin,
  input: { installation: number; repositories: string[]; sender: string },
): Promise<GitHubInstallation> {
  requirePackTwin(twin, 'github');
  if (
    !Array.isArray(input?.repositories) ||
    input.repositories.length === 0 ||
    input.repositories.some((r) => typeof r !== 'string')
  )
    throw validationFailed(
      'repositories must be a non-empty array of "owner/name"',
      'repositories',
    );
  const done = await twin.applyAtomic((view) => {
    const r = view.get('installation', String(input.installation));
    if (r === undefined || r.deleted)
      throw notFound(`installation ${input.installation}`, 'installation');
    const inst = installationKind.of(r);
    const sender = findUser(view, input.sender);
    if (inst.repository_selection === 'all')
      throw validationFailed(
        'the installation has access to all repositories; there is nothing to add',
        'repositories',
      );
    const ids = [...inst.repository_ids];
    for (const [i, fullName] of input.repositories.entries()) {
      const repo = findRepository(view, fullName, `repositories[${i}]`);
      if (repo.owner.id !== inst.account.id)
        throw validationFailed(
          `${fullName} does not belong to ${inst.account.login}`,
          `repositories[${i}]`,
        );
      if (!ids.includes(repo.id)) ids.push(repo.id);
    }
    if (ids.length === inst.repository_ids.length) return skip(inst);
    const fields = { repository_ids: ids, updated_at: githubTime(twin.world.clock.now()) };
    return commit(
      {
        operation: 'installation.add_repositories',
        subjectType: 'installation',
        subjectId: r.id,
        fields,
        actor: actorOf(sender),
      },
      { ...inst, ...fields },
    );
  });
  return done.result;
}
