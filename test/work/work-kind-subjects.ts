// The kernel's work kinds as subjects of the WorkKind conformance suite (work-kind-conformance.test.ts):
// for each, a host over a given store and clock — a world with the kind's service, routines or a
// receiver whose effects wait at a gate the test opens — and how to make one item of it due
// through its public API. Every lease these hosts take lasts LEASE_MS of world time.
import type { JsonValue } from '../../src/log/json-value.js';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { deliveryWork } from '../../src/events/delivery-work.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { InProcessTransport } from '../../src/events/transports/in-process-transport.js';
import type { StorageBackend } from '../../src/storage/port.js';
import { CalendarSource } from '../../src/triggers/calendar/calendar-source.js';
import { calendarWork } from '../../src/triggers/calendar/calendar-work.js';
import { OCCURRENCE_TYPE, SUBSCRIPTION_TYPE } from '../../src/triggers/calendar/subscription.js';
import { DISPATCH_TYPE } from '../../src/triggers/deferred/dispatch-record.js';
import { deferredDispatchWork } from '../../src/triggers/deferred/dispatch-work.js';
import { TriggerEngine } from '../../src/triggers/engine/engine.js';
import { runTakeoverWork } from '../../src/triggers/engine/run-work.js';
import { createTriggerEnvelope } from '../../src/triggers/envelope.js';
import { InProcessRunner } from '../../src/triggers/in-process-runner.js';
import { SCHEDULE_TYPE } from '../../src/triggers/schedules/declaration.js';
import { FIRE_TYPE } from '../../src/triggers/schedules/fire-record.js';
import { scheduleWork } from '../../src/triggers/schedules/schedule-work.js';
import { Schedules } from '../../src/triggers/schedules/schedules.js';
import { RECORD_TYPE } from '../../src/triggers/trigger-records.js';
import type { WorkKind } from '../../src/work/work-kind.js';
import { isoAt, VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';

/** Every claim of every subject lasts this long (world time). */
export const LEASE_MS = 10_000;
/** The minute the cron subjects fire at: their item falls due there. */
const MINUTE = 60_000;

/** Holds a host's effects (routine runs, received requests) until opened. */
export interface Gate {
  /** Resolves once an effect waits here (or ran, for an open gate). */
  readonly reached: Promise<void>;
  open(): void;
  /** What an effect calls: marks the gate reached, and waits until it is open. */
  pass(): Promise<void>;
}

function gate(held: boolean): Gate {
  let opened: () => void = () => {};
  const open = held ? new Promise<void>((r) => (opened = r)) : Promise.resolve();
  let reach: () => void = () => {};
  const reached = new Promise<void>((r) => (reach = r));
  return {
    reached,
    open: () => opened(),
    pass: () => {
      reach();
      return open;
    },
  };
}

export interface KindHost {
  readonly world: World;
  readonly kind: WorkKind;
  /** What this host's work did (routines run, requests received), in order. */
  readonly effects: string[];
  readonly gate: Gate;
  /** Makes one item due now on this host's clock through its public API (moving the clock if need be). */
  seed(): Promise<void>;
  /** Opens the gate and closes what the host opened. */
  close(): Promise<void>;
}

export interface Subject {
  readonly name: string;
  /**
   * Whether a take-over runs the work again. A send is never repeated blindly (it ends `unknown`);
   * a calendar's re-fire is deduplicated by ingest (the run it started is the engine's to take over).
   */
  readonly rerun: boolean;
  /**
   * The records the kind claims through: a stale finish must not move them. (The runner's record
   * of each attempt is not among them: it follows what that attempt's routine did, stale or not —
   * src/triggers/runs.ts, decideFinish.)
   */
  readonly records: readonly string[];
  /** The record type the due-order property writes raw, and the item id a record of it is due as. */
  readonly raw: { readonly type: string; readonly itemId?: (id: string) => string };
  open(
    backend: StorageBackend,
    clock: VirtualClock,
    name: string,
    held: boolean,
  ): Promise<KindHost>;
}

/** A world on its own clock over a shared store: a host of its own, as another process would be. */
function worldOn(backend: StorageBackend, clock: VirtualClock, name: string): World {
  return openWorld({ root: ':memory:', clock, seed: name, backend });
}

/** An engine whose routine `work` waits at the host's gate, with a plain and a deferred route. */
async function engineHost(
  backend: StorageBackend,
  clock: VirtualClock,
  name: string,
  held: boolean,
) {
  const world = worldOn(backend, clock, name);
  const effects: string[] = [];
  const g = gate(held);
  const runner = new InProcessRunner(world).register('work', async (_input, ctx) => {
    effects.push(`${name}:${ctx.envelope.dedupeKey}#${ctx.attempt}`);
    await g.pass();
    return { by: name } satisfies JsonValue;
  });
  const engine = new TriggerEngine({ world, runner, owner: `wrk_${name}`, leaseMs: LEASE_MS });
  engine.registerRoute({ triggerId: 'job', routineId: 'work', buildInput: () => null });
  engine.registerRoute({
    triggerId: 'later',
    routineId: 'work',
    buildInput: () => null,
    dispatch: { delay: 1_000 },
  });
  const close = async (): Promise<void> => {
    g.open();
    await world.close();
  };
  return { world, effects, gate: g, runner, engine, close };
}

function envelope(triggerId: string, id: string, at: number) {
  return createTriggerEnvelope({
    tenantId: 'acme',
    scopeId: 'store-1',
    source: { kind: 'custom', provider: 'conformance' },
    triggerId,
    eventId: id,
    dedupeKey: id,
    occurredAt: isoAt(at),
    scheduledAt: isoAt(at),
    payload: { id },
  });
}

/** Moves the clock to the next whole minute. */
async function toNextMinute(clock: VirtualClock): Promise<void> {
  await clock.advance(MINUTE - (clock.now() % MINUTE));
}

export const subjects: Subject[] = [
  {
    name: 'trigger-run',
    rerun: true,
    records: [RECORD_TYPE],
    raw: { type: RECORD_TYPE },
    async open(backend, clock, name, held) {
      const h = await engineHost(backend, clock, name, held);
      await h.engine.start();
      const closing: (() => Promise<void>)[] = [];
      return {
        ...h,
        kind: runTakeoverWork(h.engine),
        // A run whose host froze mid-routine (its clock stopped): due once its lease lapsed.
        async seed() {
          const dead = await engineHost(backend, new VirtualClock(clock.now()), 'dead', true);
          await dead.engine.start();
          const run = dead.engine.ingest(envelope('job', 'evt_run', clock.now()));
          await dead.gate.reached;
          await clock.advance(LEASE_MS);
          closing.push(async () => {
            dead.gate.open();
            await run.catch(() => {});
            await dead.world.close();
          });
        },
        close: async () => {
          for (const c of closing) await c();
          await h.close();
        },
      };
    },
  },
  {
    name: 'trigger-dispatch',
    rerun: true,
    records: [DISPATCH_TYPE, RECORD_TYPE],
    raw: { type: DISPATCH_TYPE },
    async open(backend, clock, name, held) {
      const h = await engineHost(backend, clock, name, held);
      await h.engine.start();
      return {
        ...h,
        kind: deferredDispatchWork(h.engine),
        // A dispatch deferred by a second: due once it passed.
        async seed() {
          await h.engine.ingest(envelope('later', 'evt_later', clock.now()));
          await clock.advance(1_000);
        },
      };
    },
  },
  {
    name: 'schedule',
    rerun: true,
    records: [SCHEDULE_TYPE, FIRE_TYPE],
    raw: { type: FIRE_TYPE, itemId: (id) => `fire:${id}` },
    async open(backend, clock, name, held) {
      const h = await engineHost(backend, clock, name, held);
      const schedules = new Schedules({
        world: h.world,
        runner: h.runner,
        owner: `sch_${name}`,
        leaseMs: LEASE_MS,
      });
      return {
        ...h,
        kind: scheduleWork(schedules),
        // A schedule every minute: due at the next one.
        async seed() {
          await schedules.declare({
            tenantId: 'acme',
            scheduleId: 'minutely',
            cron: '* * * * *',
            timezone: 'UTC',
            routine: 'work',
          });
          await toNextMinute(clock);
        },
      };
    },
  },
  {
    name: 'calendar',
    rerun: false,
    // A calendar's item is its tenant: the raw records each name their own.
    records: [SUBSCRIPTION_TYPE, OCCURRENCE_TYPE],
    raw: { type: SUBSCRIPTION_TYPE },
    async open(backend, clock, name, held) {
      const h = await engineHost(backend, clock, name, held);
      const calendar = new CalendarSource({ pendingLeaseMs: LEASE_MS });
      h.engine.registerSource(calendar);
      await h.engine.start();
      return {
        ...h,
        kind: calendarWork(calendar, h.engine.twin),
        // A calendar every minute: due at the next one.
        async seed() {
          await calendar.configure({
            tenantId: 'acme',
            triggerId: 'job',
            cron: '* * * * *',
            timezone: 'UTC',
          });
          await toNextMinute(clock);
        },
      };
    },
  },
  {
    name: 'delivery',
    rerun: false,
    records: ['delivery', 'delivery_attempt'],
    raw: { type: 'delivery' },
    async open(backend, clock, name, held) {
      const world = worldOn(backend, clock, name);
      const effects: string[] = [];
      const g = gate(held);
      const twin = registerPack(world, acmePack());
      // Each world keeps its own secrets: every host of the store holds the endpoint's.
      await world.secrets.set('ep', ACME_SECRET);
      const transport = new InProcessTransport(clock, async (req) => {
        effects.push(`${name}:${String(req.headers['webhook-id'])}`);
        await g.pass();
        return 200;
      });
      const dispatcher = new Dispatcher(world, {
        routes: [{ prefix: 'inproc://', transport }],
        autoDispatch: false,
        owner: `wrk_${name}`,
        leaseMs: LEASE_MS,
      });
      const [kind] = deliveryWork(dispatcher);
      return {
        world,
        effects,
        gate: g,
        kind: kind!,
        close: async () => {
          g.open();
          await world.close();
        },
        // A customer created: its webhook's delivery is queued, due at once.
        async seed() {
          await twin.applyWrite({
            operation: 'endpoint.create',
            subjectType: 'endpoint',
            subjectId: 'ep',
            fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
          });
          await twin.applyWrite({
            operation: 'customer.create',
            subjectType: 'customer',
            subjectId: 'cus_1',
            fields: { email: 'cus_1@example.com' },
          });
        },
      };
    },
  },
];
