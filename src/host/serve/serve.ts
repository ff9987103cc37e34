// Wiring for `twinworld serve` and `twinworld tick`: the trigger runtime (../runtime/runtime.ts) built from
// a ServeConfig — the built-in record routine, its routes, webhooks and calendars — and the serve
// host that recovers unfinished work at startup, ticks calendars on an interval it owns, and
// stops in the design's order.
import { checkOptionKeys, checkWorld, TwinError } from '../../errors.js';
import type { World } from '../../world/world.js';
import type { TickAnswer } from '../../triggers/calendar/occurrence-record.js';
import { DEFAULT_TRIGGER_TWIN } from '../../triggers/defaults.js';
import type { TriggerRecoveryReport } from '../../triggers/engine/engine.js';
import type { TriggerEnvelope } from '../../triggers/envelope.js';
import type { IngressHost } from '../ingress/ingress-host.js';
import { createTriggerRuntime, type TriggerRuntime } from '../runtime/runtime.js';
import type { ServeConfig } from './config.js';
import type { PruneReport } from '../../triggers/retention.js';
import { RECORD_ROUTINE, recordRoutine } from '../../triggers/routines/record-routine.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Builds and starts the runtime for a configuration: routes to the record routine, one webhook
 * endpoint per configured provider (secrets read from the environment at each packet), the
 * calendar source, and each configured subscription stored — reconfigured (cursor reset) only
 * when it changed, so a restart does not skip what fell due while the server was down.
 */
export function startTriggerRuntime(
  world: World,
  config: ServeConfig,
  options: { env?: Env; twin?: string; leaseMs?: number } = {},
): Promise<TriggerRuntime> {
  const env = options.env ?? process.env;
  const twin = options.twin ?? DEFAULT_TRIGGER_TWIN;
  return createTriggerRuntime({
    world,
    twin,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    routines: { [RECORD_ROUTINE]: recordRoutine(twin) },
    routes: config.routes.map((route) => {
      const types = route.eventTypes === null ? null : new Set(route.eventTypes);
      return {
        triggerId: route.triggerId,
        routineId: route.routine,
        ...(types === null
          ? {}
          : {
              filter: (e: TriggerEnvelope) => {
                const t = (e.payload as { eventType?: unknown } | null)?.eventType;
                return typeof t === 'string' && types.has(t);
              },
            }),
        buildInput: (e: TriggerEnvelope) => e.payload,
        ...(route.dispatch === undefined ? {} : { dispatch: route.dispatch }),
      };
    }),
    webhooks: config.tenants.flatMap((tenant) =>
      tenant.endpoints.map((ep) => ({
        tenantId: tenant.id,
        provider: ep.provider,
        triggerId: ep.triggerId,
        scheme: ep.scheme,
        ...(ep.toleranceSec === null ? {} : { toleranceSec: ep.toleranceSec }),
        ...(ep.replayWindowSec === null ? {} : { replayWindowSec: ep.replayWindowSec }),
        resolveSecrets: () =>
          ep.secretEnv.map((name) => env[name] ?? '').filter((s) => s.trim() !== ''),
      })),
    ),
    calendars: config.tenants.flatMap((tenant) => tenant.calendars),
    configure: 'changed',
  });
}

export interface ServeOptions {
  readonly world: World;
  readonly config: ServeConfig;
  readonly port?: number;
  readonly host?: string;
  readonly env?: Env;
  readonly twin?: string;
  /** Tick every configured tenant's calendars this often; 0 or omitted: never (run `twinworld tick`). */
  readonly tickEveryMs?: number;
  /** Reports a failed background tick or prune; default world.reportError. */
  readonly onError?: (error: unknown) => void;
  /** How often retention runs when the configuration sets retentionDays (default hourly). */
  readonly pruneEveryMs?: number;
  /** Lease on routine runs and dispatch claims, in ms (default 30 s); the owner heartbeats a third. */
  readonly leaseMs?: number;
}

export interface ServeHandle extends TriggerRuntime {
  readonly host: IngressHost;
  /** What startup recovery re-ran, per tenant. */
  readonly recovered: readonly TriggerRecoveryReport[];
  /** Ticks every configured tenant now. */
  tick(): Promise<TickAnswer[]>;
  /** Applies the retention policy now (nothing when the configuration sets none). */
  prune(): Promise<PruneReport | undefined>;
  /** Stops ticking, then the host's graceful close (intake, in-flight, engine, store). */
  close(): Promise<void>;
}

const SERVE_OPTION_KEYS: readonly (keyof ServeOptions)[] = [
  'world',
  'config',
  'port',
  'host',
  'env',
  'twin',
  'tickEveryMs',
  'onError',
  'pruneEveryMs',
  'leaseMs',
];

export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  // {prot: 8080} was dropped and a free port taken; no options were a destructuring TypeError.
  checkOptionKeys('startServe(options)', options, SERVE_OPTION_KEYS);
  checkWorld('startServe(options)', options?.world);
  const { world, config } = options;
  const every = options.tickEveryMs ?? 0;
  if (!Number.isSafeInteger(every) || every < 0)
    throw new TwinError(
      'INVALID_ARGUMENT',
      'tickEveryMs must be a non-negative integer (0: no automatic ticks)',
      { path: 'tickEveryMs' },
    );
  const runtime = await startTriggerRuntime(world, config, {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.twin === undefined ? {} : { twin: options.twin }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  const recovered: TriggerRecoveryReport[] = [];
  // At startup, before intake: anything a crashed predecessor left processing or failed runs again.
  for (const tenant of config.tenants)
    recovered.push(await runtime.engine.recoverIncomplete(tenant.id));
  const scopes = new Map(config.tenants.map((t) => [t.id, t.scopeId]));
  const report = options.onError ?? ((error: unknown) => world.reportError(error, 'serve'));
  const retention = config.retentionDays;
  const prune = async (): Promise<PruneReport | undefined> =>
    retention === null || !runtime.engine.running
      ? undefined
      : runtime.engine.pruneSettled({ olderThanMs: Math.round(retention * 86_400_000) });
  await prune();
  const host = await runtime.listen({
    limits: config.limits,
    scopeFor: (tenantId) => scopes.get(tenantId) ?? tenantId,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
  });
  let ticking: Promise<unknown> = Promise.resolve();
  const tick = async (): Promise<TickAnswer[]> => {
    const answers: TickAnswer[] = [];
    for (const tenant of config.tenants)
      if (tenant.calendars.length > 0) answers.push(await runtime.calendar.tick(tenant.id));
    return answers;
  };
  let pruning: Promise<unknown> = Promise.resolve();
  const pruneEvery = options.pruneEveryMs ?? 3_600_000;
  if (!Number.isSafeInteger(pruneEvery) || pruneEvery < 1)
    throw new TwinError(
      'INVALID_ARGUMENT',
      'pruneEveryMs must be a positive integer number of milliseconds',
      { path: 'pruneEveryMs' },
    );
  const pruneTimer =
    retention === null
      ? undefined
      : setInterval(() => {
          pruning = pruning.then(prune).catch(report);
        }, pruneEvery);
  pruneTimer?.unref();
  const timer =
    every > 0 && config.tenants.some((t) => t.calendars.length > 0)
      ? setInterval(() => {
          ticking = ticking.then(() => (runtime.engine.running ? tick() : undefined)).catch(report);
        }, every)
      : undefined;
  let closed: Promise<void> | undefined;
  return {
    ...runtime,
    host,
    recovered,
    tick,
    prune,
    close: () =>
      (closed ??= (async () => {
        if (timer !== undefined) clearInterval(timer);
        if (pruneTimer !== undefined) clearInterval(pruneTimer);
        await ticking;
        await pruning;
        await host.close();
      })()),
  };
}
