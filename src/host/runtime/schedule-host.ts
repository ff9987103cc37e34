// The schedules a worker process serves: a Schedules service with the built-in routines (`record`
// and `wait`) and its work kind, as `twinworld work` and `serve` assemble it. The process's
// worker id is the owner of its claims and its host heartbeats.
import { checkOptionKeys, checkWorld } from '../../errors.js';
import type { World } from '../../world/world.js';
import type { WorkKind } from '../../work/work-kind.js';
import { DEFAULT_TRIGGER_TWIN } from '../../triggers/defaults.js';
import { InProcessRunner } from '../../triggers/in-process-runner.js';
import { RECORD_ROUTINE, recordRoutine } from '../../triggers/routines/record-routine.js';
import { WAIT_ROUTINE, waitRoutine } from '../../triggers/routines/wait-routine.js';
import { scheduleWork } from '../../triggers/schedules/schedule-work.js';
import { Schedules } from '../../triggers/schedules/schedules.js';

export interface ScheduleHostOptions {
  /** The worker's id: the owner of its reservations and its heartbeats. */
  readonly owner: string;
  /** The reservation lease; default five minutes. */
  readonly leaseMs?: number;
  readonly twin?: string;
  /** What the host says about itself in its heartbeats, e.g. "hostname:pid". */
  readonly hostLabel?: string;
}

/** The routines every schedule host runs, by name: a schedule naming another is refused. */
export const BUILT_IN_ROUTINES: readonly string[] = [RECORD_ROUTINE, WAIT_ROUTINE];

/** The routines every schedule host has: `record` (records its input) and `wait` ({"ms": N}). */
export function builtInRunner(world: World, twin = DEFAULT_TRIGGER_TWIN): InProcessRunner {
  return new InProcessRunner(world)
    .register(RECORD_ROUTINE, recordRoutine(twin))
    .register(WAIT_ROUTINE, waitRoutine());
}

export function scheduleHostWork(world: World, options: ScheduleHostOptions): WorkKind {
  checkWorld('scheduleHostWork(world, options)', world);
  checkOptionKeys(
    'scheduleHostWork(world, options)',
    options,
    ['owner', 'leaseMs', 'twin', 'hostLabel'],
    'options',
    true,
  );
  const twin = options.twin ?? DEFAULT_TRIGGER_TWIN;
  return scheduleWork(
    new Schedules({
      world,
      twin,
      runner: builtInRunner(world, twin),
      owner: options.owner,
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
      ...(options.hostLabel === undefined ? {} : { hostLabel: options.hostLabel }),
    }),
  );
}
