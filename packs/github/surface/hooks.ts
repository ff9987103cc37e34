// Repository webhooks (create → `ping`, list, get, update, delete, ping) and their deliveries, read
// from the twin's own delivery records: each attempt the twin made is one delivery as GitHub lists
// them (a redelivery is a new one with the same guid), and a redelivery asks the dispatcher for
// exactly one operator attempt — never a second one by policy (GitHub does not retry either).
import { recordKind, type JsonObject } from '../../../src/index.js';
import { answer } from '../../../src/host/index.js';
import {
  createRepositoryHook,
  deleteHook,
  pingHook,
  repositoryHookKind,
  updateHook,
  type GitHubHook,
} from '../hooks.js';
import { renderHook } from '../payload.js';
import type { GitHubRepository } from '../repositories.js';
import { GitHubApiError, invalidField } from './errors.js';
import { page } from './paging.js';
import { numberParam, repoOf, userOf, type GitHubContext, type GitHubRouteSpec } from './route.js';

/** The few fields of the kernel's delivery records and attempts these routes read. */
type DeliveryRecord = {
  state: string;
  eventType: string;
  messageId: string;
  endpointKind: string;
  endpointId: string;
  url: string;
  body: string;
};
type DeliveryAttempt = {
  delivery: string;
  number: number;
  kind: 'first' | 'retry' | 'redeliver';
  state: string;
  startedAt: string;
  finishedAt: string | null;
  status: number | null;
  reason: string | null;
  headers: Record<string, string> | null;
  url?: string;
};
const deliveryRecordKind = recordKind<DeliveryRecord>({ type: 'hook_delivery' });
const attemptKind = recordKind<DeliveryAttempt>({ type: 'hook_delivery_attempt' });

/** Starts one operator attempt of a delivery record (the host's dispatcher's redeliver). */
export type Redeliver = (deliveryId: string) => Promise<unknown>;

/** The hook as the API answers it: a secret shows as "********", and a hook without one has none. */
function apiHook(hook: GitHubHook): JsonObject {
  const out = renderHook(hook);
  if (hook.secret_ref === null) return out;
  const config = out.config as JsonObject;
  return { ...out, config: { ...config, secret: '********' } };
}

async function hookOf(ctx: GitHubContext, repo: GitHubRepository): Promise<GitHubHook> {
  const id = numberParam(ctx, 'hook_id');
  const hook = await ctx.twin.read((view) => repositoryHookKind.read(view, id));
  if (hook === undefined || hook.repository_id !== repo.id)
    throw new GitHubApiError(404, 'Not Found');
  return hook;
}

/** The hook's config as Octokit sends it: `{config: {url, secret, content_type, insecure_ssl}}`. */
function configOf(input: JsonObject): JsonObject {
  const config = input.config;
  if (config === undefined) return {};
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw invalidField('Hook', 'config', 'invalid', 'config must be an object');
  return config;
}

/** The config's delivery options a create or an update passes on (checked by the pack). */
function deliveryOptions(config: JsonObject): {
  content_type?: 'json';
  insecure_ssl?: '0' | '1';
} {
  return {
    ...(config.content_type === undefined ? {} : { content_type: config.content_type as 'json' }),
    ...(config.insecure_ssl === undefined
      ? {}
      : { insecure_ssl: String(config.insecure_ssl) as '0' | '1' }),
  };
}

function events(input: JsonObject): string[] | undefined {
  const v = input.events;
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((e) => typeof e !== 'string'))
    throw invalidField('Hook', 'events', 'invalid', 'events must be an array of event names');
  return v as string[];
}

function seconds(a: DeliveryAttempt): number {
  if (a.finishedAt === null) return 0;
  return Math.max(0, (Date.parse(a.finishedAt) - Date.parse(a.startedAt)) / 1000);
}

function summary(id: string, a: DeliveryAttempt, d: DeliveryRecord, repo: GitHubRepository) {
  const [event, action] = d.eventType.split('.');
  return {
    id,
    guid: d.messageId,
    delivered_at: a.startedAt,
    redelivery: a.kind === 'redeliver',
    duration: seconds(a),
    status:
      a.state === 'succeeded' ? 'OK' : a.state === 'sending' ? 'pending' : (a.reason ?? a.state),
    status_code: a.status ?? 0,
    event: event!,
    action: action ?? null,
    installation_id: null,
    repository_id: repo.id,
    throttled_at: null,
  };
}

/** Every attempt at the hook's deliveries, with the record each belongs to (in no order). */
async function attemptsOf(ctx: GitHubContext, hook: GitHubHook) {
  return ctx.twin.read((view) => {
    const records = new Map(
      view
        .list(deliveryRecordKind.type)
        .filter(
          (r) =>
            r.fields.endpointKind === 'repository_hook' && r.fields.endpointId === String(hook.id),
        )
        .map((r) => [r.id, deliveryRecordKind.of(r)] as const),
    );
    return view
      .list(attemptKind.type)
      .map((r) => ({ id: r.id, attempt: attemptKind.of(r) }))
      .filter(({ attempt }) => records.has(attempt.delivery))
      .map(({ id, attempt }) => ({ id, attempt, record: records.get(attempt.delivery)! }));
  });
}

/**
 * The attempts newest first, as GitHub lists deliveries: in the order they were made, which is the
 * seq of the claim entry that made each (an entry of its delivery record naming it as
 * `currentAttempt`). Neither `startedAt` (equal within a tick of the virtual clock) nor the ids
 * (random within a millisecond) nor a resource's version (moved by its finish) tells that order.
 */
async function newestFirst<T extends { id: string; attempt: DeliveryAttempt }>(
  ctx: GitHubContext,
  attempts: T[],
): Promise<T[]> {
  const records = [...new Set(attempts.map((a) => a.attempt.delivery))];
  const histories = await Promise.all(
    records.map((id) => ctx.twin.entriesFor(deliveryRecordKind.type, id)),
  );
  const made = new Map<string, number>();
  for (const entry of histories.flat()) {
    const attempt = entry.fields?.currentAttempt;
    if (typeof attempt === 'string' && !made.has(attempt)) made.set(attempt, entry.seq);
  }
  return [...attempts].sort((x, y) => (made.get(y.id) ?? 0) - (made.get(x.id) ?? 0));
}

async function deliveryOf(ctx: GitHubContext, hook: GitHubHook) {
  const id = ctx.params.delivery_id!;
  const found = (await attemptsOf(ctx, hook)).find((x) => x.id === id);
  if (found === undefined) throw new GitHubApiError(404, 'Not Found');
  return found;
}

export function hookRoutes(redeliver: Redeliver): GitHubRouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/repos/:owner/:repo/hooks',
      sdk: 'repos.createWebhook',
      kind: 'write',
      events: ['ping'],
      resource: 'Hook',
      async handle(ctx) {
        const repo = await repoOf(ctx);
        const user = userOf(ctx);
        const config = configOf(ctx.input);
        if (ctx.input.name !== undefined && ctx.input.name !== 'web')
          throw invalidField('Hook', 'name', 'invalid', 'name must be "web"');
        const active = ctx.input.active;
        const list = events(ctx.input);
        const hook = await createRepositoryHook(ctx.twin, {
          repository: repo.full_name,
          url: config.url as string,
          ...(config.secret === undefined ? {} : { secret: config.secret as string }),
          ...(list === undefined ? {} : { events: list }),
          ...(typeof active === 'boolean' ? { active } : {}),
          ...deliveryOptions(config),
          sender: user.login,
          restChecks: true,
        });
        return answer(201, apiHook(hook));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/hooks',
      sdk: 'repos.listWebhooks',
      kind: 'read',
      async handle(ctx) {
        const repo = await repoOf(ctx);
        const hooks = await ctx.twin.read((view) => repositoryHookKind.list(view));
        return page(ctx, hooks.filter((h) => h.repository_id === repo.id).map(apiHook));
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/hooks/:hook_id',
      sdk: 'repos.getWebhook',
      kind: 'read',
      handle: async (ctx) => apiHook(await hookOf(ctx, await repoOf(ctx))),
    },
    {
      method: 'PATCH',
      path: '/repos/:owner/:repo/hooks/:hook_id',
      sdk: 'repos.updateWebhook',
      kind: 'write',
      resource: 'Hook',
      async handle(ctx) {
        const hook = await hookOf(ctx, await repoOf(ctx));
        userOf(ctx);
        const config = configOf(ctx.input);
        let list = events(ctx.input);
        const add = ctx.input.add_events;
        const remove = ctx.input.remove_events;
        if (Array.isArray(add) || Array.isArray(remove)) {
          const base = list ?? hook.events;
          list = [
            ...base.filter((e) => !(Array.isArray(remove) && remove.includes(e))),
            ...(Array.isArray(add) ? (add as string[]).filter((e) => !base.includes(e)) : []),
          ];
        }
        if (config.secret !== undefined)
          throw invalidField(
            'Hook',
            'config.secret',
            'custom',
            'this twin keeps a hook’s secret as created; delete and create the hook to change it',
          );
        const active = ctx.input.active;
        const updated = await updateHook(ctx.twin, 'repository_hook', hook.id, {
          ...(typeof active === 'boolean' ? { active } : {}),
          ...(list === undefined ? {} : { events: list }),
          ...(typeof config.url === 'string' ? { url: config.url } : {}),
          ...deliveryOptions(config),
        });
        return apiHook(updated);
      },
    },
    {
      method: 'DELETE',
      path: '/repos/:owner/:repo/hooks/:hook_id',
      sdk: 'repos.deleteWebhook',
      kind: 'write',
      resource: 'Hook',
      async handle(ctx) {
        const hook = await hookOf(ctx, await repoOf(ctx));
        userOf(ctx);
        await deleteHook(ctx.twin, 'repository_hook', hook.id);
        return answer(204, null);
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/hooks/:hook_id/pings',
      sdk: 'repos.pingWebhook',
      kind: 'write',
      events: ['ping'],
      resource: 'Hook',
      async handle(ctx) {
        const hook = await hookOf(ctx, await repoOf(ctx));
        await pingHook(ctx.twin, 'repository_hook', hook.id, userOf(ctx).login);
        return answer(204, null);
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/hooks/:hook_id/deliveries',
      sdk: 'repos.listWebhookDeliveries',
      kind: 'read',
      async handle(ctx) {
        const repo = await repoOf(ctx);
        const hook = await hookOf(ctx, repo);
        const all = await newestFirst(ctx, await attemptsOf(ctx, hook));
        return page(
          ctx,
          all.map(({ id, attempt, record }) => summary(id, attempt, record, repo)),
        );
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/hooks/:hook_id/deliveries/:delivery_id',
      sdk: 'repos.getWebhookDelivery',
      kind: 'read',
      async handle(ctx) {
        const repo = await repoOf(ctx);
        const { id, attempt, record } = await deliveryOf(ctx, await hookOf(ctx, repo));
        return {
          ...summary(id, attempt, record, repo),
          url: attempt.url ?? record.url,
          request: {
            headers: attempt.headers ?? {},
            payload: JSON.parse(record.body) as JsonObject,
          },
          response: { headers: {}, payload: null },
        };
      },
    },
    {
      // One operator attempt of the record this delivery belongs to, started after the answer.
      method: 'POST',
      path: '/repos/:owner/:repo/hooks/:hook_id/deliveries/:delivery_id/attempts',
      sdk: 'repos.redeliverWebhookDelivery',
      kind: 'write',
      resource: 'HookDelivery',
      async handle(ctx) {
        const repo = await repoOf(ctx);
        userOf(ctx);
        const { attempt, record } = await deliveryOf(ctx, await hookOf(ctx, repo));
        if (record.state === 'sending')
          throw invalidField(
            'HookDelivery',
            'delivery_id',
            'custom',
            'an attempt of this delivery is in flight; wait for it to finish',
          );
        const world = ctx.twin.world;
        setImmediate(() => {
          redeliver(attempt.delivery).catch((error: unknown) =>
            world.reportError(error, `redeliver ${attempt.delivery}`),
          );
        });
        return answer(202, {});
      },
    },
  ];
}
