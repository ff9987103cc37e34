// Shared fixtures for the schedule tests: a world on a virtual clock over one backend case, a
// Schedules service with the in-process runner (record, wait, and a routine whose finish the test
// controls), and helpers to read the ledger.
import type { JsonValue } from '../../../src/log/json-value.js';
import { VirtualClock } from '../../../src/world/clock.js';
import { openWorld, type World } from '../../../src/world/world.js';
import { InProcessRunner } from '../../../src/triggers/in-process-runner.js';
import { recordRoutine } from '../../../src/triggers/routines/record-routine.js';
import { waitRoutine } from '../../../src/triggers/routines/wait-routine.js';
import {
  Schedules,
  type FireView,
  type ScheduleInput,
  type SchedulesOptions,
} from '../../../src/triggers/schedules/index.js';
import type { BackendCase } from '../../support/backends.js';

export const T0 = '2026-03-02T00:00:00.000Z';

export interface Harness {
  readonly world: World;
  readonly clock: VirtualClock;
  readonly runner: InProcessRunner;
  readonly schedules: Schedules;
  /** Calls of the `gate` routine, each finished by the test. */
  readonly gates: { input: JsonValue; finish: (result: JsonValue) => void; fail: () => void }[];
  /** What the world reported (world.reportError) instead of throwing. */
  readonly reported: { error: unknown; where: string }[];
  /** A second Schedules on its own world over the same storage: another scheduler host. */
  second(options?: Partial<SchedulesOptions>): Promise<Schedules>;
  close(): Promise<void>;
}

export async function harness(
  backendCase: BackendCase,
  options: Partial<Omit<SchedulesOptions, 'world'>> & { start?: string } = {},
): Promise<Harness> {
  const { backend, reopen, cleanup } = backendCase.create();
  const clock = new VirtualClock(options.start ?? T0);
  const reported: Harness['reported'] = [];
  const world = openWorld({
    root: ':memory:',
    clock,
    seed: 'schedules',
    backend,
    onError: (error, where) => void reported.push({ error, where }),
  });
  const gates: Harness['gates'] = [];
  const runner = new InProcessRunner(world)
    .register('record', recordRoutine('triggers'))
    .register('wait', waitRoutine())
    .register(
      'gate',
      (input) =>
        new Promise<JsonValue>((resolve, reject) =>
          gates.push({
            input,
            finish: resolve,
            fail: () => reject(Object.assign(new Error('gate failed'), { name: 'GATE_FAILED' })),
          }),
        ),
    );
  const schedules = new Schedules({ world, runner, owner: 'host-a', ...options });
  const others: World[] = [];
  return {
    world,
    clock,
    runner,
    schedules,
    gates,
    reported,
    async second(more = {}) {
      const other = openWorld({ root: ':memory:', clock, seed: 'schedules-b', backend: reopen() });
      others.push(other);
      return new Schedules({ world: other, runner, owner: 'host-b', ...options, ...more });
    },
    async close() {
      for (const w of others) await w.close();
      await world.close();
      cleanup();
    },
  };
}

export function nightly(overrides: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    tenantId: 'acme',
    scheduleId: 'nightly',
    cron: '0 3 * * *',
    timezone: 'UTC',
    routine: 'gate',
    input: { job: 'report' },
    ...overrides,
  };
}

/** Every ledger row of a schedule, newest first. */
export async function ledger(
  schedules: Schedules,
  scheduleId = 'nightly',
  tenantId = 'acme',
): Promise<FireView[]> {
  return (await schedules.history({ tenantId, scheduleId, limit: 1000 })).items;
}

/** Lets promise chains settle (memory and SQLite answer in microtasks, PostgreSQL over a socket). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
