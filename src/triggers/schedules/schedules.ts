// The schedules service: declarations with a revision fence, occurrence claims that read the
// stored declaration in one atomic action, launch reservations with a lease, results that refuse
// a stale owner, the fire ledger (history, pruning, inspect), backfill and scheduler host
// heartbeats — per tenant, every decision a write in the trigger twin. The decisions themselves
// are pure functions in the modules beside this one; here they are read, committed and composed.
import { TwinError } from '../../errors.js';
import { occurrenceId } from '../cron/shared-occurrence.js';
import { canonicalJson } from '../../log/canonical-json.js';
import {
  assertJson,
  MAX_JSON_DEPTH,
  type JsonObject,
  type JsonValue,
} from '../../log/json-value.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import type { Twin } from '../../world/twin.js';
import type { World } from '../../world/world.js';
import { keepAlive } from '../../work/heartbeat.js';
import { checkLeaseMs, DUE_FIELD, DUE_INDEX } from '../../work/lease.js';
import { occurrencesBetween, type Occurrence } from '../cron/occurrences.js';

import { DEFAULT_TRIGGER_TWIN, MAX_RESULT_BYTES } from '../defaults.js';
import { checkTenantId, checkTriggerId } from '../envelope.js';
import { TENANT_INDEX } from '../trigger-records.js';
import type { RoutineRunner } from '../runner.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import {
  claimOccurrence,
  closeSession,
  decideDue,
  openSession,
  readFire,
  fireWriter,
  readSchedule,
  type Claim,
  type Claimant,
  type DueClaims,
  type Reservation,
  type WorkingDecl,
} from './claim.js';
import {
  declarationFields,
  decodeSchedule,
  nextAfter,
  SCHEDULE_TYPE,
  scheduleKey,
  validateScheduleInput,
  type ScheduleFields,
  type ScheduleInput,
} from './declaration.js';
import {
  decodeFire,
  FIRE_TYPE,
  fireOfRunId,
  runIdOf,
  SCHEDULE_INDEX,
  SETTLED_INDEX,
  type FireOrigin,
} from './fire-record.js';
import {
  decideHostBeat,
  DEFAULT_HOST_BEAT_MS,
  HOST_TYPE,
  hostViews,
  type HostView,
} from './hosts.js';
import {
  checkLimit,
  checkOutcome,
  decodeCursor,
  decidePrune,
  historyPage,
  PRUNE_BATCH,
  undecodableRow,
  type HistoryPage,
  type HistoryQuery,
  type UndecodableRow,
} from './ledger.js';
import { validateOverlap, type OverlapPolicy } from './overlap.js';
import { decideHeartbeat, decideRelease, decideReserve } from './reservation.js';
import { decideResult, promoteBuffered, type FireResult, type ResultAnswer } from './result.js';
import { runStartOf } from './run-start.js';
import { scheduleKind } from './declaration.js';

/** How long a reservation holds before another scheduler may reclaim it (its owner heartbeats). */
export const DEFAULT_RESERVATION_LEASE_MS = 5 * 60_000;
/** Occurrences this close to now are on time; older ones follow the catch-up policy. */
export const DEFAULT_GRACE_MS = 60_000;
/** Occurrences one backfill may claim. */
export const MAX_BACKFILL = 1000;
const BACKFILL_PAGE = 200;

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

export type ScheduleView = ScheduleFields & { readonly key: string };

export interface ChangeOptions {
  /** The revision the change was decided against; a stale one is refused (REVISION_MISMATCH). */
  readonly expectedRevision?: number;
  readonly context?: TriggerContext;
}

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

export interface BackfillRequest {
  readonly tenantId: string;
  readonly scheduleId: string;
  /** Occurrences with from ≤ nominal ≤ to (ISO), both in the past. */
  readonly from: string;
  readonly to: string;
  readonly overlap?: OverlapPolicy | string;
}

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

export interface RunReport {
  readonly occurrenceId: string;
  readonly runId: string;
  readonly outcome: 'completed' | 'failed';
  readonly result: JsonValue;
  readonly error: string | null;
  /** The buffered occurrence the end of this run promoted. */
  readonly promoted: string | null;
}

function refuse(
  code: 'INVALID_ARGUMENT' | 'INVALID_OPTIONS',
  path: string,
  message: string,
): never {
  throw new TwinError(code, message, { path });
}

function checkIso(
  value: unknown,
  path: string,
  code: 'INVALID_ARGUMENT' | 'INVALID_OPTIONS',
): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value) || !Number.isFinite(ms))
    refuse(code, path, `${path} must be an ISO 8601 time such as 2026-03-01T03:00:00Z`);
  return ms;
}

function checkRevision(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    refuse(
      'INVALID_ARGUMENT',
      'expectedRevision',
      'expectedRevision must be a non-negative integer (0: the schedule must not exist yet)',
    );
  return value;
}

function unknownSchedule(tenantId: string, scheduleId: string): TwinError {
  return new TwinError(
    'UNKNOWN_TRIGGER',
    `no schedule "${scheduleId}" for tenant "${tenantId}"; declare it first (twinworld schedules add ${scheduleId} --cron …)`,
    { path: 'scheduleId', details: { tenantId, scheduleId } },
  );
}

function revisionMismatch(
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

/** A classification of what a routine threw; exception text never enters history. */
function errorCode(error: unknown): string {
  if (error instanceof TwinError) return error.code;
  if (error instanceof Error && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(error.name)) return error.name;
  return 'THROWN';
}

function checkRunResult(value: unknown): JsonValue {
  const result = value === undefined ? null : value;
  assertJson(result, 'result', { maxDepth: MAX_JSON_DEPTH - 2 });
  const bytes = Buffer.byteLength(canonicalJson(result), 'utf8');
  if (bytes > MAX_RESULT_BYTES)
    throw new TwinError(
      'PAYLOAD_TOO_LARGE',
      `routine result is ${bytes} bytes, over ${MAX_RESULT_BYTES}; answer a reference instead`,
      { path: 'result' },
    );
  return result;
}

export class Schedules {
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

  private now(): number {
    return this.world.clock.now();
  }

  private async decide<T>(decide: (view: ReadView) => Decision<T>): Promise<T> {
    return (await this.twin.applyAtomic(decide)).result;
  }

  // ---- declarations ---------------------------------------------------------------------------

  /**
   * Creates or changes a schedule. With `expectedRevision` the change is fenced: 0 means "must be
   * new", N means "as I read it at revision N"; anything else is REVISION_MISMATCH naming both. A
   * change fences what fell due before it: the schedule counts its occurrences from now.
   */
  async declare(input: ScheduleInput, options: ChangeOptions = {}): Promise<ScheduleView> {
    const valid = validateScheduleInput(input);
    const expected = checkRevision(options.expectedRevision);
    authorize(contextArgument(options.context), valid.tenantId, 'configure', 'declare schedules');
    const key = scheduleKey(valid.tenantId, valid.scheduleId);
    const nowMs = this.now();
    return this.decide((view) => {
      // An unreadable declaration can be replaced: declaring is how it is repaired.
      const stored = view.get(SCHEDULE_TYPE, key);
      const decoded = stored === undefined || stored.deleted ? undefined : decodeSchedule(stored);
      const before = decoded?.ok === true ? decoded.value : undefined;
      const raw = stored?.deleted === false ? stored.fields.revision : undefined;
      const actual = before?.revision ?? (typeof raw === 'number' ? raw : 0);
      if (expected !== undefined && expected !== actual)
        throw revisionMismatch(valid.tenantId, valid.scheduleId, expected, actual);
      const fields = { ...declarationFields(valid, before, isoAt(nowMs)), revision: actual + 1 };
      // Enabled again with occurrences queued and nothing running: the oldest takes the slot.
      const s = openSession(view, nowMs, key, fields);
      promoteBuffered(s);
      const next: ScheduleFields = {
        ...fields,
        active: s.decl.active,
        buffer: s.decl.buffer,
        lastFiredAt: s.decl.lastFiredAt,
      };
      return commit(
        [
          {
            operation: before === undefined ? 'schedule.declare' : 'schedule.change',
            subjectType: SCHEDULE_TYPE,
            subjectId: key,
            fields: scheduleKind.json(next),
            actor: 'operator',
          },
          ...s.writes,
        ],
        { key, ...next },
      );
    });
  }

  /** Stops claiming: occurrences that fall due while paused are dropped (resume counts from then). */
  pause(tenantId: string, scheduleId: string, options: ChangeOptions = {}): Promise<ScheduleView> {
    return this.setEnabled(tenantId, scheduleId, false, options);
  }

  /** Claims again from now; a buffered occurrence left behind a paused schedule is promoted. */
  resume(tenantId: string, scheduleId: string, options: ChangeOptions = {}): Promise<ScheduleView> {
    return this.setEnabled(tenantId, scheduleId, true, options);
  }

  private async setEnabled(
    tenantId: string,
    scheduleId: string,
    enabled: boolean,
    options: ChangeOptions,
  ): Promise<ScheduleView> {
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
    const expected = checkRevision(options.expectedRevision);
    authorize(
      contextArgument(options.context),
      tenantId,
      'configure',
      enabled ? 'resume schedules' : 'pause schedules',
    );
    const key = scheduleKey(tenantId, scheduleId);
    const nowMs = this.now();
    return this.decide((view) => {
      const d = readStored(view, key);
      if (d === undefined) throw unknownSchedule(tenantId, scheduleId);
      if (expected !== undefined && expected !== d.revision)
        throw revisionMismatch(tenantId, scheduleId, expected, d.revision);
      if (d.enabled === enabled) return skip({ key, ...d });
      const nowIso = isoAt(nowMs);
      const s = openSession(view, nowMs, key, d);
      let patch: Partial<WorkingDecl>;
      if (enabled) {
        const cursor = d.cursor < nowIso ? nowIso : d.cursor;
        const nextAt = nextAfter(d, cursor);
        s.decl = { ...s.decl, enabled: true };
        promoteBuffered(s);
        patch = { enabled: true, cursor, nextAt, dueAt: nextAt };
      } else patch = { enabled: false, dueAt: null };
      closeSession(s, enabled ? 'schedule.resume' : 'schedule.pause', {
        ...patch,
        revision: d.revision + 1,
        updatedAt: nowIso,
      });
      return commit(s.writes, { key, ...s.decl });
    });
  }

  /** One schedule as stored, or undefined. An undecodable declaration is refused UNDECODABLE_RECORD. */
  async get(
    tenantId: string,
    scheduleId: string,
    context?: TriggerContext,
  ): Promise<ScheduleView | undefined> {
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
    authorize(contextArgument(context), tenantId, 'read', 'read schedules');
    const key = scheduleKey(tenantId, scheduleId);
    const r = await this.twin.get(SCHEDULE_TYPE, key);
    if (r === undefined || r.deleted) return undefined;
    const d = decodeSchedule(r);
    if (!d.ok) throw d.error;
    return { key, ...d.value };
  }

  /** A tenant's schedules by id; a row that cannot be read is reported beside them, not thrown. */
  async list(
    tenantId: string,
    context?: TriggerContext,
  ): Promise<{ items: ScheduleView[]; undecodable: UndecodableRow[] }> {
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    authorize(contextArgument(context), tenantId, 'read', 'list schedules');
    const rows = await this.twin.lookup(SCHEDULE_TYPE, TENANT_INDEX, tenantId);
    const items: ScheduleView[] = [];
    const undecodable: UndecodableRow[] = [];
    for (const r of rows) {
      const d = decodeSchedule(r);
      if (d.ok) items.push({ key: r.id, ...d.value });
      else undecodable.push(undecodableRow(d));
    }
    items.sort((a, b) => (a.scheduleId < b.scheduleId ? -1 : a.scheduleId > b.scheduleId ? 1 : 0));
    return { items, undecodable };
  }

  // ---- claims ---------------------------------------------------------------------------------

  /**
   * Claims one occurrence against the revision the caller read. Two claimers of one occurrence
   * get one claim and one `already_claimed`; a paused schedule claims nothing (`disabled`); a stale
   * revision is REVISION_MISMATCH and claims nothing.
   */
  async claim(request: ClaimRequest, context?: TriggerContext): Promise<Claim> {
    if (request === null || typeof request !== 'object')
      refuse(
        'INVALID_ARGUMENT',
        'request',
        'claim({tenantId, scheduleId, nominalAt, expectedRevision}) needs a request',
      );
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
    const nowMs = this.now();
    if (nominalMs > nowMs)
      refuse(
        'INVALID_ARGUMENT',
        'nominalAt',
        `occurrence ${isoAt(nominalMs)} has not fallen due yet (now is ${isoAt(nowMs)})`,
      );
    const claimant: Claimant = {
      owner: request.owner === undefined ? this.owner : request.owner,
      leaseMs: this.leaseMs,
    };
    const key = scheduleKey(tenantId, scheduleId);
    return this.decide<Claim>((view) => {
      const d = readStored(view, key);
      if (d === undefined) throw unknownSchedule(tenantId, scheduleId);
      if (d.revision !== expected)
        throw revisionMismatch(tenantId, scheduleId, expected, d.revision);
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
  async claimDue(key: string, options: { owner?: string } = {}): Promise<DueClaims> {
    const claimant: Claimant = { owner: options.owner ?? this.owner, leaseMs: this.leaseMs };
    const claims: Claim[] = [];
    let missed = 0;
    for (;;) {
      const nowMs = this.now();
      const page = await this.decide((view) => decideDue(view, nowMs, key, claimant, this.graceMs));
      // Reported, not thrown: one unreadable schedule must not stop a worker serving the others.
      if (page.undecodable !== undefined)
        this.world.reportError(page.undecodable, `schedule ${key}`);
      claims.push(...page.claims);
      missed += page.missed;
      if (!page.more) return { claims, missed, more: false };
    }
  }

  /** Reserves a ready occurrence, or reclaims one whose owner's lease lapsed; undefined if neither. */
  reserve(
    occurrenceId: string,
    options: { owner?: string } = {},
  ): Promise<Reservation | undefined> {
    const nowMs = this.now();
    const owner = options.owner ?? this.owner;
    return this.decide((view) =>
      decideReserve(view, nowMs, occurrenceId, { owner, leaseMs: this.leaseMs }),
    );
  }

  /** Gives back a reservation not launched yet: ready again for any worker. False if it was not held. */
  release(held: Reservation): Promise<boolean> {
    checkReservation(held);
    const nowMs = this.now();
    return this.decide((view) => decideRelease(view, nowMs, held));
  }

  /** Extends a reservation's lease; false once it lost the occurrence. */
  heartbeat(held: Reservation): Promise<boolean> {
    const nowMs = this.now();
    return this.decide((view) => decideHeartbeat(view, nowMs, held, this.leaseMs));
  }

  /**
   * Records a reservation's result: `launched` (with the run id that replaces the reservation),
   * then `completed` or `failed`. From an owner that lost the occurrence it is refused STALE_OWNER
   * after what it reported is kept on the ledger row as a late observation.
   */
  async recordResult(
    held: Reservation,
    result: FireResult,
    context?: TriggerContext,
  ): Promise<ResultAnswer> {
    checkReservation(held);
    const checked = checkResult(result);
    authorize(contextArgument(context), held.tenantId, 'ingest', 'record occurrence results');
    return this.settle(held, checked);
  }

  private async settle(held: Reservation, result: FireResult): Promise<ResultAnswer> {
    const nowMs = this.now();
    const recorder = this.runner?.recorder;
    const answer = await this.decide((view) =>
      decideResult(view, nowMs, held, result, this.leaseMs, recorder),
    );
    if (!answer.current)
      throw new TwinError(
        'STALE_OWNER',
        `occurrence ${held.occurrenceId} of schedule "${held.scheduleId}" is no longer held by ${held.owner} (fence ${held.fence}): it is ${answer.state}${answer.heldBy === null ? '' : `, held by ${answer.heldBy}`}; the ${result.outcome} result is kept on the ledger row as a late observation and nothing moved`,
        {
          path: 'reservation',
          details: {
            occurrenceId: held.occurrenceId,
            owner: held.owner,
            fence: held.fence,
            state: answer.state,
            outcome: answer.outcome,
            heldBy: answer.heldBy,
          },
        },
      );
    return answer;
  }

  /**
   * Launches a reservation and runs its routine to the end: the launch replaces the reservation
   * with the run id, the owner heartbeats while it runs (a lost occurrence aborts the routine's
   * signal), and the result settles the row. STALE_OWNER when the reservation lost the occurrence
   * at launch or before the result.
   */
  async run(held: Reservation): Promise<RunReport> {
    const runner = this.runner;
    if (runner === undefined)
      throw new TwinError(
        'INVALID_ARGUMENT',
        'this Schedules has no runner; pass {runner} (e.g. new InProcessRunner(world)) to run occurrences',
        { path: 'runner' },
      );
    const fire = await this.twin.read((view) => readFire(fireWriter(view), held.occurrenceId));
    if (fire === undefined)
      throw new TwinError('UNKNOWN_TRIGGER', `no ledger row ${held.occurrenceId}`, {
        path: 'occurrenceId',
      });
    const runId = runIdOf(held.occurrenceId, held.fence);
    const lost = new AbortController();
    const stopBeats = keepAlive(
      this.world.clock,
      this.leaseMs,
      async () => {
        const ok = await this.heartbeat(held);
        if (!ok) lost.abort();
        return ok;
      },
      (error) => this.world.reportError(error, `heartbeat of occurrence ${held.occurrenceId}`),
    );
    let result: FireResult;
    try {
      await this.settle(held, { outcome: 'launched', runId });
      const start = runStartOf(held.occurrenceId, fire, held.fence);
      try {
        const value = await runner.run({ ...start, input: fire.input, signal: lost.signal });
        result = { outcome: 'completed', result: checkRunResult(value), runId };
      } catch (error) {
        result = {
          outcome: 'failed',
          error: lost.signal.aborted ? 'ABORTED' : errorCode(error),
          runId,
        };
      }
    } finally {
      stopBeats();
    }
    const answer = await this.settle(held, result);
    return {
      occurrenceId: held.occurrenceId,
      runId,
      outcome: result.outcome as 'completed' | 'failed',
      result: result.outcome === 'completed' ? (result.result ?? null) : null,
      error: result.outcome === 'failed' ? result.error : null,
      promoted: answer.promoted,
    };
  }

  /**
   * Claims every occurrence of the schedule from `from` to `to` through the same claim (by the
   * stored overlap policy unless `overlap` overrides it for this backfill). Idempotent: an
   * occurrence already claimed — by the scheduler or an earlier backfill — claims nothing new.
   * What it launches is ready for any worker.
   */
  async backfill(request: BackfillRequest, context?: TriggerContext): Promise<BackfillReport> {
    if (request === null || typeof request !== 'object')
      refuse(
        'INVALID_OPTIONS',
        'request',
        'backfill({tenantId, scheduleId, from, to}) needs a request',
      );
    const { tenantId, scheduleId } = request;
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    checkTriggerId(scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
    const fromMs = checkIso(request.from, 'from', 'INVALID_OPTIONS');
    const toMs = checkIso(request.to, 'to', 'INVALID_OPTIONS');
    const nowMs = this.now();
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
    const decl = await this.twin.read((view) => readStored(view, key));
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
      const step = await this.decide((view) => {
        const d = readStored(view, key);
        if (d === undefined) throw unknownSchedule(tenantId, scheduleId);
        if (!d.enabled) return skip({ claims: [] as Claim[], disabled: true });
        const s = openSession(view, nowMs, key, d);
        const made = page.map((o) =>
          claimOccurrence(s, o, 'backfill', { owner: null, leaseMs: this.leaseMs }, override),
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

  // ---- the fire ledger ------------------------------------------------------------------------

  /** The ledger newest occurrence first; see HistoryQuery. INVALID_OPTIONS for a bad limit, cursor or outcome. */
  async history(query: HistoryQuery, context?: TriggerContext): Promise<HistoryPage> {
    if (query === null || typeof query !== 'object')
      refuse(
        'INVALID_OPTIONS',
        'query',
        'history({tenantId, scheduleId?, runId?, outcome?, cursor?, limit?}) needs a query',
      );
    checkTenantId(query.tenantId, 'tenantId', 'INVALID_ARGUMENT');
    if (query.scheduleId !== undefined)
      checkTriggerId(query.scheduleId, 'scheduleId', 'INVALID_ARGUMENT');
    if (query.runId !== undefined && (typeof query.runId !== 'string' || query.runId === ''))
      refuse('INVALID_OPTIONS', 'runId', 'runId must be a non-empty string');
    const limit = checkLimit(query.limit);
    const outcome = checkOutcome(query.outcome);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    authorize(contextArgument(context), query.tenantId, 'read', 'read the fire ledger');
    const rows = await this.twin.read((view) => {
      const byRun = query.runId === undefined ? undefined : fireOfRunId(query.runId);
      if (byRun !== undefined) {
        const r = view.get(FIRE_TYPE, byRun);
        return r === undefined ? [] : [r];
      }
      if (query.scheduleId !== undefined)
        return view.lookup(
          FIRE_TYPE,
          SCHEDULE_INDEX,
          scheduleKey(query.tenantId, query.scheduleId),
        );
      return view.lookup(FIRE_TYPE, TENANT_INDEX, query.tenantId);
    });
    return historyPage(rows, query, {
      limit,
      ...(after === undefined ? {} : { after }),
      ...(outcome === undefined ? {} : { outcome }),
    });
  }

  /**
   * Removes the tenant's settled ledger rows (completed, failed, skipped, superseded) that settled
   * before `before` — writes that delete resources, never entries. Buffered, ready, reserved and
   * running rows, and any row a declaration still names, stay.
   */
  async prune(
    options: { tenantId: string; before: string },
    context?: TriggerContext,
  ): Promise<{ removed: number; kept: number }> {
    if (options === null || typeof options !== 'object')
      refuse('INVALID_OPTIONS', 'options', 'prune({tenantId, before}) needs options');
    checkTenantId(options.tenantId, 'tenantId', 'INVALID_ARGUMENT');
    const beforeIso = isoAt(checkIso(options.before, 'before', 'INVALID_OPTIONS'));
    authorize(contextArgument(context), options.tenantId, 'configure', 'prune the fire ledger');
    let removed = 0;
    let kept = 0;
    for (;;) {
      const candidates = await this.twin.read((view) =>
        view
          .lookup(FIRE_TYPE, SETTLED_INDEX, options.tenantId)
          .filter((r) => typeof r.fields.finishedAt === 'string' && r.fields.finishedAt < beforeIso)
          .map((r) => r.id),
      );
      if (candidates.length === 0) break;
      const batch = candidates.slice(0, PRUNE_BATCH);
      const nowIso = isoAt(this.now());
      const step = await this.decide((view) =>
        decidePrune(view, nowIso, options.tenantId, beforeIso, batch),
      );
      removed += step.removed;
      kept += step.kept;
      if (step.removed === 0 || candidates.length <= PRUNE_BATCH) break;
    }
    return { removed, kept };
  }

  /** The declaration, what holds the active slot, the buffer, the next occurrences and the live hosts. */
  async inspect(
    tenantId: string,
    scheduleId: string,
    options: { next?: number; context?: TriggerContext } = {},
  ): Promise<Inspection> {
    const next = options.next ?? 5;
    if (!Number.isSafeInteger(next) || next < 0 || next > 100)
      refuse('INVALID_OPTIONS', 'next', 'next must be an integer from 0 to 100');
    const schedule = await this.get(tenantId, scheduleId, options.context);
    if (schedule === undefined) throw unknownSchedule(tenantId, scheduleId);
    const nowMs = this.now();
    const { active, buffer, hosts } = await this.twin.read((view) => {
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

function readStored(view: ReadView, key: string): ScheduleFields | undefined {
  const r = view.get(SCHEDULE_TYPE, key);
  if (r === undefined || r.deleted) return undefined;
  const d = decodeSchedule(r);
  if (!d.ok) throw d.error;
  return d.value;
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

function checkReservation(held: Reservation): void {
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

function checkResult(result: FireResult): FireResult {
  if (result === null || typeof result !== 'object')
    refuse(
      'INVALID_OPTIONS',
      'result',
      "result must be { outcome: 'launched', runId } or { outcome: 'completed', result? } or { outcome: 'failed', error }",
    );
  const runId: unknown = (result as { runId?: unknown }).runId;
  if (
    runId !== undefined &&
    (typeof runId !== 'string' || runId.trim() === '' || runId.length > 256)
  )
    refuse(
      'INVALID_OPTIONS',
      'runId',
      'runId must be a non-empty string of at most 256 characters',
    );
  switch (result.outcome) {
    case 'launched':
      if (runId === undefined)
        refuse(
          'INVALID_OPTIONS',
          'runId',
          'launched requires the run id that replaces the reservation',
        );
      return { outcome: 'launched', runId: runId as string };
    case 'completed':
      return {
        outcome: 'completed',
        result: checkRunResult(result.result),
        ...(runId === undefined ? {} : { runId: runId as string }),
      };
    case 'failed':
      if (typeof result.error !== 'string' || !/^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/.test(result.error))
        refuse(
          'INVALID_OPTIONS',
          'error',
          'a failed result names an error code (letters, digits, _ . : -), never exception text',
        );
      return {
        outcome: 'failed',
        error: result.error,
        ...(runId === undefined ? {} : { runId: runId as string }),
      };
    default:
      return refuse(
        'INVALID_OPTIONS',
        'outcome',
        `outcome must be launched, completed or failed, not ${JSON.stringify((result as { outcome?: unknown }).outcome)}`,
      );
  }
}
