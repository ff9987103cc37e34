// Schedules inside a walk: declarations claimed as the walk clock reaches them, their routines run
// in-process on the walk's clock, heartbeats as clock tasks — one deterministic order, so the same
// walk writes the same log. The walk settles after each step until every run is either finished or
// waiting inside its routine (for the clock), so a run's writes never race the next step.
import { TwinError } from '../errors.js';
import { InProcessRunner, type RoutineFn } from '../triggers/in-process-runner.js';
import type { RoutineRunner } from '../triggers/runner.js';
import { claimItem, scheduleWork } from '../triggers/schedules/schedule-work.js';
import { Schedules } from '../triggers/schedules/schedules.js';
import type { ScheduleInput } from '../triggers/schedules/declaration.js';
import type { ScheduleView } from '../triggers/schedules/schedules.js';
import { recordRoutine } from '../triggers/routines/record-routine.js';
import { waitRoutine } from '../triggers/routines/wait-routine.js';
import type { Walk } from './walk.js';

export interface WalkSchedulesOptions {
  /** The trigger twin; default "triggers". */
  readonly twin?: string;
  /** Routines besides the built-in `record` and `wait`. */
  readonly routines?: Readonly<Record<string, RoutineFn>>;
  readonly schedules?: readonly ScheduleInput[];
  /** The scheduler's owner id on its claims and heartbeats; default "walk-scheduler". */
  readonly owner?: string;
  readonly leaseMs?: number;
  readonly hostBeatMs?: number;
}

export interface WalkSchedules {
  readonly schedules: Schedules;
  readonly runner: InProcessRunner;
  readonly declared: ScheduleView[];
}

/** Starts a scheduler in the walk: its ticks are the walk clock's, its runs settle with the walk. */
export async function startWalkSchedules(
  walk: Walk,
  options: WalkSchedulesOptions = {},
): Promise<WalkSchedules> {
  if (options === null || typeof options !== 'object')
    throw new TwinError(
      'INVALID_ARGUMENT',
      'startWalkSchedules(walk, {schedules, routines?}) needs options',
      { path: 'options' },
    );
  const world = walk.world;
  const twin = options.twin ?? 'triggers';
  const runner = new InProcessRunner(world)
    .register('record', recordRoutine(twin))
    .register('wait', waitRoutine());
  for (const [id, fn] of Object.entries(options.routines ?? {})) runner.register(id, fn);
  // Runs inside a routine are waiting for the clock: the walk may move on.
  let inRoutine = 0;
  const counting: RoutineRunner = {
    recorder: runner.recorder,
    run: async (request) => {
      inRoutine++;
      try {
        return await runner.run(request);
      } finally {
        inRoutine--;
      }
    },
  };
  const owner = options.owner ?? 'walk-scheduler';
  const schedules = new Schedules({
    world,
    twin,
    runner: counting,
    owner,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.hostBeatMs === undefined ? {} : { hostBeatMs: options.hostBeatMs }),
  });
  const declared: ScheduleView[] = [];
  for (const input of options.schedules ?? []) declared.push(await schedules.declare(input));

  const kind = scheduleWork(schedules);
  const runs = new Set<Promise<unknown>>();
  walk.addTicker({
    name: 'schedules',
    nextAt: () => kind.nextDue(),
    tick: async (now) => {
      for (const item of await kind.due(now, 100)) {
        const claimed = await claimItem(schedules, item, owner);
        for (const held of claimed?.held ?? []) {
          const run: Promise<unknown> = schedules
            .run(held)
            .catch((error: unknown) =>
              world.reportError(error, `schedule run ${held.occurrenceId}`),
            )
            .finally(() => runs.delete(run));
          runs.add(run);
        }
      }
    },
  });
  walk.addSettler(async () => {
    while (runs.size > inRoutine) await new Promise((resolve) => setImmediate(resolve));
  });
  return { schedules, runner, declared };
}
