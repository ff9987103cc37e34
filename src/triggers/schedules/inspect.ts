// Inspecting a schedule: its declaration, what holds the active slot, the buffer, the next
// occurrences and the live scheduler hosts.
import { checkOptionKeys } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import { occurrencesBetween, type Occurrence } from '../cron/occurrences.js';

import { type TriggerContext } from '../tenant-context.js';
import { readFire, fireWriter } from './claim.js';
import { HOST_TYPE, hostViews, type HostView } from './hosts.js';

import { type ScheduleService, refuse, unknownSchedule } from './schedule-service.js';
import { getSchedule, type ScheduleView } from './declare.js';

export interface Inspection {
  readonly schedule: ScheduleView;
  readonly active: {
    readonly occurrenceId: string;
    readonly nominalAt: string | null;
    readonly state: string | null;
    /** The run id once launched, else the reservation id (null while nobody reserved it). */
    readonly activeRunId: string | null;
    readonly owner: string | null;
    readonly leaseUntil: string | null;
    readonly fence: number | null;
  }[];
  readonly buffer: { readonly occurrenceId: string; readonly nominalAt: string | null }[];
  readonly next: { readonly nominalAt: string; readonly wallTime: string; readonly dst: string }[];
  /** Scheduler hosts whose heartbeat is recent, newest first. */
  readonly hosts: HostView[];
  /** The most recent heartbeat of any host, alive or not. */
  readonly lastHeartbeat: HostView | null;
}

/** Upcoming occurrences one inspection lists at most. */
export const MAX_INSPECT_NEXT = 100;

/** The declaration, what holds the active slot, the buffer, the next occurrences and the live hosts. */
export async function inspect(
  svc: ScheduleService,
  tenantId: string,
  scheduleId: string,
  options: { next?: number; context?: TriggerContext } = {},
): Promise<Inspection> {
  // A misspelt {nxt} was dropped (five occurrences shown); null options were a TypeError.
  checkOptionKeys(
    'schedules.inspect(tenantId, scheduleId, options)',
    options,
    ['next', 'context'],
    'options',
    true,
  );
  const next = options.next ?? 5;
  if (!Number.isSafeInteger(next) || next < 0 || next > MAX_INSPECT_NEXT)
    refuse('INVALID_OPTIONS', 'next', `next must be an integer from 0 to ${MAX_INSPECT_NEXT}`);
  const schedule = await getSchedule(svc, tenantId, scheduleId, options.context);
  if (schedule === undefined) throw unknownSchedule(tenantId, scheduleId);
  const nowMs = svc.now();
  const { active, buffer, hosts } = await svc.twin.read((view) => {
    const w = fireWriter(view);
    const row = (id: string) => readFire(w, id);
    return {
      active: schedule.active.map((id) => {
        const f = row(id);
        return {
          occurrenceId: id,
          nominalAt: f?.nominalAt ?? null,
          state: f?.state ?? null,
          activeRunId: f?.runId ?? f?.reservationId ?? null,
          owner: f?.owner ?? null,
          leaseUntil: f?.leaseUntil ?? null,
          fence: f?.fence ?? null,
        };
      }),
      buffer: schedule.buffer.map((id) => ({
        occurrenceId: id,
        nominalAt: row(id)?.nominalAt ?? null,
      })),
      hosts: hostViews(view.list(HOST_TYPE), nowMs),
    };
  });
  const upcoming: Occurrence[] = [];
  let after = Date.parse(schedule.cursor);
  if (schedule.enabled)
    for (let i = 0; i < next; i++) {
      const o = occurrencesBetween(schedule, after, Date.UTC(9999, 0, 1), 1).occurrences[0];
      if (o === undefined) break;
      upcoming.push(o);
      after = o.nominalAt;
    }
  return {
    schedule,
    active,
    buffer,
    next: upcoming.map((o) => ({
      nominalAt: isoAt(o.nominalAt),
      wallTime: o.wallTime,
      dst: o.dst,
    })),
    hosts: hosts.filter((h) => h.alive),
    lastHeartbeat: hosts[0] ?? null,
  };
}
