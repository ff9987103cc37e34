// The calendar trigger source: cron subscriptions in IANA zones, fired when the host calls
// tick(). Each due occurrence is numbered, identified by trigger + nominal instant and recorded
// (fired or missed) in the same commit that moves the cursor, so a repeated or concurrent tick
// never fires one twice and a catch-up after downtime never drops one silently.
import { TwinError } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { Resource } from '../../state/resource.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import { DUE_FIELD, DUE_INDEX } from '../../work/lease.js';
import type { IngestStatus } from '../answer.js';
import type { SourceHost } from '../source.js';
import { checkTenantId, createTriggerEnvelope, type TriggerEnvelope } from '../envelope.js';
import type { TriggerSource } from '../source.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import {
  DST_RULES,
  nextOccurrence,
  occurrencesBetween,
  planCatchUp,
  type Occurrence,
} from '../cron/occurrences.js';
import { MAX_CATCH_UP_FIRES, occurrenceId } from '../cron/shared-occurrence.js';
import {
  BY_TENANT_INDEX,
  OCCURRENCE_TYPE,
  occurrenceDedupeKey,
  PENDING_INDEX,
  SUBSCRIPTION_TYPE,
  subscriptionId,
  subscriptionOf,
  validateSubscription,
  type CalendarSubscription,
  type SubscriptionFields,
} from './subscription.js';
import { recordKind } from '../../state/record-kind.js';
import { subscriptionKind } from './subscription.js';

/** Occurrences looked at per commit; older ones of a longer backlog are recorded as missed page by page. */
const PAGE = 2 * MAX_CATCH_UP_FIRES;

export type OccurrenceState = 'pending' | 'fired' | 'missed';

export interface OccurrenceFields {
  readonly subscriptionId: string;
  readonly tenantId: string;
  readonly scopeId: string;
  readonly triggerId: string;
  readonly revision: number;
  /** 1, 2, 3… per subscription, in nominal order, fired and missed alike. */
  readonly number: number;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly utcOffsetMinutes: number;
  readonly dst: Occurrence['dst'];
  /** The DST rule that applied: 'gap:shift-forward', 'fold:first', or null when the wall time occurs once. */
  readonly dstRule: string | null;
  readonly timezone: string;
  readonly cron: string;
  readonly state: OccurrenceState;
  /** For a missed occurrence: the catch-up policy that left it out, e.g. 'catch-up:latest'. */
  readonly reason: string | null;
  /** True when more than one occurrence was due at once (it fires late, as part of a catch-up). */
  readonly catchUp: boolean;
  readonly decidedAt: string;
  readonly latenessMs: number;
  readonly dedupeKey: string;
  /** What ingest answered once fired: triggered, filtered, duplicate, in_progress, failed or refused. */
  readonly answer: string | null;
  readonly error: string | null;
  readonly recordId: string | null;
  readonly firedAt: string | null;
  readonly pending: string | null;
  /** Until then the tick that decided a pending occurrence owns its firing; after, any tick may. */
  readonly leaseUntil: string | null;
  /** When a worker must look at it: a pending occurrence's lease end; null once fired or missed. */
  readonly dueAt: string | null;
}

/** Occurrence records, typed (src/state/record-kind.ts). */
export const occurrenceKind = recordKind<OccurrenceFields>({ type: OCCURRENCE_TYPE });

/** A calendar occurrence's fields, typed: the one place one is read out of `Resource.fields`. */
export function occurrenceOf(resource: Resource): OccurrenceFields {
  return occurrenceKind.of(resource);
}

export interface FiredOccurrence {
  readonly triggerId: string;
  readonly number: number;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly utcOffsetMinutes: number;
  readonly dst: Occurrence['dst'];
  readonly dstRule: string | null;
  readonly catchUp: boolean;
  readonly latenessMs: number;
  readonly dedupeKey: string;
  readonly status: IngestStatus | 'failed' | 'refused';
  readonly error: string | null;
  readonly recordId: string | null;
  readonly routineResult: JsonValue;
}

export interface MissedOccurrence {
  readonly triggerId: string;
  readonly number: number;
  readonly nominalAt: string;
  readonly wallTime: string;
  readonly dst: Occurrence['dst'];
  readonly reason: string;
}

export interface TickAnswer {
  readonly tenantId: string;
  readonly now: string;
  /** In the order they fired: leftovers of an interrupted tick first, then by trigger and time. */
  readonly fired: FiredOccurrence[];
  readonly missed: MissedOccurrence[];
}

export interface ConfigureAnswer {
  readonly subscriptionId: string;
  readonly revision: number;
  readonly cursor: string;
  /** The first occurrence after the cursor, if the expression has one. */
  readonly nextAt: string | null;
}

function dstRuleOf(dst: Occurrence['dst']): string | null {
  return dst === 'gap-shifted'
    ? `gap:${DST_RULES.gap}`
    : dst === 'fold-first'
      ? `fold:${DST_RULES.fold}`
      : null;
}

function checkNow(value: unknown, fallback: () => number): number {
  if (value === undefined) return fallback();
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      'now must be epoch milliseconds (an integer), or omitted to use the world clock',
      { path: 'now' },
    );
  }
  return value;
}

interface DuePlan {
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
function decideDue(
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
function nextDueAt(spec: { cron: string; timezone: string }, cursorMs: number): string | null {
  const next = nextOccurrence(spec, cursorMs);
  return next === undefined ? null : isoAt(next.nominalAt);
}

function envelopeOf(o: OccurrenceFields): TriggerEnvelope {
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

/** How long a tick owns the occurrences it decided to fire before another tick may fire them. */
export const DEFAULT_PENDING_LEASE_MS = 60_000;

export class CalendarSource implements TriggerSource {
  readonly name: string;
  readonly pendingLeaseMs: number;
  private engine: SourceHost | undefined;

  constructor(options: { name?: string; pendingLeaseMs?: number } = {}) {
    this.name = options.name ?? 'calendar';
    const lease = options.pendingLeaseMs ?? DEFAULT_PENDING_LEASE_MS;
    if (!Number.isSafeInteger(lease) || lease < 0)
      throw new TwinError(
        'INVALID_ARGUMENT',
        'pendingLeaseMs must be a non-negative integer number of milliseconds',
        { path: 'pendingLeaseMs' },
      );
    this.pendingLeaseMs = lease;
  }

  connect(engine: SourceHost): void {
    this.engine = engine;
    engine.twin.declareIndex({ type: SUBSCRIPTION_TYPE, name: BY_TENANT_INDEX, field: 'tenantId' });
    engine.twin.declareIndex({ type: OCCURRENCE_TYPE, name: PENDING_INDEX, field: 'pending' });
    // Due times (docs/work.md): a subscription's next occurrence, a pending occurrence's lease end.
    engine.twin.declareIndex({ type: SUBSCRIPTION_TYPE, name: DUE_INDEX, field: DUE_FIELD });
    engine.twin.declareIndex({ type: OCCURRENCE_TYPE, name: DUE_INDEX, field: DUE_FIELD });
  }

  disconnect(): void {
    this.engine = undefined;
  }

  private connected(what: string): SourceHost {
    if (this.engine === undefined) {
      throw new TwinError(
        'ENGINE_STOPPED',
        `calendar.${what}: register this source with engine.registerSource() and start the engine first`,
      );
    }
    return this.engine;
  }

  /**
   * Creates or changes a subscription and resets its cursor to `now` (epoch ms; default the
   * world clock): occurrences at or before `now` are not fired. Call it when the subscription
   * changes, not before every tick, or the cursor keeps jumping to the present. A tenant
   * context needs `configure` for the subscription's tenant.
   */
  async configure(
    subscription: CalendarSubscription,
    now?: number,
    context?: TriggerContext,
  ): Promise<ConfigureAnswer> {
    const engine = this.connected('configure');
    const sub = validateSubscription(subscription);
    authorize(contextArgument(context), sub.tenantId, 'configure', 'configure calendars');
    const nowMs = checkNow(now, () => engine.world.clock.now());
    const id = subscriptionId(sub.tenantId, sub.triggerId);
    const cursor = isoAt(nowMs);
    const { result } = await engine.twin.applyAtomic((view) => {
      const prev = view.get(SUBSCRIPTION_TYPE, id);
      const before = prev === undefined || prev.deleted ? undefined : subscriptionOf(prev);
      const revision = (before?.revision ?? 0) + 1;
      const fields: SubscriptionFields = {
        ...sub,
        revision,
        cursor,
        occurrences: before?.occurrences ?? 0,
        configuredAt: isoAt(engine.world.clock.now()),
        lastTickAt: before?.lastTickAt ?? null,
        tzdb: process.versions.tz ?? null,
        dstRules: DST_RULES,
        dueAt: sub.enabled ? nextDueAt({ cron: sub.cron, timezone: sub.timezone }, nowMs) : null,
      };
      return commit(
        [
          {
            operation: 'calendar.configure',
            subjectType: SUBSCRIPTION_TYPE,
            subjectId: id,
            fields: subscriptionKind.json(fields),
            actor: 'operator',
          },
        ],
        revision,
      );
    });
    const next = nextOccurrence({ cron: sub.cron, timezone: sub.timezone }, nowMs);
    return {
      subscriptionId: id,
      revision: result,
      cursor,
      nextAt: next === undefined ? null : isoAt(next.nominalAt),
    };
  }

  /** The stored subscription of one trigger, if any. */
  async subscription(
    tenantId: string,
    triggerId: string,
    context?: TriggerContext,
  ): Promise<SubscriptionFields | undefined> {
    authorize(contextArgument(context), tenantId, 'read', 'read the calendars');
    const r = await this.connected('subscription').twin.get(
      SUBSCRIPTION_TYPE,
      subscriptionId(tenantId, triggerId),
    );
    return r === undefined || r.deleted ? undefined : subscriptionOf(r);
  }

  /**
   * Fires what is due for `tenantId` at `now` (epoch ms; default the world clock) and answers what
   * it fired and what it recorded as missed. First re-fires occurrences an interrupted tick
   * decided but never got to ingest (ingest dedupes, so that is safe). A tenant context needs
   * `ingest` for `tenantId`; it is passed on to every ingest the tick makes.
   */
  async tick(tenantId: string, now?: number, context?: TriggerContext): Promise<TickAnswer> {
    const engine = this.connected('tick');
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    const acting = contextArgument(context);
    authorize(acting, tenantId, 'ingest', 'fire the calendars');
    const nowMs = checkNow(now, () => engine.world.clock.now());
    const nowIso = isoAt(nowMs);
    const answer: TickAnswer = { tenantId, now: nowIso, fired: [], missed: [] };
    for (const leftover of await engine.twin.lookup(OCCURRENCE_TYPE, PENDING_INDEX, tenantId)) {
      const claimed = await this.reclaim(engine, leftover.id, nowMs);
      if (claimed !== undefined)
        answer.fired.push(await this.fire(engine, leftover.id, claimed, acting));
    }
    const subs = await engine.twin.lookup(SUBSCRIPTION_TYPE, BY_TENANT_INDEX, tenantId);
    const triggerOf = (r: (typeof subs)[number]): string => String(r.fields.triggerId);
    subs.sort((a, b) => (triggerOf(a) < triggerOf(b) ? -1 : triggerOf(a) > triggerOf(b) ? 1 : 0));
    for (const sub of subs) {
      // Catching up once an earlier page of this tick recorded a missed occurrence; a page whose
      // occurrences were all on record already (a cursor moved back) does not count.
      for (let catchingUp = false; ;) {
        const plan = (
          await engine.twin.applyAtomic((view) =>
            decideDue(view, sub.id, nowMs, nowIso, catchingUp, this.pendingLeaseMs),
          )
        ).result;
        for (const m of plan.missed)
          answer.missed.push({
            triggerId: m.triggerId,
            number: m.number,
            nominalAt: m.nominalAt,
            wallTime: m.wallTime,
            dst: m.dst,
            reason: m.reason!,
          });
        for (const f of plan.fire)
          answer.fired.push(
            await this.fire(engine, occurrenceId(f.tenantId, f.triggerId, f.nominalAt), f, acting),
          );
        if (!plan.more) break;
        if (plan.missed.length > 0) catchingUp = true;
      }
    }
    return answer;
  }

  /**
   * A pending occurrence whose lease ran out: the tick that decided it crashed (or is very slow).
   * Claimed with a fresh lease in an atomic action, so two recovering ticks fire it once.
   */
  private async reclaim(
    engine: SourceHost,
    id: string,
    nowMs: number,
  ): Promise<OccurrenceFields | undefined> {
    const { result } = await engine.twin.applyAtomic((view) => {
      const r = view.get(OCCURRENCE_TYPE, id);
      const o = r === undefined ? undefined : occurrenceOf(r);
      if (
        o === undefined ||
        o.state !== 'pending' ||
        (o.leaseUntil !== null && Date.parse(o.leaseUntil) > nowMs)
      )
        return skip();
      const leaseUntil = isoAt(nowMs + this.pendingLeaseMs);
      return commit(
        [
          {
            operation: 'calendar.reclaim',
            subjectType: OCCURRENCE_TYPE,
            subjectId: id,
            fields: { leaseUntil, dueAt: leaseUntil },
            actor: 'system',
          },
        ],
        { ...o, leaseUntil },
      );
    });
    return result;
  }

  private async fire(
    engine: SourceHost,
    id: string,
    o: OccurrenceFields,
    context: TriggerContext,
  ): Promise<FiredOccurrence> {
    let status: FiredOccurrence['status'];
    let error: string | null = null;
    let recordId: string | null = null;
    let routineResult: JsonValue = null;
    try {
      const a = await engine.ingest(envelopeOf(o), context);
      status = a.status;
      recordId = a.recordId;
      if (a.status === 'triggered' || a.status === 'duplicate') routineResult = a.routineResult;
    } catch (e) {
      // The engine recorded these; the occurrence still counts as fired (recovery owns a failed run).
      if (
        !(e instanceof TwinError) ||
        !['ROUTINE_FAILED', 'UNKNOWN_TRIGGER', 'PAYLOAD_CONFLICT'].includes(e.code)
      )
        throw e;
      status = e.code === 'ROUTINE_FAILED' ? 'failed' : 'refused';
      error = e.code;
      recordId = typeof e.details?.recordId === 'string' ? e.details.recordId : null;
    }
    const firedAt = isoAt(engine.world.clock.now());
    await engine.twin.applyWrite({
      operation: 'calendar.fire',
      subjectType: OCCURRENCE_TYPE,
      subjectId: id,
      fields: {
        state: 'fired',
        answer: status,
        error,
        recordId,
        firedAt,
        pending: null,
        leaseUntil: null,
        dueAt: null,
      },
      actor: 'system',
    });
    return {
      triggerId: o.triggerId,
      number: o.number,
      nominalAt: o.nominalAt,
      wallTime: o.wallTime,
      utcOffsetMinutes: o.utcOffsetMinutes,
      dst: o.dst,
      dstRule: o.dstRule,
      catchUp: o.catchUp,
      latenessMs: o.latenessMs,
      dedupeKey: o.dedupeKey,
      status,
      error,
      recordId,
      routineResult,
    };
  }
}
