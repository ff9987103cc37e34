// What the schedule operations share: the service they run against (the twin, this host's owner
// and lease) and the checks and refusals they all speak.
import { TwinError } from '../../errors.js';
import type { ReadView } from '../../state/read-view.js';
import { type Decision } from '../../world/decision.js';
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';

import { checkTenantId } from '../envelope.js';
import type { RoutineRunner } from '../runner.js';
import { type Reservation } from './claim.js';
import { decodeSchedule, SCHEDULE_TYPE, type ScheduleFields } from './declaration.js';

/** What every schedule operation works with: the twin it decides in and this host's claimant. */
export interface ScheduleService {
  readonly world: World;
  readonly twin: Twin;
  readonly owner: string;
  readonly leaseMs: number;
  readonly graceMs: number;
  readonly runner: RoutineRunner | undefined;
  now(): number;
  decide<T>(decide: (view: ReadView) => Decision<T>): Promise<T>;
}

export function refuse(
  code: 'INVALID_ARGUMENT' | 'INVALID_OPTIONS',
  path: string,
  message: string,
): never {
  throw new TwinError(code, message, { path });
}

export function checkIso(
  value: unknown,
  path: string,
  code: 'INVALID_ARGUMENT' | 'INVALID_OPTIONS',
): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value) || !Number.isFinite(ms))
    refuse(code, path, `${path} must be an ISO 8601 time such as 2026-03-01T03:00:00Z`);
  return ms;
}

export function checkRevision(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    refuse(
      'INVALID_ARGUMENT',
      'expectedRevision',
      'expectedRevision must be a non-negative integer (0: the schedule must not exist yet)',
    );
  return value;
}

export function unknownSchedule(tenantId: string, scheduleId: string): TwinError {
  return new TwinError(
    'UNKNOWN_TRIGGER',
    `no schedule "${scheduleId}" for tenant "${tenantId}"; declare it first (twinworld schedules add ${scheduleId} --cron …)`,
    { path: 'scheduleId', details: { tenantId, scheduleId } },
  );
}

export function revisionMismatch(
  tenantId: string,
  scheduleId: string,
  expected: number,
  actual: number,
): TwinError {
  const now = actual === 0 ? 'does not exist' : `is at revision ${actual}`;
  const then = expected === 0 ? 'as a new schedule' : `against revision ${expected}`;
  return new TwinError(
    'REVISION_MISMATCH',
    `schedule "${scheduleId}" of tenant "${tenantId}" ${now}, but this change was made ${then}; read it again and decide against revision ${actual}`,
    {
      path: 'expectedRevision',
      details: { tenantId, scheduleId, expectedRevision: expected, revision: actual },
    },
  );
}

export function readStored(view: ReadView, key: string): ScheduleFields | undefined {
  const r = view.get(SCHEDULE_TYPE, key);
  if (r === undefined || r.deleted) return undefined;
  const d = decodeSchedule(r);
  if (!d.ok) throw d.error;
  return d.value;
}

export function checkReservation(held: Reservation): void {
  if (
    held === null ||
    typeof held !== 'object' ||
    typeof held.occurrenceId !== 'string' ||
    typeof held.owner !== 'string' ||
    !Number.isSafeInteger(held.fence)
  )
    refuse(
      'INVALID_ARGUMENT',
      'reservation',
      'pass the reservation a claim or reserve answered: {tenantId, scheduleId, occurrenceId, owner, fence, …}',
    );
  checkTenantId(held.tenantId, 'reservation.tenantId', 'INVALID_ARGUMENT');
}
