// The trigger ingress inside a walk: an engine with in-process routines, a webhook ingress behind
// a real ingress host on 127.0.0.1 (mounted under a stable name, so ports never reach the log),
// calendar subscriptions the walk clock ticks as it passes their occurrences, and deferred
// dispatches run as the clock passes their due times, in one deterministic order.
import { TwinError } from '../errors.js';
import type { JsonValue } from '../log/json-value.js';
import { nextOccurrence } from '../triggers/cron/occurrences.js';
import type { CalendarSource } from '../triggers/calendar/calendar-source.js';
import {
  SUBSCRIPTION_TYPE,
  subscriptionOf,
  type CalendarSubscription,
  type SubscriptionFields,
} from '../triggers/calendar/subscription.js';
import type { TriggerEngine, TriggerRoute } from '../triggers/engine/engine.js';
import type { DispatchOptions } from '../triggers/deferred/dispatch-options.js';
import { deferredDispatchWork, type DispatchWork } from '../triggers/deferred/dispatch-work.js';
import { runDueDispatches } from '../triggers/deferred/run-due.js';
import type { TriggerEnvelope } from '../triggers/envelope.js';
import type { IngressHost } from '../host/ingress/ingress-host.js';
import type { InProcessRunner, RoutineFn } from '../triggers/in-process-runner.js';
import { createTriggerRuntime } from '../host/runtime/runtime.js';
import type { WebhookEndpoint, WebhookIngress } from '../triggers/webhook/webhook-ingress.js';
import type { Walk } from './walk.js';

export interface WalkRoute {
  readonly triggerId: string;
  readonly routine: string;
  /** Only these payload event types run the routine; others are recorded as filtered. */
  readonly eventTypes?: readonly string[];
  /** Default: the envelope's payload. */
  readonly buildInput?: (envelope: TriggerEnvelope) => JsonValue | Promise<JsonValue>;
  /** Run later: delay, debounce, concurrency, ttl (deferred dispatch). */
  readonly dispatch?: DispatchOptions;
}

export interface WalkTriggersOptions {
  /** The trigger twin; default "triggers". */
  readonly twin?: string;
  readonly routines: Readonly<Record<string, RoutineFn>>;
  readonly routes: readonly WalkRoute[];
  readonly webhooks?: readonly WebhookEndpoint[];
  readonly calendars?: readonly CalendarSubscription[];
  /** Mount name of the ingress host (http://<name>.walk.invalid/ingress/<tenant>/<provider>); default "ingress". */
  readonly mount?: string;
}

export interface WalkTriggers {
  readonly engine: TriggerEngine;
  readonly runner: InProcessRunner;
  readonly ingress: WebhookIngress;
  readonly calendar: CalendarSource;
  /** The deferred dispatches, run by the walk's clock as it passes their due times. */
  readonly dispatches: DispatchWork;
  readonly host: IngressHost;
  /** The stable base URL endpoints should use: http://ingress.walk.invalid/ */
  readonly baseUrl: string;
  /** The stable URL of one tenant's provider endpoint. */
  url(tenantId: string, provider: string): string;
}

function eventTypeOf(envelope: TriggerEnvelope): unknown {
  const payload = envelope.payload;
  return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
    ? payload.eventType
    : undefined;
}

function toRoute(r: WalkRoute): TriggerRoute {
  const types = r.eventTypes === undefined ? undefined : new Set(r.eventTypes);
  return {
    triggerId: r.triggerId,
    routineId: r.routine,
    ...(types === undefined
      ? {}
      : { filter: (e: TriggerEnvelope) => types.has(String(eventTypeOf(e))) }),
    buildInput: r.buildInput ?? ((e) => e.payload),
    ...(r.dispatch === undefined ? {} : { dispatch: r.dispatch }),
  };
}

/** Starts the engine, the ingress host and the calendar inside the walk; the walk's close stops them. */
export async function startWalkTriggers(
  walk: Walk,
  options: WalkTriggersOptions,
): Promise<WalkTriggers> {
  if (options === null || typeof options !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'startWalkTriggers(walk, {routines, routes, webhooks?, calendars?}) needs options',
      { path: 'options' },
    );
  const world = walk.world;
  const runtime = await createTriggerRuntime({
    world,
    ...(options.twin === undefined ? {} : { twin: options.twin }),
    routines: options.routines ?? {},
    routes: (options.routes ?? []).map(toRoute),
    webhooks: options.webhooks ?? [],
    calendars: options.calendars ?? [],
    // A walk's world is its own: every subscription is stored as the walk declares it.
    configure: 'always',
  });
  const { engine, calendar } = runtime;

  const subscriptions = async (): Promise<SubscriptionFields[]> =>
    (await engine.twin.list(SUBSCRIPTION_TYPE))
      .filter((r) => !r.deleted)
      .map(subscriptionOf)
      .filter((s) => s.enabled);
  walk.addTicker({
    name: 'calendar',
    nextAt: async () => {
      let next: number | undefined;
      for (const s of await subscriptions()) {
        const at = nextOccurrence(
          { cron: s.cron, timezone: s.timezone },
          Date.parse(s.cursor),
        )?.nominalAt;
        if (at !== undefined && (next === undefined || at < next)) next = at;
      }
      return next;
    },
    tick: async (now) => {
      for (const tenant of [...new Set((await subscriptions()).map((s) => s.tenantId))].sort())
        await calendar.tick(tenant, now);
    },
  });

  // Deferred dispatches: after the calendar at the same instant; every one due then, earliest
  // first, claimed before any runs (see run-due.ts). A run that frees a slot makes the next due.
  const dispatches = deferredDispatchWork(engine);
  walk.addTicker({
    name: 'deferred',
    nextAt: () => dispatches.nextDue(),
    tick: (now) => runDueDispatches(dispatches, now),
  });

  const host = await runtime.listen({ closeWorld: false });
  // Stop intake and the engine before the world's storage closes.
  world.onClose(() => host.close());
  const baseUrl = walk.mount(options.mount ?? 'ingress', host.url);
  return {
    engine,
    runner: runtime.runner,
    ingress: runtime.ingress,
    calendar,
    dispatches,
    host,
    baseUrl,
    url: (tenantId, provider) =>
      `${baseUrl}ingress/${encodeURIComponent(tenantId)}/${encodeURIComponent(provider)}`,
  };
}
