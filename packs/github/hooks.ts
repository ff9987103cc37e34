// Webhooks at two levels: repository hooks (matched on the payload's repository) and
// organization hooks (matched on its organization), so one write to an organization's
// repository reaches both when both subscribe. Creating a hook (or pinging it) sends `ping` to
// that hook alone. Secrets go to world.secrets; the hook keeps a reference, and the API answers
// "********" for it, as GitHub does. A hook made without a secret keeps a null reference, and its
// packets go unsigned (no X-Hub-Signature headers), as GitHub sends them. A hook made (or pinged)
// by a user has that user as the write's actor, so the ping's `sender` is that user.
import { commit, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { checker } from '../kit/input.js';
import { requirePackTwin, secretRefFor, withStoredSecret } from '../kit/twin-checks.js';
import { actorOf, findOrganization, findUser } from './accounts.js';
import { customRefusal, notFound, validationFailed } from './errors.js';
import { GITHUB_HOOK_EVENTS } from './hook-events.js';
import { githubIds, githubTime } from './ids.js';
import { findRepository } from './repositories.js';
import { recordKind } from '../../src/index.js';

export type HookKind = 'repository_hook' | 'organization_hook';

export type GitHubHook = {
  type: 'Repository' | 'Organization';
  id: number;
  name: 'web';
  active: boolean;
  events: string[];
  /** `secret` is "********" for a hook made with one, and absent otherwise (as GitHub answers). */
  config: { content_type: 'json'; insecure_ssl: '0' | '1'; url: string; secret?: string };
  updated_at: string;
  created_at: string;
  url: string;
  ping_url: string;
  deliveries_url: string;
  last_response: { code: number | null; status: string; message: string | null };
  // Twin bookkeeping, read by the kernel's fan-out (never rendered):
  repository_id?: number;
  organization_id?: number;
  delivery_url: string;
  /** Null: the hook has no secret, and the kernel sends its packets unsigned (pack.ts). */
  secret_ref: string | null;
  /** `events` as kernel filters: "issues" takes issues.opened, issues.closed, …; every hook takes "ping". */
  event_filter: string[];
  /**
   * Always null. The repository/organization endpoint kinds match it against the body's `hook_id`,
   * which only a ping has: so a ping reaches its own hook (matched on `id`) and no other.
   */
  ping_guard: null;
};

/** A repository's hooks and an organization's: one shape, two types (src/state/record-kind.ts). */
export const repositoryHookKind = recordKind<GitHubHook>({ type: 'repository_hook' });
const organizationHookKind = recordKind<GitHubHook>({ type: 'organization_hook' });
export const hookKinds = {
  repository_hook: repositoryHookKind,
  organization_hook: organizationHookKind,
} as const;

export interface HookInput {
  url: string;
  /** Optional, as on GitHub: without one the hook's packets carry no signature headers. */
  secret?: string;
  /** GitHub event names, or "*"; GitHub's default is ["push"]. */
  events?: string[];
  active?: boolean;
  content_type?: 'json';
  insecure_ssl?: '0' | '1';
  /** Login of the user making the hook: the ping's `sender`. Without one, the ping has none. */
  sender?: string;
  /**
   * The REST API's refusal of a second hook with the same URL. Off for the twin's own tooling
   * (send, listen, trigger, endpoints add), whose one-shot hooks stay on the repository retired.
   */
  restChecks?: boolean;
}

/** The write's actor: the user acting, when there is one (the payload's `sender`). */
function actedBy(view: ReadView, sender: string | undefined): { actor?: string } {
  return sender === undefined ? {} : { actor: actorOf(findUser(view, sender)) };
}

const check = checker('github');

/** GitHub event names whose payload has no `action`: their kernel type is the bare name. */
const ACTIONLESS = new Set(['push', 'ping', 'create', 'delete', 'status']);

function eventFilter(events: readonly string[]): string[] {
  const filter = events.map((e) => (e === '*' || ACTIONLESS.has(e) ? e : `${e}.*`));
  return filter.includes('*') || filter.includes('ping') ? filter : [...filter, 'ping'];
}

/** GitHub's refusal of a hook's events: none, or a name GitHub does not send. */
export function checkEvents(value: unknown): string[] {
  const events = value === undefined ? ['push'] : check.stringArray(value, 'events');
  for (const e of events)
    if (e !== '*' && !GITHUB_HOOK_EVENTS.has(e))
      throw validationFailed(
        `"${e}" is not a GitHub webhook event name (e.g. issues, pull_request, or "*")`,
        'events',
      );
  if (events.length === 0) throw validationFailed('events must name at least one event', 'events');
  return events;
}

/** GitHub keeps one hook per URL on a repository (or an organization). */
function hookExists(kind: HookKind) {
  const on = kind === 'repository_hook' ? 'repository' : 'organization';
  return customRefusal('Hook', `Hook already exists on this ${on}`);
}

async function create(
  twin: Twin,
  kind: HookKind,
  input: HookInput,
  scope: (view: ReadView) => { api: string; fields: JsonObject; hooks: readonly GitHubHook[] },
): Promise<GitHubHook> {
  requirePackTwin(twin, 'github');
  const url = check.url(input?.url, 'config.url');
  // Absent means an unsigned hook; a secret that is given must be a real one.
  const secret =
    input.secret === undefined ? undefined : check.secret(input.secret, 'config.secret');
  const events = checkEvents(input.events);
  checkConfig(input);
  const id = githubIds.numeric(twin.world.ids);
  const ref = secret === undefined ? null : secretRefFor(twin, `${kind}/${id}`);
  const write = () =>
    twin.applyAtomic((view) => {
      const { api, fields, hooks } = scope(view);
      if (input.restChecks === true && hooks.some((h) => h.config.url === url))
        throw hookExists(kind);
      const now = githubTime(twin.world.clock.now());
      const hookUrl = `${api}/hooks/${id}`;
      const hook: GitHubHook = {
        type: kind === 'repository_hook' ? 'Repository' : 'Organization',
        id,
        name: 'web',
        active: input.active ?? true,
        events,
        config: {
          content_type: 'json',
          insecure_ssl: input.insecure_ssl ?? '0',
          url,
          ...(ref === null ? {} : { secret: '********' }),
        },
        updated_at: now,
        created_at: now,
        url: hookUrl,
        ping_url: `${hookUrl}/pings`,
        deliveries_url: `${hookUrl}/deliveries`,
        last_response: { code: null, status: 'unused', message: null },
        ...fields,
        delivery_url: url,
        secret_ref: ref,
        event_filter: eventFilter(events),
        ping_guard: null,
      };
      return commit(
        {
          operation: `${kind}.create`,
          subjectType: kind,
          subjectId: String(id),
          fields: hook,
          ...actedBy(view, input.sender),
        },
        hook,
      );
    });
  const done =
    ref === null || secret === undefined
      ? await write()
      : await withStoredSecret(twin, ref, secret, write);
  return done.result;
}

export function createRepositoryHook(
  twin: Twin,
  input: HookInput & { repository: string },
): Promise<GitHubHook> {
  return create(twin, 'repository_hook', input, (view) => {
    const repo = findRepository(view, input.repository);
    const hooks = repositoryHookKind.list(view).filter((h) => h.repository_id === repo.id);
    return { api: repo.url, fields: { repository_id: repo.id }, hooks };
  });
}

export function createOrganizationHook(
  twin: Twin,
  input: HookInput & { organization: string },
): Promise<GitHubHook> {
  return create(twin, 'organization_hook', input, (view) => {
    const org = findOrganization(view, input.organization);
    const hooks = organizationHookKind.list(view).filter((h) => h.organization_id === org.id);
    return { api: org.url, fields: { organization_id: org.id }, hooks };
  });
}

/**
 * A hook config's `content_type` (only `json` is modelled: form-encoded payloads are refused, on
 * create and update alike, rather than sent as JSON) and `insecure_ssl` (`"0"` or `"1"`).
 */
function checkConfig(input: { content_type?: unknown; insecure_ssl?: unknown }): void {
  if (input.content_type !== undefined && input.content_type !== 'json') {
    throw validationFailed(
      'content_type must be "json": form-encoded payloads are not modelled by this twin',
      'config.content_type',
    );
  }
  if (input.insecure_ssl !== undefined && input.insecure_ssl !== '0' && input.insecure_ssl !== '1')
    throw validationFailed('insecure_ssl must be "0" or "1"', 'config.insecure_ssl');
}

export async function updateHook(
  twin: Twin,
  kind: HookKind,
  id: number,
  input: {
    active?: boolean;
    events?: string[];
    url?: string;
    content_type?: 'json';
    insecure_ssl?: '0' | '1';
  },
): Promise<GitHubHook> {
  requirePackTwin(twin, 'github');
  checkConfig(input);
  const fields: JsonObject = {};
  if (input.active !== undefined) fields.active = check.boolean(input.active, 'active');
  if (input.events !== undefined) {
    const events = checkEvents(input.events);
    fields.events = events;
    fields.event_filter = eventFilter(events);
  }
  const done = await twin.applyAtomic((view) => {
    const r = view.get(kind, String(id));
    if (r === undefined || r.deleted) throw notFound(`hook ${id}`, 'hook_id');
    const current = hookKinds[kind].of(r);
    if (input.url !== undefined) {
      const url = check.url(input.url, 'config.url');
      const sibling = hookKinds[kind]
        .list(view)
        .find(
          (h) =>
            h.id !== id &&
            h.config.url === url &&
            h.repository_id === current.repository_id &&
            h.organization_id === current.organization_id,
        );
      if (sibling !== undefined) throw hookExists(kind);
      fields.config = { ...current.config, url };
      fields.delivery_url = url;
    }
    if (input.insecure_ssl !== undefined)
      fields.config = {
        ...current.config,
        ...(fields.config as JsonObject),
        insecure_ssl: input.insecure_ssl,
      };
    fields.updated_at = githubTime(twin.world.clock.now());
    return commit(
      { operation: `${kind}.update`, subjectType: kind, subjectId: String(id), fields },
      { ...current, ...fields } as GitHubHook,
    );
  });
  return done.result;
}

/** POST /hooks/{id}/pings: sends the hook a new `ping`, from `sender` (a login) when given. */
export async function pingHook(
  twin: Twin,
  kind: HookKind,
  id: number,
  sender?: string,
): Promise<void> {
  requirePackTwin(twin, 'github');
  await twin.applyAtomic((view) => {
    const r = view.get(kind, String(id));
    if (r === undefined || r.deleted) throw notFound(`hook ${id}`, 'hook_id');
    return commit({
      operation: `${kind}.ping`,
      subjectType: kind,
      subjectId: String(id),
      fields: {},
      ...actedBy(view, sender),
    });
  });
}

export async function deleteHook(twin: Twin, kind: HookKind, id: number): Promise<void> {
  requirePackTwin(twin, 'github');
  const done = await twin.applyAtomic((view) => {
    const r = view.get(kind, String(id));
    if (r === undefined || r.deleted) throw notFound(`hook ${id}`, 'hook_id');
    return commit(
      { operation: `${kind}.delete`, subjectType: kind, subjectId: String(id), delete: true },
      hookKinds[kind].of(r).secret_ref,
    );
  });
  // An unsigned hook stored no secret.
  if (done.result !== null) await twin.world.secrets.delete(done.result);
}
