// The calendar trigger source: cron subscriptions in IANA zones, fired when the host calls
// tick(). Each due occurrence is numbered, identified by trigger + nominal instant and recorded
// (fired or missed) in the same commit that moves the cursor, so a repeated or concurrent tick
// never fires one twice and a catch-up after downtime never drops one silently.
import { checkOptionKeys, describeValue, TwinError } from '../../errors.js';
import type { JsonValue } from '../../log/json-value.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip } from '../../world/decision.js';
import { DUE_FIELD, DUE_INDEX } from '../../work/lease.js';
import type { SourceHost } from '../source.js';
import { checkTenantId, checkTriggerId } from '../envelope.js';
import type { TriggerSource } from '../source.js';
import { authorize, contextArgument, type TriggerContext } from '../tenant-context.js';
import { DST_RULES, nextOccurrence } from '../cron/occurrences.js';
import { occurrenceId } from '../cron/shared-occurrence.js';
import {
  BY_TENANT_INDEX,
  OCCURRENCE_TYPE,
  PENDING_INDEX,
  SUBSCRIPTION_TYPE,
  subscriptionId,
  subscriptionOf,
  validateSubscription,
  type CalendarSubscription,
  type SubscriptionFields,
} from './subscription.js';
import { subscriptionKind } from './subscription.js';

import {
  occurrenceKind,
  occurrenceOf,
  type OccurrenceFields,
  type FiredOccurrence,
  type TickAnswer,
  type ConfigureAnswer,
} from './occurrence-record.js';
import { decideDue, nextDueAt, envelopeOf, checkNow } from './decide-due.js';
/** How long a tick owns the occurrences it decided to fire before another tick may fire them. */
export const DEFAULT_PENDING_LEASE_MS = 60_000;

export class CalendarSource implements TriggerSource {
  readonly name: string;
  readonly pendingLeaseMs: number;
  private engine: SourceHost | undefined;

  constructor(options: { name?: string; pendingLeaseMs?: number } = {}) {
    checkOptionKeys('new CalendarSource(options)', options, ['name', 'pendingLeaseMs']);
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === ''))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `new CalendarSource(options): name must be a non-empty string, got ${describeValue(options.name)}`,
        { path: 'options.name' },
      );
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
    // Called by engine.start(); anything else was a TypeError reading its twin.
    if (
      typeof (engine as Partial<SourceHost> | null | undefined)?.twin?.declareIndex !== 'function'
    )
      throw new TwinError(
        'INVALID_ARGUMENT',
        `calendar.connect(engine): engine must be a TriggerEngine (register the source with engine.registerSource(calendar) and engine.start() connects it), got ${describeValue(engine)}`,
        { path: 'engine' },
      );
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
    // Ids that are no text answered "no subscription", as if they were merely unknown.
    checkTenantId(tenantId, 'tenantId', 'INVALID_ARGUMENT');
    checkTriggerId(triggerId, 'triggerId', 'INVALID_ARGUMENT');
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
   * decided but never got to ingest (ingest dedupes, so that is safe). An occurrence this tick lost
   * meanwhile (its lease lapsed and another tick reclaimed and fired it) is not in `fired`: the
   * other tick's record stands, and what this one saw is kept on it as `lateObservation`. A tenant context needs
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
      const fired =
        claimed === undefined ? undefined : await this.fire(engine, leftover.id, claimed, acting);
      if (fired !== undefined) answer.fired.push(fired);
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
        for (const f of plan.fire) {
          const id = occurrenceId(f.tenantId, f.triggerId, f.nominalAt);
          const fired = await this.fire(engine, id, f, acting);
          if (fired !== undefined) answer.fired.push(fired);
        }
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
      const fence = (o.fence ?? 0) + 1;
      return commit(
        [
          {
            operation: 'calendar.reclaim',
            subjectType: OCCURRENCE_TYPE,
            subjectId: id,
            fields: { leaseUntil, dueAt: leaseUntil, fence },
            actor: 'system',
          },
        ],
        { ...o, leaseUntil, fence },
      );
    });
    return result;
  }

  /** Fires one occurrence this tick holds; undefined when it lost it meanwhile (see below). */
  private async fire(
    engine: SourceHost,
    id: string,
    o: OccurrenceFields,
    context: TriggerContext,
  ): Promise<FiredOccurrence | undefined> {
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
    const fence = o.fence ?? 0;
    // Recorded only while this tick still holds the occurrence: one whose lease lapsed and was
    // reclaimed and fired by another tick keeps what this one saw beside it, and does not move.
    const { result: current } = await engine.twin.applyAtomic((view) => {
      const r = view.get(OCCURRENCE_TYPE, id);
      const now = r === undefined || r.deleted ? undefined : occurrenceOf(r);
      if (now === undefined) return skip(false);
      if (now.state !== 'pending' || (now.fence ?? 0) !== fence) {
        const lateObservation = { fence, answer: status, error, recordId, observedAt: firedAt };
        return commit(
          [
            {
              operation: 'calendar.fire_superseded',
              subjectType: OCCURRENCE_TYPE,
              subjectId: id,
              fields: occurrenceKind.json({ lateObservation }),
              actor: 'system',
            },
          ],
          false,
        );
      }
      return commit(
        [
          {
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
          },
        ],
        true,
      );
    });
    if (!current) return undefined;
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
