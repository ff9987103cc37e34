// Backfill: claims every occurrence of a schedule in a past range through the same claim the
// scheduler makes, idempotently (what was claimed before claims nothing new).
import { checkOptionKeys } from '../../errors.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip } from '../../world/decision.js';
import { occurrencesBetween } from '../cron/occurrences.js';

import { checkTenantId, checkTriggerId } from '../envelope.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { claimOccurrence, closeSession, openSession, type Claim } from './claim.js';
import { scheduleKey } from './declaration.js';
import { validateOverlap, type OverlapPolicy } from './overlap.js';

import {
  type ScheduleService,
  refuse,
  checkIso,
  unknownSchedule,
  readStored,
} from './schedule-service.js';

/** Occurrences one backfill may claim. */
export const MAX_BACKFILL = 1000;
const BACKFILL_PAGE = 200;

export interface BackfillRequest {
  readonly tenantId: string;
  readonly scheduleId: string;
  /** Occurrences with from ≤ nominal ≤ to (ISO), both in the past. */
  readonly from: string;
  readonly to: string;
  readonly overlap?: OverlapPolicy | string;
}

const BACKFILL_KEYS: readonly (keyof BackfillRequest)[] = [
  'tenantId',
  'scheduleId',
  'from',
  'to',
  'overlap',
];

export interface BackfillReport {
  readonly tenantId: string;
  readonly scheduleId: string;
  readonly from: string;
  readonly to: string;
  /** Occurrences of the schedule in the range. */
  readonly occurrences: number;
  /** Newly claimed, by what each became. */
  readonly claimed: number;
  readonly launched: number;
  readonly skipped: number;
  readonly buffered: number;
  /** Claimed before (by the scheduler or an earlier backfill): nothing new for them. */
  readonly alreadyClaimed: number;
  /** The schedule was paused: a disabled schedule claims nothing. */
  readonly disabled: boolean;
  readonly claims: Claim[];
}

/**
 * Claims every occurrence of the schedule from `from` to `to` through the same claim (by the
 * stored overlap policy unless `overlap` overrides it for this backfill). Idempotent: an
 * occurrence already claimed — by the scheduler or an earlier backfill — claims nothing new.
 * What it launches is ready for any worker.
 */
export async function backfill(
  svc: ScheduleService,
  request: BackfillRequest,
  context?: TriggerContext,
): Promise<BackfillReport> {
  if (request === null || typeof request !== 'object')
    refuse(
      'INVALID_OPTIONS',
      'request',
      'backfill({tenantId, scheduleId, from, to}) needs a request',
    );
  // A misspelt {form} was refused as "from … got undefined", {overlp} dropped for the stored policy.
  checkOptionKeys('schedules.backfill(request)', request, BACKFILL_KEYS, 'request');
  const { tenantId, scheduleId } = request;
  checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
  checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
  const fromMs = checkIso(request.from, 'from', 'INVALID_OPTIONS');
  const toMs = checkIso(request.to, 'to', 'INVALID_OPTIONS');
  const nowMs = svc.now();
  if (toMs < fromMs)
    refuse('INVALID_OPTIONS', 'to', `to (${isoAt(toMs)}) is before from (${isoAt(fromMs)})`);
  if (toMs > nowMs)
    refuse(
      'INVALID_OPTIONS',
      'to',
      `to (${isoAt(toMs)}) is in the future (now is ${isoAt(nowMs)}); a backfill claims past occurrences`,
    );
  const override = request.overlap === undefined ? undefined : validateOverlap(request.overlap);
  authorize(contextArgument(context), tenantId, 'ingest', 'backfill schedules');
  const key = scheduleKey(tenantId, scheduleId);
  const decl = await svc.twin.read((view) => readStored(view, key));
  if (decl === undefined) throw unknownSchedule(tenantId, scheduleId);
  const { occurrences, truncated } = occurrencesBetween(decl, fromMs - 1, toMs, MAX_BACKFILL);
  if (truncated)
    refuse(
      'INVALID_OPTIONS',
      'to',
      `the range holds more than ${MAX_BACKFILL} occurrences of "${scheduleId}"; backfill it in smaller ranges`,
    );
  const claims: Claim[] = [];
  let disabled = false;
  for (let i = 0; i < occurrences.length; i += BACKFILL_PAGE) {
    const page = occurrences.slice(i, i + BACKFILL_PAGE);
    const step = await svc.decide((view) => {
      const d = readStored(view, key);
      if (d === undefined) throw unknownSchedule(tenantId, scheduleId);
      if (!d.enabled) return skip({ claims: [] as Claim[], disabled: true });
      const s = openSession(view, nowMs, key, d);
      const made = page.map((o) =>
        claimOccurrence(s, o, 'backfill', { owner: null, leaseMs: svc.leaseMs }, override),
      );
      if (!made.some((c) => c.claimed)) return skip({ claims: made, disabled: false });
      closeSession(s, 'schedule.backfill');
      return commit(s.writes, { claims: made, disabled: false });
    });
    claims.push(...step.claims);
    if (step.disabled) {
      disabled = true;
      break;
    }
  }
  const count = (action: string): number =>
    claims.filter((c) => c.claimed && c.action === action).length;
  return {
    tenantId,
    scheduleId,
    from: isoAt(fromMs),
    to: isoAt(toMs),
    occurrences: occurrences.length,
    claimed: claims.filter((c) => c.claimed).length,
    launched: count('fire') + count('supersede'),
    skipped: count('skip'),
    buffered: count('buffer'),
    alreadyClaimed: claims.filter((c) => !c.claimed).length,
    disabled,
    claims,
  };
}
