// Occurrence claims: the pure decisions, run inside one atomic action, that read a schedule's
// declaration as stored and decide what each occurrence becomes — launched (with a reservation),
// skipped, buffered, or launched superseding what was active — by the overlap policy stored on
// the declaration (or an override its caller named). An occurrence that already has a ledger row
// (or had one, pruned) is "already claimed": nothing is written for it. Every decision is a write.
import type { TwinError } from '../../errors.js';
import { MAX_CATCH_UP_FIRES, occurrenceId } from '../cron/shared-occurrence.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import {
  occurrencesBetween,
  planCatchUp,
  DST_RULES,
  type CatchUpPolicy,
  type Occurrence,
} from '../cron/occurrences.js';

import { decodeSchedule, nextAfter, SCHEDULE_TYPE, type ScheduleFields } from './declaration.js';
import {
  decodeFire,
  FIRE_TYPE,
  reservationIdOf,
  type FireFields,
  type FireOrigin,
  type Outcome,
} from './fire-record.js';
import { overlapActionFor, formatOverlap, type OverlapPolicy } from './overlap.js';
import { fireKind } from './fire-record.js';
import { scheduleKind } from './declaration.js';

/** Who claims: a worker that launches what it claims, or nobody (a backfill: workers launch it). */
export interface Claimant {
  readonly owner: string | null;
  readonly leaseMs: number;
}

/** What a launching owner holds: pass it back to heartbeat, launch and record the result. */
export interface Reservation {
  readonly tenantId: string;
  readonly scheduleId: string;
  readonly occurrenceId: string;
  readonly nominalAt: string;
  readonly owner: string;
  readonly fence: number;
  readonly reservationId: string;
  readonly leaseUntil: string;
}

interface ClaimBase {
  readonly occurrenceId: string;
  readonly nominalAt: string;
}

export type Claim =
  /**
   * Nothing was written: another claim got there first (or the row was pruned since), or the
   * schedule is paused.
   */
  | (ClaimBase & {
      readonly claimed: false;
      readonly reason: 'already_claimed' | 'disabled';
      readonly outcome: Outcome | null;
    })
  | (ClaimBase & {
      readonly claimed: true;
      readonly action: 'skip';
      readonly reason: string;
    })
  | (ClaimBase & {
      readonly claimed: true;
      readonly action: 'buffer';
      /** The oldest queued occurrence a full buffer keeping its newest dropped. */
      readonly dropped: string | null;
    })
  | (ClaimBase & {
      readonly claimed: true;
      readonly action: 'fire' | 'supersede';
      /** Occurrences this launch cancelled (supersede). */
      readonly superseded: readonly string[];
      /** The claimant's reservation; absent when nobody owns it yet (ready for any worker). */
      readonly reservation?: Reservation;
    });

/** Ledger rows written in one atomic action, readable before it commits. */
export interface FireWriter {
  readonly view: ReadView;
  readonly fires: Map<string, FireFields>;
  readonly writes: Write[];
}

export function fireWriter(view: ReadView): FireWriter {
  return { view, fires: new Map(), writes: [] };
}

/** The declaration as a session changes it. */
export type WorkingDecl = Omit<ScheduleFields, 'active' | 'buffer' | 'lastFiredAt'> & {
  active: string[];
  buffer: string[];
  lastFiredAt: string | null;
};

/** One atomic action's working state: the declaration as it will be stored, rows touched so far. */
export interface ClaimSession extends FireWriter {
  readonly nowMs: number;
  readonly nowIso: string;
  readonly scheduleKey: string;
  decl: WorkingDecl;
}

export function openSession(
  view: ReadView,
  nowMs: number,
  scheduleKey: string,
  decl: ScheduleFields,
): ClaimSession {
  return {
    view,
    nowMs,
    nowIso: isoAt(nowMs),
    scheduleKey,
    decl: { ...decl, active: [...decl.active], buffer: [...decl.buffer] },
    fires: new Map(),
    writes: [],
  };
}

/** A stored declaration, read for a decision; undefined when absent, deleted or undecodable. */
export function readSchedule(view: ReadView, key: string): ScheduleFields | undefined {
  const r = view.get(SCHEDULE_TYPE, key);
  if (r === undefined || r.deleted) return undefined;
  const decoded = decodeSchedule(r);
  return decoded.ok ? decoded.value : undefined;
}

/** A ledger row as this session sees it: written earlier in it, or stored. */
export function readFire(
  s: Pick<FireWriter, 'view' | 'fires'>,
  id: string,
): FireFields | undefined {
  const staged = s.fires.get(id);
  if (staged !== undefined) return staged;
  const r = s.view.get(FIRE_TYPE, id);
  if (r === undefined || r.deleted) return undefined;
  const decoded = decodeFire(r);
  return decoded.ok ? decoded.value : undefined;
}

export function putFire(
  s: FireWriter,
  id: string,
  operation: string,
  patch: Partial<FireFields>,
  projection?: Write['projection'],
): FireFields {
  const before = readFire(s, id);
  const after = { ...before, ...patch } as FireFields;
  s.fires.set(id, after);
  s.writes.push({
    operation,
    subjectType: FIRE_TYPE,
    subjectId: id,
    fields: fireKind.json(patch),
    ...(projection === undefined ? {} : { projection }),
    actor: 'system',
  });
  return after;
}

/** The declaration write that ends a session: claim state and whatever else moved. */
export function closeSession(
  s: ClaimSession,
  operation: string,
  patch: Partial<WorkingDecl> = {},
): void {
  s.decl = { ...s.decl, ...patch };
  s.writes.push({
    operation,
    subjectType: SCHEDULE_TYPE,
    subjectId: s.scheduleKey,
    fields: {
      active: [...s.decl.active],
      buffer: [...s.decl.buffer],
      lastFiredAt: s.decl.lastFiredAt,
      ...scheduleKind.json(patch),
    },
    actor: 'system',
  });
}

function dstRuleOf(dst: Occurrence['dst']): string | null {
  return dst === 'gap-shifted'
    ? `gap:${DST_RULES.gap}`
    : dst === 'fold-first'
      ? `fold:${DST_RULES.fold}`
      : null;
}

function settledPatch(s: ClaimSession, outcome: Outcome, reason: string): Partial<FireFields> {
  return {
    state: 'settled',
    outcome,
    reason,
    finishedAt: s.nowIso,
    leaseUntil: null,
    dueAt: null,
    settled: s.decl.tenantId,
  };
}

/** A new ledger row's fields, before its decision. */
function baseRow(
  s: ClaimSession,
  o: Occurrence,
  origin: FireOrigin,
  policy: OverlapPolicy,
  overridden: boolean,
): FireFields {
  const d = s.decl;
  return {
    tenantId: d.tenantId,
    scheduleId: d.scheduleId,
    scopeId: d.scopeId,
    schedule: s.scheduleKey,
    nominalAt: isoAt(o.nominalAt),
    wallTime: o.wallTime,
    utcOffsetMinutes: o.utcOffsetMinutes,
    dst: o.dst,
    dstRule: dstRuleOf(o.dst),
    origin,
    revision: d.revision,
    routine: d.routine,
    input: d.input,
    overlap: formatOverlap(policy),
    overridden,
    state: 'ready',
    outcome: null,
    reason: null,
    claimedAt: s.nowIso,
    reservationId: null,
    runId: null,
    launchedAt: null,
    finishedAt: null,
    result: null,
    error: null,
    owner: null,
    leaseUntil: null,
    fence: 0,
    dueAt: null,
    settled: null,
  };
}

/** Whether the occurrence has (or had: a pruned row leaves a tombstone) a ledger row. */
function known(s: ClaimSession, id: string): { outcome: Outcome | null } | undefined {
  const staged = s.fires.get(id);
  if (staged !== undefined) return { outcome: staged.outcome };
  const r = s.view.get(FIRE_TYPE, id);
  if (r === undefined) return undefined;
  if (r.deleted) return { outcome: null };
  const outcome = (r.fields as { outcome?: unknown }).outcome;
  return { outcome: typeof outcome === 'string' ? (outcome as Outcome) : null };
}

/** Cancels an occurrence that holds a reservation, a run or a place in the buffer. */
function supersede(s: ClaimSession, id: string, by: string, reason: string): void {
  if (readFire(s, id) !== undefined)
    putFire(s, id, 'schedule.supersede', {
      ...settledPatch(s, 'superseded', reason),
      supersededBy: by,
    });
}

/**
 * Claims one occurrence by the overlap policy (the declaration's, unless `override` is given): the
 * decision, its ledger row and the declaration's claim state, all in the session.
 */
export function claimOccurrence(
  s: ClaimSession,
  o: Occurrence,
  origin: FireOrigin,
  claimant: Claimant,
  override?: OverlapPolicy,
): Claim {
  const nominalAt = isoAt(o.nominalAt);
  const id = occurrenceId(s.decl.tenantId, s.decl.scheduleId, nominalAt);
  const seen = known(s, id);
  if (seen !== undefined)
    return {
      claimed: false,
      occurrenceId: id,
      nominalAt,
      reason: 'already_claimed',
      outcome: seen.outcome,
    };
  const policy = override ?? s.decl.overlap;
  const row = baseRow(s, o, origin, policy, override !== undefined);
  const d = s.decl;
  const chosen = overlapActionFor(policy, { active: d.active.length, buffered: d.buffer.length });
  switch (chosen.action) {
    case 'skip': {
      const reason = chosen.reason;
      putFire(s, id, 'schedule.skip', { ...row, ...settledPatch(s, 'skipped', reason) });
      return { claimed: true, occurrenceId: id, nominalAt, action: 'skip', reason };
    }
    case 'buffer': {
      let dropped: string | null = null;
      if (chosen.dropOldest) {
        dropped = d.buffer.shift() ?? null;
        if (dropped !== null) supersede(s, dropped, id, 'buffer-newest');
      }
      putFire(s, id, 'schedule.buffer', { ...row, state: 'buffered', outcome: 'buffered' });
      d.buffer.push(id);
      return { claimed: true, occurrenceId: id, nominalAt, action: 'buffer', dropped };
    }
    case 'fire':
    case 'supersede': {
      const superseded = chosen.action === 'supersede' ? [...d.active, ...d.buffer.splice(0)] : [];
      for (const gone of superseded) supersede(s, gone, id, 'superseded');
      if (chosen.action === 'supersede') d.active = [];
      d.active.push(id);
      d.lastFiredAt = nominalAt;
      if (claimant.owner === null) {
        // Nobody launches it here: it is due at once for any worker to reserve.
        putFire(s, id, 'schedule.claim', { ...row, state: 'ready', dueAt: s.nowIso });
        return { claimed: true, occurrenceId: id, nominalAt, action: chosen.action, superseded };
      }
      const leaseUntil = isoAt(s.nowMs + claimant.leaseMs);
      const reservationId = reservationIdOf(id, 1);
      putFire(s, id, 'schedule.claim', {
        ...row,
        state: 'reserved',
        reservationId,
        owner: claimant.owner,
        leaseUntil,
        fence: 1,
        dueAt: leaseUntil,
      });
      return {
        claimed: true,
        occurrenceId: id,
        nominalAt,
        action: chosen.action,
        superseded,
        reservation: {
          tenantId: d.tenantId,
          scheduleId: d.scheduleId,
          occurrenceId: id,
          nominalAt,
          owner: claimant.owner,
          fence: 1,
          reservationId,
          leaseUntil,
        },
      };
    }
  }
}

/** Records an occurrence that fell due while no scheduler ran and that its catch-up policy leaves out. */
function recordMissed(s: ClaimSession, o: Occurrence, policy: CatchUpPolicy): boolean {
  const nominalAt = isoAt(o.nominalAt);
  const id = occurrenceId(s.decl.tenantId, s.decl.scheduleId, nominalAt);
  if (known(s, id) !== undefined) return false;
  const row = baseRow(s, o, 'catch-up', s.decl.overlap, false);
  putFire(s, id, 'schedule.miss', {
    ...row,
    ...settledPatch(s, 'skipped', `catch-up:${policy.kind}`),
  });
  return true;
}

/**
 * Which due occurrences fire. Those within `graceMs` of now are on time and all fire; older ones
 * fell due while no scheduler ran and follow the catch-up policy — skip: none of them; latest: the
 * newest, unless on-time ones fire anyway; all {max}: the newest `max`.
 */
function planDue(
  due: readonly Occurrence[],
  nowMs: number,
  graceMs: number,
  policy: CatchUpPolicy,
): { fire: Occurrence[]; missed: Occurrence[] } {
  const late = due.filter((o) => o.nominalAt < nowMs - graceMs);
  const onTime = due.filter((o) => o.nominalAt >= nowMs - graceMs);
  if (late.length === 0) return { fire: [...onTime], missed: [] };
  if (policy.kind === 'skip' || (policy.kind === 'latest' && onTime.length > 0))
    return { fire: [...onTime], missed: late };
  const plan = planCatchUp(late, policy);
  return { fire: [...plan.fire, ...onTime], missed: plan.missed };
}

/** Occurrences examined per atomic action; a longer backlog is worked through page by page. */
const PAGE = 2 * MAX_CATCH_UP_FIRES;

export interface DueClaims {
  readonly claims: Claim[];
  /** Occurrences recorded as skipped by the catch-up policy. */
  readonly missed: number;
  /** More occurrences are due than one page holds: claim again. */
  readonly more: boolean;
  /** The declaration is stored but cannot be read: nothing was claimed, and this says why. */
  readonly undecodable?: TwinError;
}

/**
 * The scheduler's claim: every occurrence of the schedule due by now — from its stored cursor,
 * with the stored policies — claimed or recorded missed, and the cursor and due time moved past
 * them, in one decision. A disabled schedule, or one whose cursor is already past (another
 * scheduler claimed first), claims nothing.
 */
export function decideDue(
  view: ReadView,
  nowMs: number,
  key: string,
  claimant: Claimant,
  graceMs: number,
): Decision<DueClaims> {
  const none = skip<DueClaims>({ claims: [], missed: 0, more: false });
  const stored = view.get(SCHEDULE_TYPE, key);
  if (stored === undefined || stored.deleted) return none;
  const decoded = decodeSchedule(stored);
  if (!decoded.ok) return skip({ ...none.result, undecodable: decoded.error });
  const decl = decoded.value;
  if (!decl.enabled) return none;
  const cursorMs = Date.parse(decl.cursor);
  if (nowMs <= cursorMs) return none;
  const spec = { cron: decl.cron, timezone: decl.timezone };
  const { occurrences, truncated } = occurrencesBetween(spec, cursorMs, nowMs, PAGE);
  const s = openSession(view, nowMs, key, decl);
  let fire: Occurrence[];
  let missed: Occurrence[];
  let cursor: number;
  if (truncated) {
    // The oldest of a long backlog cannot be among the newest MAX_CATCH_UP_FIRES: all missed.
    cursor = occurrences[PAGE - MAX_CATCH_UP_FIRES - 1]!.nominalAt;
    fire = [];
    missed = occurrences.filter((o) => o.nominalAt <= cursor);
  } else {
    ({ fire, missed } = planDue(occurrences, nowMs, graceMs, decl.catchUp));
    cursor = nowMs;
  }
  const firing = new Set(fire);
  const claims: Claim[] = [];
  let count = 0;
  for (const o of occurrences) {
    if (firing.has(o)) {
      const origin = o.nominalAt < nowMs - graceMs ? 'catch-up' : 'schedule';
      const claim = claimOccurrence(s, o, origin, claimant);
      if (claim.claimed) count++;
      claims.push(claim);
    } else if (missed.includes(o) && recordMissed(s, o, decl.catchUp)) count++;
  }
  const cursorIso = isoAt(cursor);
  const nextAt = nextAfter(spec, cursorIso);
  closeSession(s, 'schedule.advance', {
    cursor: cursorIso,
    nextAt,
    dueAt: nextAt,
    occurrences: decl.occurrences + count,
  });
  return commit(s.writes, { claims, missed: missed.length, more: truncated });
}
