// The schedules service: declarations with a revision fence, occurrence claims that read the
// stored declaration in one atomic action, launch reservations with a lease, results that refuse
// a stale owner, the fire ledger (history, pruning, inspect), backfill and scheduler host
// heartbeats — per tenant, every decision a write in the trigger twin. This class is a thin
// façade: each operation lives in its own module beside it (declare.ts, claim-occurrences.ts,
// reservations.ts, record-result.ts, run-reservation.ts, backfill.ts, read-history.ts,
// prune-ledger.ts, inspect.ts), over the pure decisions in claim.ts, reservation.ts, result.ts…
import { checkOptionKeys, TwinError } from '../../errors.js';
import type { ReadView } from '../../state/read-view.js';
import type { Decision } from '../../world/decision.js';
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';
import { checkLeaseMs, DUE_FIELD, DUE_INDEX } from '../../work/lease.js';
import { DEFAULT_TRIGGER_TWIN } from '../defaults.js';
import type { RoutineRunner } from '../runner.js';
import type { TriggerContext } from '../tenant-context.js';
import { TENANT_INDEX } from '../trigger-records.js';
import { backfill, type BackfillReport, type BackfillRequest } from './backfill.js';
import { claimDue, claimOne, type ClaimRequest } from './claim-occurrences.js';
import type { Claim, DueClaims, Reservation } from './claim.js';
import {
  declareSchedule,
  getSchedule,
  listSchedules,
  setEnabled,
  type ChangeOptions,
  type ScheduleView,
} from './declare.js';
import { SCHEDULE_TYPE, type ScheduleInput } from './declaration.js';
import { FIRE_TYPE, SCHEDULE_INDEX, SETTLED_INDEX } from './fire-record.js';
import {
  decideHostBeat,
  DEFAULT_HOST_BEAT_MS,
  HOST_TYPE,
  hostViews,
  type HostView,
} from './hosts.js';
import { inspect, type Inspection } from './inspect.js';
import type { HistoryPage, HistoryQuery, UndecodableRow } from './ledger.js';
import { pruneLedger } from './prune-ledger.js';
import { readHistory } from './read-history.js';
import { recordResult } from './record-result.js';
import { heartbeatReservation, releaseReservation, reserveOccurrence } from './reservations.js';
import type { FireResult, ResultAnswer } from './result.js';
import { runReservation, type RunReport } from './run-reservation.js';
import type { ScheduleService } from './schedule-service.js';

export { MAX_BACKFILL, type BackfillReport, type BackfillRequest } from './backfill.js';
export type { ClaimRequest } from './claim-occurrences.js';
export type { ChangeOptions, ScheduleView } from './declare.js';
export type { Inspection } from './inspect.js';
export type { RunReport } from './run-reservation.js';

/** How long a reservation holds before another scheduler may reclaim it (its owner heartbeats). */
export const DEFAULT_RESERVATION_LEASE_MS = 5 * 60_000;
/** Occurrences this close to now are on time; older ones follow the catch-up policy. */
export const DEFAULT_GRACE_MS = 60_000;

const SCHEDULES_OPTION_KEYS: readonly (keyof SchedulesOptions)[] = [
  'world',
  'twin',
  'runner',
  'owner',
  'leaseMs',
  'graceMs',
  'hostBeatMs',
  'hostLabel',
];

export interface SchedulesOptions {
  readonly world: World;
  /** The twin every decision is written to; default "triggers". */
  readonly twin?: string;
  /** Runs the routines of launched occurrences (run(), the work kind); not needed to declare or read. */
  readonly runner?: RoutineRunner;
  /** This host's id: written on its reservations and heartbeats; default a fresh id. */
  readonly owner?: string;
  /** Reservation lease (default five minutes); owners heartbeat every third of it. */
  readonly leaseMs?: number;
  readonly graceMs?: number;
  /** How often this host records that it polled (default 10 s of world time). */
  readonly hostBeatMs?: number;
  /** What this host says about itself in its heartbeats, e.g. "hostname:pid". */
  readonly hostLabel?: string;
}

export class Schedules implements ScheduleService {
  readonly world: World;
  readonly twin: Twin;
  readonly owner: string;
  readonly leaseMs: number;
  readonly graceMs: number;
  readonly hostBeatMs: number;
  readonly runner: RoutineRunner | undefined;
  private readonly hostLabel: string | null;
  private lastBeat = Number.NEGATIVE_INFINITY;

  constructor(options: SchedulesOptions) {
    if (
      options === null ||
      typeof options !== 'object' ||
      typeof options.world?.twin !== 'function'
    )
      throw new TwinError(
        'INVALID_ARGUMENT',
        'new Schedules({world, runner?}) needs the world from openWorld()',
        { path: 'world' },
      );
    checkOptionKeys('new Schedules(options)', options, SCHEDULES_OPTION_KEYS);
    this.world = options.world;
    this.twin = this.world.twin(options.twin ?? DEFAULT_TRIGGER_TWIN);
    this.owner = options.owner ?? `sch_${this.world.ids.ksuid()}`;
    this.leaseMs = checkLeaseMs(options.leaseMs ?? DEFAULT_RESERVATION_LEASE_MS, 'leaseMs');
    this.graceMs = checkLeaseMs(options.graceMs ?? DEFAULT_GRACE_MS, 'graceMs');
    this.hostBeatMs = checkLeaseMs(options.hostBeatMs ?? DEFAULT_HOST_BEAT_MS, 'hostBeatMs');
    this.runner = options.runner;
    this.hostLabel = options.hostLabel ?? null;
    for (const type of [SCHEDULE_TYPE, FIRE_TYPE]) {
      this.twin.declareIndex({ type, name: DUE_INDEX, field: DUE_FIELD });
      this.twin.declareIndex({ type, name: TENANT_INDEX, field: 'tenantId' });
    }
    this.twin.declareIndex({ type: FIRE_TYPE, name: SCHEDULE_INDEX, field: 'schedule' });
    this.twin.declareIndex({ type: FIRE_TYPE, name: SETTLED_INDEX, field: 'settled' });
  }

  /** The world clock's now (the operations' one source of time). */
  now(): number {
    return this.world.clock.now();
  }

  /** One atomic action on the trigger twin, answering what the decision answered. */
  async decide<T>(decide: (view: ReadView) => Decision<T>): Promise<T> {
    return (await this.twin.applyAtomic(decide)).result;
  }

  // ---- declarations: declare.ts

  /**
   * Creates or changes a schedule. With `expectedRevision` the change is fenced: 0 means "must be
   * new", N means "as I read it at revision N"; anything else is REVISION_MISMATCH naming both. A
   * change fences what fell due before it: the schedule counts its occurrences from now.
   */
  declare(input: ScheduleInput, options: ChangeOptions = {}): Promise<ScheduleView> {
    return declareSchedule(this, input, options);
  }

  /** Stops claiming: occurrences that fall due while paused are dropped (resume counts from then). */
  pause(tenantId: string, scheduleId: string, options: ChangeOptions = {}): Promise<ScheduleView> {
    return setEnabled(this, tenantId, scheduleId, false, options);
  }

  /** Claims again from now; a buffered occurrence left behind a paused schedule is promoted. */
  resume(tenantId: string, scheduleId: string, options: ChangeOptions = {}): Promise<ScheduleView> {
    return setEnabled(this, tenantId, scheduleId, true, options);
  }

  /** One schedule as stored, or undefined. An undecodable declaration is refused UNDECODABLE_RECORD. */
  get(
    tenantId: string,
    scheduleId: string,
    context?: TriggerContext,
  ): Promise<ScheduleView | undefined> {
    return getSchedule(this, tenantId, scheduleId, context);
  }

  /** A tenant's schedules by id; a row that cannot be read is reported beside them, not thrown. */
  list(
    tenantId: string,
    context?: TriggerContext,
  ): Promise<{ items: ScheduleView[]; undecodable: UndecodableRow[] }> {
    return listSchedules(this, tenantId, context);
  }

  // ---- claims and runs: claim-occurrences.ts, reservations.ts, record-result.ts, run-reservation.ts, backfill.ts

  /**
   * Claims one occurrence against the revision the caller read. Two claimers of one occurrence
   * get one claim and one `already_claimed`; a paused schedule claims nothing (`disabled`); a stale
   * revision is REVISION_MISMATCH and claims nothing.
   */
  claim(request: ClaimRequest, context?: TriggerContext): Promise<Claim> {
    return claimOne(this, request, context);
  }

  /** The scheduler's claim of one schedule (its declaration id): everything due by now, page after page. */
  claimDue(key: string, options: { owner?: string } = {}): Promise<DueClaims> {
    return claimDue(this, key, options);
  }

  /** Reserves a ready occurrence, or reclaims one whose owner's lease lapsed; undefined if neither. */
  reserve(
    occurrenceId: string,
    options: { owner?: string } = {},
  ): Promise<Reservation | undefined> {
    return reserveOccurrence(this, occurrenceId, options);
  }

  /** Gives back a reservation not launched yet: ready again for any worker. False if it was not held. */
  release(held: Reservation): Promise<boolean> {
    return releaseReservation(this, held);
  }

  /** Extends a reservation's lease; false once it lost the occurrence. */
  heartbeat(held: Reservation): Promise<boolean> {
    return heartbeatReservation(this, held);
  }

  /** Records `launched`, `completed` or `failed`; STALE_OWNER from an owner that lost the occurrence. */
  recordResult(
    held: Reservation,
    result: FireResult,
    context?: TriggerContext,
  ): Promise<ResultAnswer> {
    return recordResult(this, held, result, context);
  }

  /** Launches a reservation and runs its routine to the end (STALE_OWNER once it lost the occurrence). */
  run(held: Reservation): Promise<RunReport> {
    return runReservation(this, held);
  }

  /** Claims every occurrence in a past range through the same claim; idempotent. */
  backfill(request: BackfillRequest, context?: TriggerContext): Promise<BackfillReport> {
    return backfill(this, request, context);
  }

  // ---- the fire ledger: read-history.ts, prune-ledger.ts, inspect.ts

  /** The ledger newest occurrence first; see HistoryQuery. INVALID_OPTIONS for a bad limit, cursor or outcome. */
  history(query: HistoryQuery, context?: TriggerContext): Promise<HistoryPage> {
    return readHistory(this, query, context);
  }

  /** Removes the tenant's settled ledger rows that settled before `before`. */
  prune(
    options: { tenantId: string; before: string },
    context?: TriggerContext,
  ): Promise<{ removed: number; kept: number }> {
    return pruneLedger(this, options, context);
  }

  /** The declaration, what holds the active slot, the buffer, the next occurrences and the live hosts. */
  inspect(
    tenantId: string,
    scheduleId: string,
    options: { next?: number; context?: TriggerContext } = {},
  ): Promise<Inspection> {
    return inspect(this, tenantId, scheduleId, options);
  }

  // ---- scheduler hosts ------------------------------------------------------------------------
  /** Whether this host's next heartbeat is due (one per beat interval of the world clock). */
  beatDue(): boolean {
    return this.now() >= this.lastBeat + this.hostBeatMs;
  }

  /** Records that this host polled, at most once per beat interval (world clock). */
  async beat(): Promise<boolean> {
    const nowMs = this.now();
    if (nowMs < this.lastBeat + this.hostBeatMs) return false;
    this.lastBeat = nowMs;
    return this.decide((view) =>
      decideHostBeat(view, nowMs, this.owner, this.hostLabel, this.hostBeatMs),
    );
  }

  /** Every host that ever beat, newest first, with whether it is alive now. */
  async hosts(): Promise<HostView[]> {
    const nowMs = this.now();
    return hostViews(await this.twin.list(HOST_TYPE), nowMs);
  }
}
