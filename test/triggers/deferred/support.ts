// Shared fixtures for the deferred dispatch tests: an engine on a virtual clock (over any backend)
// whose routine "sync" records each call, envelopes for a trigger, and a clock that runs what
// falls due as it passes it — the way a walk does.
import type { JsonValue } from '../../../src/log/json-value.js';
import type { StorageBackend } from '../../../src/storage/port.js';
import { isoAt, VirtualClock } from '../../../src/world/clock.js';
import { openWorld, type World } from '../../../src/world/world.js';
import { TriggerEngine, type TriggerRoute } from '../../../src/triggers/engine/engine.js';
import { createTriggerEnvelope, type TriggerEnvelope } from '../../../src/triggers/envelope.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import {
  deferredDispatchWork,
  type DispatchWork,
} from '../../../src/triggers/deferred/dispatch-work.js';
import { runDueDispatches } from '../../../src/triggers/deferred/run-due.js';
import type { WorkReport } from '../../../src/work/work-kind.js';

export const T0 = '2026-03-01T12:00:00.000Z';

export function event(
  i: number,
  payload: JsonValue,
  overrides: { triggerId?: string; tenantId?: string; dedupeKey?: string } = {},
): TriggerEnvelope {
  return createTriggerEnvelope({
    tenantId: overrides.tenantId ?? 'acme',
    scopeId: 'store-1',
    source: { kind: 'custom', provider: 'crm' },
    triggerId: overrides.triggerId ?? 'customer.updated',
    eventId: `evt_${i}`,
    dedupeKey: overrides.dedupeKey ?? `evt_${i}`,
    occurredAt: T0,
    scheduledAt: T0,
    payload,
  });
}

export interface Call {
  readonly at: string;
  readonly routineId: string;
  readonly input: JsonValue;
  readonly runKey: string;
  readonly attempt: number;
}

export interface DeferredHarness {
  readonly world: World;
  readonly clock: VirtualClock;
  readonly engine: TriggerEngine;
  readonly work: DispatchWork;
  readonly calls: Call[];
  /** Moves the clock to `to`, running what falls due at each due time on the way, in order. */
  advanceTo(to: string | number): Promise<WorkReport[]>;
  advance(ms: number): Promise<WorkReport[]>;
  /** Runs what is due now. */
  runDue(): Promise<WorkReport[]>;
}

export async function deferredHarness(
  routes: readonly Omit<TriggerRoute, 'buildInput'>[],
  options: {
    backend?: StorageBackend;
    routine?: (input: JsonValue) => Promise<JsonValue> | JsonValue;
  } = {},
): Promise<DeferredHarness> {
  const clock = new VirtualClock(T0);
  const world = openWorld({
    root: ':memory:',
    clock,
    seed: 'deferred',
    ...(options.backend === undefined ? {} : { backend: options.backend }),
  });
  const calls: Call[] = [];
  const runner = new InProcessRunner(world).register('sync', async (input, ctx) => {
    calls.push({
      at: isoAt(clock.now()),
      routineId: ctx.routineId,
      input,
      runKey: ctx.runKey,
      attempt: ctx.attempt,
    });
    return options.routine === undefined ? { synced: input } : options.routine(input);
  });
  const engine = new TriggerEngine({ world, runner, owner: 'wrk_test' });
  for (const route of routes) engine.registerRoute({ ...route, buildInput: (e) => e.payload });
  await engine.start();
  const work = deferredDispatchWork(engine);
  const runDue = (): Promise<WorkReport[]> => runDueDispatches(work, clock.now());
  const advanceTo = async (to: string | number): Promise<WorkReport[]> => {
    const target = typeof to === 'number' ? to : Date.parse(to);
    const reports: WorkReport[] = [...(await runDue())];
    for (;;) {
      const next = await work.nextDue();
      if (next === undefined || next > target) break;
      const stuck = next <= clock.now();
      if (!stuck) await clock.set(next);
      const ran = await runDue();
      reports.push(...ran);
      // Due but nothing moved: whatever holds it is not ours to run (no route, a live lease).
      if (stuck && ran.length === 0) break;
    }
    if (target > clock.now()) await clock.set(target);
    return reports;
  };
  return {
    world,
    clock,
    engine,
    work,
    calls,
    advanceTo,
    advance: (ms) => advanceTo(clock.now() + ms),
    runDue,
  };
}

/** ISO time `ms` after T0. */
export function at(ms: number): string {
  return isoAt(Date.parse(T0) + ms);
}
