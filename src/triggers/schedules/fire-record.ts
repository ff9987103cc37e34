// The fire ledger's rows: one resource per claimed occurrence of a schedule, identified by tenant,
// schedule and nominal instant (the calendar's occurrence id), so a retry, a second scheduler or a
// backfill can never make a second row for it. A row carries its outcome (none between the claim
// and the result), the reservation or run holding it with an owner, a lease and a fence
// (docs/work.md), and the times; settled rows are what pruning may remove.
import type { JsonValue } from '../../log/json-value.js';
import type { Resource } from '../../state/resource.js';
import type { Occurrence } from '../cron/occurrences.js';
import { undecodable, type Decoded } from './declaration.js';
import { recordKind } from '../../state/record-kind.js';

export const FIRE_TYPE = 'schedule_fire';
/** Ledger rows of one schedule, keyed by its declaration id. */
export const SCHEDULE_INDEX = 'twinworld:schedule';
/** Settled ledger rows, keyed by tenant: pruning looks only at these. */
export const SETTLED_INDEX = 'twinworld:settled';

export type Outcome = 'launched' | 'completed' | 'skipped' | 'buffered' | 'superseded' | 'failed';
export const OUTCOMES: readonly Outcome[] = [
  'launched',
  'completed',
  'skipped',
  'buffered',
  'superseded',
  'failed',
];
/** Outcomes nothing reads again: the rows pruning may remove. */
export const SETTLED_OUTCOMES: readonly Outcome[] = [
  'completed',
  'failed',
  'skipped',
  'superseded',
];

/**
 * Where a row stands. `ready`: claimed to launch, waiting for a worker to reserve it (a backfill's
 * or a promoted buffer's). `reserved`: an owner holds the launch reservation. `running`: launched,
 * its owner heartbeats. `buffered`: queued behind the active run. `settled`: an outcome nothing
 * changes.
 */
export type FireState = 'ready' | 'reserved' | 'running' | 'buffered' | 'settled';

/** Why a row was claimed: its schedule fell due, late after downtime, a backfill, or a host's own claim. */
export type FireOrigin = 'schedule' | 'catch-up' | 'backfill' | 'manual';

export interface LateObservation {
  readonly owner: string | null;
  readonly fence: number;
  readonly outcome: Outcome;
  readonly runId: string | null;
  readonly result: JsonValue;
  readonly error: string | null;
  readonly observedAt: string;
}

export interface FireFields {
  readonly tenantId: string;
  readonly scheduleId: string;
  readonly scopeId: string;
  /** The declaration's resource id (SCHEDULE_INDEX). */
  readonly schedule: string;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly utcOffsetMinutes: number;
  readonly dst: Occurrence['dst'];
  readonly dstRule: string | null;
  readonly origin: FireOrigin;
  /** The declaration's revision the claim read. */
  readonly revision: number;
  /** What runs, as the declaration said when the occurrence was claimed. */
  readonly routine: string;
  readonly input: JsonValue;
  /** The overlap policy the claim applied, in text form ("buffer:1:oldest"). */
  readonly overlap: string;
  /** True when the claim applied a policy its caller gave (a backfill's) instead of the declaration's. */
  readonly overridden: boolean;
  readonly state: FireState;
  readonly outcome: Outcome | null;
  /** Why it was skipped or superseded: overlap, buffer-full, buffer-newest, catch-up:latest, superseded… */
  readonly reason: string | null;
  readonly claimedAt: string;
  /** The reservation the launch replaces with the run id: "rsv:<occurrence>:<fence>". */
  readonly reservationId: string | null;
  readonly runId: string | null;
  readonly launchedAt: string | null;
  readonly finishedAt: string | null;
  readonly result: JsonValue;
  /** An error code (never exception text) when the run failed. */
  readonly error: string | null;
  /**
   * The worker holding the reservation or the run, until when, and the fence of its claim (each
   * reservation of the row counts it up). A settled row keeps its last owner and fence.
   */
  readonly owner: string | null;
  readonly leaseUntil: string | null;
  readonly fence: number;
  /** When someone must look at it: now for a ready row, the lease's end while held, else null. */
  readonly dueAt: string | null;
  /** The tenant while settled (SETTLED_INDEX), else null. */
  readonly settled: string | null;
  /** The occurrence whose launch cancelled this one (supersede, or a full buffer keeping newest). */
  readonly supersededBy?: string;
  /** The run a reclaim replaced: its owner's lease lapsed before it reported. */
  readonly reclaimedRunId?: string | null;
  /** What an owner that had lost its claim reported: kept, though it moved nothing. */
  readonly lateObservation?: LateObservation;
}

export function reservationIdOf(fireId: string, fence: number): string {
  return `rsv:${fireId}:${fence}`;
}

/** The run id the built-in launch gives: the routine_run resource id the in-process runner records. */
export function runIdOf(fireId: string, fence: number): string {
  return `${fireId}.${fence}`;
}

/** The ledger row a run id of the built-in launch belongs to (occurrence ids hold no dot). */
export function fireOfRunId(runId: string): string | undefined {
  const dot = runId.lastIndexOf('.');
  return dot > 0 && /^\d+$/.test(runId.slice(dot + 1)) ? runId.slice(0, dot) : undefined;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const STATES: readonly string[] = ['ready', 'reserved', 'running', 'buffered', 'settled'];

/** Fire ledger rows, typed (src/state/record-kind.ts); decodeFire checks a stored one. */
export const fireKind = recordKind<FireFields>({ type: FIRE_TYPE });

/** Reads a stored ledger row, checking the fields history, pruning and the claims rely on. */
export function decodeFire(resource: Resource): Decoded<FireFields> {
  const f = resource.fields as Record<string, unknown>;
  const bad = (field: string, why: string): Decoded<FireFields> => ({
    ok: false,
    id: resource.id,
    error: undecodable(FIRE_TYPE, resource.id, field, why),
  });
  for (const key of ['tenantId', 'scheduleId', 'schedule', 'nominalAt', 'routine', 'claimedAt'])
    if (!isString(f[key])) return bad(key, 'is not a string');
  if (!Number.isFinite(Date.parse(f.nominalAt as string))) return bad('nominalAt', 'is not a time');
  if (!STATES.includes(f.state as string))
    return bad('state', `is not one of ${STATES.join(', ')}`);
  if (f.outcome !== null && !OUTCOMES.includes(f.outcome as Outcome))
    return bad('outcome', `is not one of ${OUTCOMES.join(', ')} or null`);
  if (!Number.isSafeInteger(f.fence)) return bad('fence', 'is not an integer');
  for (const key of ['runId', 'reservationId', 'owner'])
    if (f[key] !== null && !isString(f[key])) return bad(key, 'is not a string or null');
  return { ok: true, id: resource.id, value: fireKind.of(resource) };
}
