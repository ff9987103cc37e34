// Claiming occurrences: one by hand against the revision the caller read, or everything due of
// one schedule for the scheduler, page after page.
import { checkOptionKeys } from '../../errors.js';
import { occurrenceId } from '../cron/shared-occurrence.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip } from '../../world/decision.js';
import { occurrencesBetween, type Occurrence } from '../cron/occurrences.js';

import { checkTenantId, checkTriggerId } from '../envelope.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import {
  claimOccurrence,
  closeSession,
  decideDue,
  openSession,
  type Claim,
  type Claimant,
  type DueClaims,
} from './claim.js';
import { scheduleKey, type ScheduleFields } from './declaration.js';
import { validateOverlap, type OverlapPolicy } from './overlap.js';

import {
  type ScheduleService,
  refuse,
  checkIso,
  checkRevision,
  unknownSchedule,
  revisionMismatch,
  readStored,
  checkOwnerCall,
} from './schedule-service.js';

export interface ClaimRequest {
  readonly tenantId: string;
  readonly scheduleId: string;
  /** The occurrence's nominal instant (ISO); it must be one of the schedule's and due. */
  readonly nominalAt: string;
  /** The revision the caller read; a stale one is refused and claims nothing. */
  readonly expectedRevision: number;
  /** Who launches: this host (default), another owner id, or null for any worker. */
  readonly owner?: string | null;
  /** An overlap policy for this claim only, instead of the declaration's (recorded on the row). */
  readonly overlap?: OverlapPolicy | string;
}

const CLAIM_REQUEST_KEYS: readonly (keyof ClaimRequest)[] = [
  'tenantId',
  'scheduleId',
  'nominalAt',
  'expectedRevision',
  'owner',
  'overlap',
];

/**
 * Claims one occurrence against the revision the caller read. Two claimers of one occurrence
 * get one claim and one `already_claimed`; a paused schedule claims nothing (`disabled`); a stale
 * revision is REVISION_MISMATCH and claims nothing.
 */
export async function claimOne(
  svc: ScheduleService,
  request: ClaimRequest,
  context?: TriggerContext,
): Promise<Claim> {
  if (request === null || typeof request !== 'object')
    refuse(
      'INVALID_ARGUMENT',
      'request',
      'claim({tenantId, scheduleId, nominalAt, expectedRevision}) needs a request',
    );
  // A misspelt {ownr} or {overlp} was dropped: the claim took the default owner or policy.
  checkOptionKeys('schedules.claim(request)', request, CLAIM_REQUEST_KEYS, 'request');
  const { tenantId, scheduleId } = request;
  checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
  checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
  const nominalMs = checkIso(request.nominalAt, 'nominalAt', 'INVALID_ARGUMENT');
  const expected = checkRevision(request.expectedRevision);
  if (expected === undefined)
    refuse(
      'INVALID_ARGUMENT',
      'expectedRevision',
      'expectedRevision is required: the revision of the declaration the claim was decided from',
    );
  const override = request.overlap === undefined ? undefined : validateOverlap(request.overlap);
  authorize(contextArgument(context), tenantId, 'ingest', 'claim occurrences');
  const nowMs = svc.now();
  if (nominalMs > nowMs)
    refuse(
      'INVALID_ARGUMENT',
      'nominalAt',
      `occurrence ${isoAt(nominalMs)} has not fallen due yet (now is ${isoAt(nowMs)})`,
    );
  const claimant: Claimant = {
    owner: request.owner === undefined ? svc.owner : request.owner,
    leaseMs: svc.leaseMs,
  };
  const key = scheduleKey(tenantId, scheduleId);
  return svc.decide<Claim>((view) => {
    const d = readStored(view, key);
    if (d === undefined) throw unknownSchedule(tenantId, scheduleId);
    if (d.revision !== expected) throw revisionMismatch(tenantId, scheduleId, expected, d.revision);
    const occurrence = occurrenceAt(d, nominalMs);
    if (!d.enabled) {
      const nominalAt = isoAt(nominalMs);
      const claim: Claim = {
        claimed: false,
        reason: 'disabled',
        occurrenceId: occurrenceId(tenantId, scheduleId, nominalAt),
        nominalAt,
        outcome: null,
      };
      return skip(claim);
    }
    const s = openSession(view, nowMs, key, d);
    const claim = claimOccurrence(s, occurrence, 'manual', claimant, override);
    if (!claim.claimed) return skip(claim);
    closeSession(s, 'schedule.claimed');
    return commit(s.writes, claim);
  });
}

/**
 * The scheduler's claim of one schedule (its declaration id): everything due by now, by the
 * stored policies, page after page. Answers what was claimed; nothing when another scheduler
 * claimed first or the schedule is paused.
 */
export async function claimDue(
  svc: ScheduleService,
  key: string,
  options: { owner?: string } = {},
): Promise<DueClaims> {
  checkOwnerCall('schedules.claimDue(key, options)', 'key', key, options);
  const claimant: Claimant = { owner: options.owner ?? svc.owner, leaseMs: svc.leaseMs };
  const claims: Claim[] = [];
  let missed = 0;
  for (;;) {
    const nowMs = svc.now();
    const page = await svc.decide((view) => decideDue(view, nowMs, key, claimant, svc.graceMs));
    // Reported, not thrown: one unreadable schedule must not stop a worker serving the others.
    if (page.undecodable !== undefined) svc.world.reportError(page.undecodable, `schedule ${key}`);
    claims.push(...page.claims);
    missed += page.missed;
    if (!page.more) return { claims, missed, more: false };
  }
}

/** The occurrence of the schedule at `nominalMs`; INVALID_ARGUMENT when the calendar has none then. */
function occurrenceAt(d: ScheduleFields, nominalMs: number): Occurrence {
  const [o] = occurrencesBetween(d, nominalMs - 1, nominalMs, 1).occurrences;
  if (o === undefined || o.nominalAt !== nominalMs)
    refuse(
      'INVALID_ARGUMENT',
      'nominalAt',
      `${isoAt(nominalMs)} is not an occurrence of schedule "${d.scheduleId}" (${d.cron} in ${d.timezone})`,
    );
  return o;
}
