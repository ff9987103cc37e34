// What the schedule operations share: the service they run against (the twin, this host's owner
// and lease) and the checks and refusals they all speak.
import { checkOptionKeys, describeValue, TwinError } from '../../errors.js';
import { isoProblem } from '../../log/iso-time.js';
import type { ReadView } from '../../state/read-view.js';
import { type Decision } from '../../world/decision.js';
import type { Twin } from '../../world/twin.js';
import { isoAt } from '../../world/clock.js';
import type { World } from '../../world/world.js';

import { MAX_INSTANT_MS, MIN_INSTANT_MS } from '../cron/occurrences.js';
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

/**
 * An ISO instant with its zone, as epoch ms. Date.parse alone would roll "2026-02-30" into March
 * and read a time without a zone in the host's zone; both are refused, and so is an instant the
 * calendar cannot count occurrences at.
 */
export function checkIso(
  value: unknown,
  path: string,
  code: 'INVALID_ARGUMENT' | 'INVALID_OPTIONS',
): number {
  const problem = isoProblem(value);
  if (problem === 'shape')
    refuse(
      code,
      path,
      `${path} must be an ISO 8601 time with its zone, such as 2026-03-01T03:00:00Z or 2026-03-01T04:00:00+01:00, got ${JSON.stringify(value) ?? 'undefined'}`,
    );
  if (problem === 'calendar')
    refuse(
      code,
      path,
      `${path} ${JSON.stringify(value)} is not a time on the calendar (a month 01–12, a day the month has, hours 00–23, minutes and seconds 00–59)`,
    );
  const ms = Date.parse(value as string);
  if (ms < MIN_INSTANT_MS || ms > MAX_INSTANT_MS)
    refuse(
      code,
      path,
      `${path} ${JSON.stringify(value)} is outside the times schedules count occurrences in (${isoAt(MIN_INSTANT_MS)} to ${isoAt(MAX_INSTANT_MS)})`,
    );
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

/**
 * The id and `{owner?}` of claimDue and reserve: an id that is no text was refused from deep in the
 * store as get(type, id)'s, a misspelt {ownr} was dropped (the claim went to this host), and an
 * owner that is no text was written on the claim.
 */
export function checkOwnerCall(call: string, path: string, id: unknown, options: unknown): void {
  if (typeof id !== 'string' || id === '')
    refuse(
      'INVALID_ARGUMENT',
      path,
      `${call}: ${path} must be a non-empty string, got ${describeValue(id)}`,
    );
  checkOptionKeys(call, options, ['owner'], 'options', true);
  const owner = (options as { owner?: unknown }).owner;
  if (owner !== undefined && (typeof owner !== 'string' || owner === ''))
    refuse(
      'INVALID_ARGUMENT',
      'options.owner',
      `${call}: options.owner must be a non-empty string (the claimant's id), got ${describeValue(owner)}`,
    );
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
