// The tick's decision for one subscription: one page of due occurrences numbered, recorded as
// pending or missed and the cursor moved past them, in one commit; and the envelope an
// occurrence fires as. Pure: no I/O, time passed in.
import { TwinError } from '../../errors.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import { createTriggerEnvelope, type TriggerEnvelope } from '../envelope.js';
import {
  DST_RULES,
  MAX_INSTANT_MS,
  nextOccurrence,
  occurrencesBetween,
  planCatchUp,
  type Occurrence,
} from '../cron/occurrences.js';
import { MAX_CATCH_UP_FIRES, occurrenceId } from '../cron/shared-occurrence.js';
import {
  OCCURRENCE_TYPE,
  occurrenceDedupeKey,
  SUBSCRIPTION_TYPE,
  subscriptionOf,
} from './subscription.js';

import { occurrenceKind, type OccurrenceFields } from './occurrence-record.js';

/** Occurrences looked at per commit; older ones of a longer backlog are recorded as missed page by page. */
const PAGE = 2 * MAX_CATCH_UP_FIRES;

function dstRuleOf(dst: Occurrence['dst']): string | null {
  return dst === 'gap-shifted'
    ? `gap:${DST_RULES.gap}`
    : dst === 'fold-first'
      ? `fold:${DST_RULES.fold}`
      : null;
}

export function checkNow(value: unknown, fallback: () => number): number {
  if (value === undefined) return fallback();
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'now must be epoch milliseconds, an integer from 0 (1970-01-01T00:00:00.000Z), or omitted to use the world clock',
      { path: 'now' },
    );
  }
  // Past the last instant occurrences are counted at, the refusal would otherwise come from deep
  // in the cron arithmetic and name its own parameter (untilMs), not the caller's.
  if (value > MAX_INSTANT_MS)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `now (${value <= 8.64e15 ? isoAt(value) : `${value} ms`}) is after ${isoAt(MAX_INSTANT_MS)}, the last instant calendars count occurrences at`,
      { path: 'now' },
    );
  return value;
}

export interface DuePlan {
  readonly fire: OccurrenceFields[];
  readonly missed: OccurrenceFields[];
  /** More occurrences are due than one page holds: decide again. */
  readonly more: boolean;
}

/**
 * One page of due occurrences for one subscription: numbered, recorded as pending (to fire) or
 * missed, and the cursor moved past them — all in one commit. `catchingUp` says an earlier page of
 * this tick already recorded missed occurrences (so `skip` fires none of the rest either).
 */
export function decideDue(
  view: ReadView,
  subId: string,
  nowMs: number,
  nowIso: string,
  catchingUp: boolean,
  leaseMs: number,
): Decision<DuePlan> {
  const none = skip<DuePlan>({ fire: [], missed: [], more: false });
  const resource = view.get(SUBSCRIPTION_TYPE, subId);
  if (resource === undefined || resource.deleted) return none;
  const sub = subscriptionOf(resource);
  if (!sub.enabled) return none;
  const cursorMs = Date.parse(sub.cursor);
  if (nowMs <= cursorMs) return none;
  const spec = { cron: sub.cron, timezone: sub.timezone };
  const { occurrences, truncated } = occurrencesBetween(spec, cursorMs, nowMs, PAGE);
  if (occurrences.length === 0) return none;
  // An occurrence already on record (a cursor reset to before it) is never numbered or fired again.
  const fresh = occurrences.filter(
    (o) =>
      view.get(OCCURRENCE_TYPE, occurrenceId(sub.tenantId, sub.triggerId, isoAt(o.nominalAt))) ===
      undefined,
  );
  let fire: Occurrence[];
  let missed: Occurrence[];
  let newCursor: number;
  if (truncated) {
    // More than a page is due: the oldest half cannot be among the newest MAX_CATCH_UP_FIRES.
    const cut = occurrences[PAGE - MAX_CATCH_UP_FIRES - 1]!.nominalAt;
    fire = [];
    missed = fresh.filter((o) => o.nominalAt <= cut);
    newCursor = cut;
  } else {
    const plan =
      catchingUp && sub.catchUp.kind === 'skip'
        ? { fire: [], missed: fresh }
        : planCatchUp(fresh, sub.catchUp);
    fire = plan.fire;
    missed = plan.missed;
    newCursor = nowMs;
  }
  const lateCatchUp = catchingUp || truncated || fresh.length > 1;
  let number = sub.occurrences;
  const firing = new Set(fire);
  const fields: OccurrenceFields[] = [];
  for (const o of fresh) {
    if (!firing.has(o) && !missed.includes(o)) continue;
    number++;
    const nominalAt = isoAt(o.nominalAt);
    const isFire = firing.has(o);
    fields.push({
      subscriptionId: subId,
      tenantId: sub.tenantId,
      scopeId: sub.scopeId,
      triggerId: sub.triggerId,
      revision: sub.revision,
      number,
      nominalAt,
      wallTime: o.wallTime,
      utcOffsetMinutes: o.utcOffsetMinutes,
      dst: o.dst,
      dstRule: dstRuleOf(o.dst),
      timezone: sub.timezone,
      cron: sub.cron,
      state: isFire ? 'pending' : 'missed',
      reason: isFire ? null : `catch-up:${sub.catchUp.kind}`,
      catchUp: lateCatchUp,
      decidedAt: nowIso,
      latenessMs: nowMs - o.nominalAt,
      dedupeKey: occurrenceDedupeKey(sub.triggerId, nominalAt),
      answer: null,
      error: null,
      recordId: null,
      firedAt: null,
      pending: isFire ? sub.tenantId : null,
      leaseUntil: isFire ? isoAt(nowMs + leaseMs) : null,
      dueAt: isFire ? isoAt(nowMs + leaseMs) : null,
    });
  }
  const writes: Write[] = fields.map((f) => ({
    operation: f.state === 'missed' ? 'calendar.miss' : 'calendar.due',
    subjectType: OCCURRENCE_TYPE,
    subjectId: occurrenceId(f.tenantId, f.triggerId, f.nominalAt),
    fields: occurrenceKind.json(f),
    actor: 'system',
  }));
  writes.push({
    operation: 'calendar.advance',
    subjectType: SUBSCRIPTION_TYPE,
    subjectId: subId,
    fields: {
      cursor: isoAt(newCursor),
      occurrences: number,
      lastTickAt: nowIso,
      dueAt: nextDueAt(spec, newCursor),
    },
    actor: 'system',
  });
  return commit(writes, {
    fire: fields.filter((f) => f.state === 'pending'),
    missed: fields.filter((f) => f.state === 'missed'),
    more: truncated,
  });
}

/** A subscription falls due at its next occurrence after the cursor (none: never). */
export function nextDueAt(
  spec: { cron: string; timezone: string },
  cursorMs: number,
): string | null {
  const next = nextOccurrence(spec, cursorMs);
  return next === undefined ? null : isoAt(next.nominalAt);
}

export function envelopeOf(o: OccurrenceFields): TriggerEnvelope {
  return createTriggerEnvelope({
    tenantId: o.tenantId,
    scopeId: o.scopeId,
    source: { kind: 'calendar', provider: 'cron' },
    triggerId: o.triggerId,
    eventId: occurrenceId(o.tenantId, o.triggerId, o.nominalAt),
    dedupeKey: o.dedupeKey,
    occurredAt: o.nominalAt,
    scheduledAt: o.nominalAt,
    // Only what the occurrence record fixed when it was decided: a re-fire builds the same payload.
    payload: {
      occurrence: o.number,
      nominalAt: o.nominalAt,
      wallTime: o.wallTime,
      utcOffsetMinutes: o.utcOffsetMinutes,
      dst: o.dst,
      dstRule: o.dstRule,
      timezone: o.timezone,
      cron: o.cron,
      catchUp: o.catchUp,
    },
  });
}
