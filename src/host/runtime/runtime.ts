// The trigger runtime, assembled in one place: an in-process runner with the host's routines, the
// engine with its routes, the webhook ingress and the calendar source registered, the engine
// started, the subscriptions stored, and — when the host is ready for intake — the ingress host
// serving them. `twinworld serve`, the walks' trigger ingress and the tests all build it here.
import { checkOptionKeys, checkWorld } from '../../errors.js';
import { canonicalJson } from '../../log/canonical-json.js';
import type { World } from '../../world/world.js';
import { CalendarSource } from '../../triggers/calendar/calendar-source.js';
import type { CalendarSubscription } from '../../triggers/calendar/subscription.js';
import { TriggerEngine, type TriggerRoute } from '../../triggers/engine/engine.js';
import {
  startIngressHost,
  type IngressHost,
  type IngressHostOptions,
} from '../ingress/ingress-host.js';
import { InProcessRunner, type RoutineFn } from '../../triggers/in-process-runner.js';
import { WebhookIngress, type WebhookEndpoint } from '../../triggers/webhook/webhook-ingress.js';

export interface TriggerRuntimeOptions {
  readonly world: World;
  /** The trigger twin; default "triggers". */
  readonly twin?: string;
  /** Who claims runs, and for how long before a heartbeat (docs/work.md); default the engine's. */
  readonly owner?: string;
  readonly leaseMs?: number;
  /** Routines by id, run in process. */
  readonly routines?: Readonly<Record<string, RoutineFn>>;
  readonly routes?: readonly TriggerRoute[];
  readonly webhooks?: readonly WebhookEndpoint[];
  /** The ingress's cap on a webhook body; default DEFAULT_MAX_BODY_BYTES. */
  readonly maxBodyBytes?: number;
  /** Subscriptions stored once the engine runs. */
  readonly calendars?: readonly CalendarSubscription[];
  /**
   * 'always' stores every subscription again (its cursor resets to now); 'changed' (default) only
   * a new or changed one, so a restart does not skip what fell due while the host was down.
   */
  readonly configure?: 'always' | 'changed';
  /** false: build and register everything, but leave engine.start() (and the calendars) to the caller. */
  readonly start?: boolean;
}

const RUNTIME_OPTION_KEYS: readonly (keyof TriggerRuntimeOptions)[] = [
  'world',
  'twin',
  'owner',
  'leaseMs',
  'routines',
  'routes',
  'webhooks',
  'maxBodyBytes',
  'calendars',
  'configure',
  'start',
];

/** What the ingress host takes beyond the runtime's own parts. */
export type ListenOptions = Omit<IngressHostOptions, 'world' | 'engine' | 'ingress'>;

export interface TriggerRuntime {
  readonly engine: TriggerEngine;
  readonly runner: InProcessRunner;
  readonly ingress: WebhookIngress;
  readonly calendar: CalendarSource;
  /**
   * Starts intake: an ingress host (127.0.0.1 unless told otherwise) serving this runtime's
   * webhooks. Separate from building, so a host can recover unfinished work first.
   */
  listen(options?: ListenOptions): Promise<IngressHost>;
}

/** A subscription's stored form equals the wanted one (the cursor and revision aside). */
function unchanged(
  stored: Awaited<ReturnType<CalendarSource['subscription']>>,
  wanted: CalendarSubscription,
): boolean {
  return (
    stored !== undefined &&
    canonicalJson([
      stored.scopeId,
      stored.cron,
      stored.timezone,
      stored.catchUp,
      stored.enabled,
    ]) ===
      canonicalJson([wanted.scopeId, wanted.cron, wanted.timezone, wanted.catchUp, wanted.enabled])
  );
}

export async function createTriggerRuntime(
  options: TriggerRuntimeOptions,
): Promise<TriggerRuntime> {
  // A misspelt key ({rotines}, {webhook}) was dropped: a runtime with no routines or endpoints.
  checkOptionKeys('createTriggerRuntime(options)', options, RUNTIME_OPTION_KEYS);
  checkWorld('createTriggerRuntime(options)', options?.world);
  const { world } = options;
  const runner = new InProcessRunner(world);
  for (const [id, fn] of Object.entries(options.routines ?? {})) runner.register(id, fn);
  const engine = new TriggerEngine({
    world,
    runner,
    ...(options.twin === undefined ? {} : { twin: options.twin }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  for (const route of options.routes ?? []) engine.registerRoute(route);
  const ingress = new WebhookIngress({
    endpoints: options.webhooks ?? [],
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  });
  const calendar = new CalendarSource();
  engine.registerSource(ingress).registerSource(calendar);
  if (options.start !== false) {
    await engine.start();
    const always = options.configure === 'always';
    for (const sub of options.calendars ?? []) {
      if (always || !unchanged(await calendar.subscription(sub.tenantId, sub.triggerId), sub))
        await calendar.configure(sub);
    }
  }
  return {
    engine,
    runner,
    ingress,
    calendar,
    listen: (listen = {}) => startIngressHost({ ...listen, world, engine, ingress }),
  };
}
