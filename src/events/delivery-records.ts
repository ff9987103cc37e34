// Delivery records and attempts, and the pure decisions of the send-once protocol: who may
// claim a record, and how an attempt's outcome moves it. Each runs inside an atomic action.
import type { JsonObject } from '../log/json-value.js';
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { commit, skip, type Decision } from '../world/decision.js';
import type { Resource } from '../state/resource.js';
import {
  claimFields,
  DEFAULT_LEASE_MS,
  DUE_FIELD,
  extendFields,
  leaseFree,
  leaseOf,
  releaseFields,
  stillHeld,
} from '../work/lease.js';
import { incompleteReason, packetGap } from './packet.js';
import type { AttemptOutcome } from './retry.js';
import { recordKind } from '../state/record-kind.js';

/**
 * `refused`: the record never held a whole packet (see packet.ts); `cancelled`: its endpoint was
 * disabled or removed before the first attempt. Both terminal, nothing was sent.
 */
export type DeliveryState =
  'queued' | 'sending' | 'retrying' | 'succeeded' | 'failed' | 'unknown' | 'refused' | 'cancelled';
export const DELIVERY_STATES: readonly DeliveryState[] = [
  'queued',
  'sending',
  'retrying',
  'succeeded',
  'failed',
  'unknown',
  'refused',
  'cancelled',
];

export interface DeliveryFields {
  state: DeliveryState;
  attempts: number;
  currentAttempt: string | null;
  nextAttemptAt: string | null;
  acceptedAt: string | null;
  /** When the last attempt finished; null before the first and while one is in flight. */
  finishedAt: string | null;
  lastStatus: number | null;
  lastOutcome: AttemptOutcome | null;
  pack: string;
  eventType: string;
  eventId: string;
  messageId: string;
  endpointKind: string;
  endpointId: string;
  /** Null for an endpoint without a secret whose kind sends such packets unsigned (declaration.ts). */
  secretRef: string | null;
  url: string;
  body: string;
  createdAt: string;
  traceparent: string | null;
  tracestate: string | null;
  /** Why a `refused` or `cancelled` record ended so, e.g. "incomplete_packet: url"; absent otherwise. */
  reason?: string;
  /** The claim (docs/work.md): who sends the current attempt, until when, under which fence. */
  owner?: string | null;
  leaseUntil?: string | null;
  fence?: number;
  /** When someone must act: queued → created, retrying → next attempt, sending → lease end; null when done. */
  dueAt?: string | null;
  /** The endpoint's rate slot booked for attempt `slotAttempt` while it was held (health/pace.ts). */
  slotAt?: string | null;
  slotAttempt?: number | null;
  /**
   * The attempt whose send was held back for being too late for its slot (health/late-send.ts),
   * and how many times: each time it is claimed further ahead of its new slot (pace.ts rebookLead).
   */
  rebookedAttempt?: number | null;
  rebooks?: number | null;
}

export type ClaimKind = 'first' | 'retry' | 'redeliver';

export interface Claim {
  readonly attemptId: string;
  readonly number: number;
  readonly kind: ClaimKind;
  /** Who holds the attempt's claim, under which fence: a finish from anyone else is stale. */
  readonly owner?: string;
  readonly fence?: number;
  /** An operator's redeliver to another URL than the record's (kept on the attempt as `url`). */
  readonly url?: string;
}

export interface ClaimOptions {
  /** Whether the record's endpoint still takes deliveries (exists and is enabled). */
  readonly endpointTakes?: (d: DeliveryFields) => boolean;
  /** The claimant written as the attempt's owner (default "local"). */
  readonly owner?: string;
  readonly leaseMs?: number;
  /** A redeliver's target when it is not the record's URL. */
  readonly url?: string;
}

export function attemptType(recordType: string): string {
  return `${recordType}_attempt`;
}

export function attemptId(deliveryId: string, number: number): string {
  return `${deliveryId}.${number}`;
}

/**
 * Delivery records, typed (src/state/record-kind.ts). A pack names its own record type
 * (`events.recordType`, "delivery" by default); every one has these fields, so the kind's casts
 * serve them all.
 */
export const deliveryKind = recordKind<DeliveryFields>({ type: 'delivery' });

/** A record's fields, typed (or the fields of the entry that created it). */
export function deliveryOf(resource: Pick<Resource, 'fields'>): DeliveryFields {
  return deliveryKind.from(resource.fields);
}

export function readDelivery(
  view: ReadView,
  recordType: string,
  id: string,
): DeliveryFields | undefined {
  const r = view.get(recordType, id);
  return r === undefined || r.deleted ? undefined : deliveryOf(r);
}

/**
 * The claim. A first attempt needs a record that is queued with no attempt ever made; a retry
 * needs one whose policy scheduled it and whose time has come; a redeliver is an operator's
 * explicit request and needs only that no attempt is in flight. Anything else claims nothing.
 */
export function decideClaim(
  view: ReadView,
  recordType: string,
  id: string,
  kind: ClaimKind,
  nowIso: string,
  nowMs: number,
  options: ClaimOptions = {},
): Decision<Claim | undefined> {
  const endpointTakes = options.endpointTakes ?? (() => true);
  const d = readDelivery(view, recordType, id);
  if (d === undefined) return skip(undefined);
  if (kind === 'retry' && d.state === 'retrying' && !endpointTakes(d)) {
    // As vendors do: an endpoint disabled or deleted since the failure gets no more retries.
    return commit(
      {
        operation: `${recordType}.retry_cancel`,
        subjectType: recordType,
        subjectId: id,
        fields: { state: 'failed', nextAttemptAt: null, [DUE_FIELD]: null },
        actor: 'system',
      },
      undefined,
    );
  }
  if (kind === 'first' && d.state === 'queued' && d.attempts === 0 && !endpointTakes(d)) {
    // Disabled or removed after the record was queued: the first attempt is never made.
    return commit(
      {
        operation: `${recordType}.cancel`,
        subjectType: recordType,
        subjectId: id,
        fields: { state: 'cancelled', reason: 'endpoint_disabled', [DUE_FIELD]: null },
        actor: 'system',
      },
      undefined,
    );
  }
  const eligible =
    kind === 'first'
      ? d.state === 'queued' && d.attempts === 0 && d.currentAttempt === null
      : kind === 'retry'
        ? d.state === 'retrying' &&
          d.currentAttempt === null &&
          d.nextAttemptAt !== null &&
          Date.parse(d.nextAttemptAt) <= nowMs
        : d.state !== 'sending' && d.currentAttempt === null;
  if (!eligible) return skip(undefined);
  const gap = packetGap(d);
  if (gap !== undefined) {
    // Refused before the claim: no attempt comes into being and nothing is sent.
    if (d.state === 'refused') return skip(undefined);
    return commit(
      {
        operation: `${recordType}.refuse`,
        subjectType: recordType,
        subjectId: id,
        fields: {
          state: 'refused',
          reason: incompleteReason(gap),
          nextAttemptAt: null,
          [DUE_FIELD]: null,
        },
        actor: 'system',
      },
      undefined,
    );
  }
  const number = d.attempts + 1;
  const aid = attemptId(id, number);
  const owner = options.owner ?? 'local';
  const lease = claimFields(leaseOf(d), owner, nowMs, options.leaseMs ?? DEFAULT_LEASE_MS);
  const writes: Write[] = [
    {
      operation: `${recordType}.claim`,
      subjectType: recordType,
      subjectId: id,
      fields: {
        state: 'sending',
        attempts: number,
        currentAttempt: aid,
        nextAttemptAt: null,
        finishedAt: null,
        ...lease.fields,
      },
      projection: {
        creates: [
          {
            type: attemptType(recordType),
            id: aid,
            fields: {
              recordType,
              delivery: id,
              number,
              kind,
              state: 'sending',
              startedAt: nowIso,
              finishedAt: null,
              status: null,
              reason: null,
              headers: null,
              owner,
              ...(options.url === undefined ? {} : { url: options.url }),
            },
          },
        ],
      },
      actor: kind === 'redeliver' ? 'operator' : 'system',
    },
  ];
  return commit(writes, {
    attemptId: aid,
    number,
    kind,
    owner,
    fence: lease.held.fence,
    ...(options.url === undefined ? {} : { url: options.url }),
  });
}

/**
 * A heartbeat: extends the attempt's lease while its claimant still holds it. False — and nothing
 * written — once the claim is lost (taken over after a lapse), which stops the beats.
 */
export function decideDeliveryHeartbeat(
  view: ReadView,
  recordType: string,
  id: string,
  claim: Claim,
  nowMs: number,
  leaseMs: number,
): Decision<boolean> {
  const d = readDelivery(view, recordType, id);
  if (
    d === undefined ||
    d.state !== 'sending' ||
    d.currentAttempt !== claim.attemptId ||
    !stillHeld(leaseOf(d), {
      owner: claim.owner ?? 'local',
      fence: claim.fence ?? 0,
    })
  )
    return skip(false);
  return commit(
    {
      operation: `${recordType}.heartbeat`,
      subjectType: recordType,
      subjectId: id,
      fields: extendFields(nowMs, leaseMs),
      actor: 'system',
    },
    true,
  );
}

/** Whether a `sending` record's claim may be taken over: its lease lapsed. */
export function sendingLapsed(d: DeliveryFields, nowMs: number): boolean {
  return d.state === 'sending' && leaseOf(d).leaseUntil !== null && leaseFree(leaseOf(d), nowMs);
}

export interface Finish {
  readonly outcome: AttemptOutcome;
  readonly status: number | null;
  /** A classification, never exception text: "http_status", "timeout", "connection_error", "recovered_after_crash", … */
  readonly reason: string;
  readonly headers: Readonly<Record<string, string>> | null;
  /** When the policy grants another attempt, its due time (epoch ms). */
  readonly retryAt?: number;
}

/** What a finish answers when its claimant had lost the claim: refused, observation kept. */
export const STALE = 'stale' as const;

/**
 * Whether an attempt was claimed for this record. Attempts claimed before attempts named their
 * record type carry only the delivery id; their resource type already names the record type.
 */
function attemptBelongs(fields: Readonly<JsonObject>, recordType: string, id: string): boolean {
  return (
    fields.delivery === id && (fields.recordType === undefined || fields.recordType === recordType)
  );
}

/**
 * The finish. It finishes only an attempt still `sending` that was claimed for this record (type
 * and id): anything else finishes nothing. The attempt always records its outcome; the record
 * follows only if that attempt is still its current one, takes the attempt's `finishedAt`, and
 * `acceptedAt` is set on the first success and never erased.
 */
export function decideAttemptFinish(
  view: ReadView,
  recordType: string,
  id: string,
  claim: Claim,
  finish: Finish,
  nowIso: string,
): Decision<DeliveryState | undefined | typeof STALE> {
  const attempt = view.get(attemptType(recordType), claim.attemptId);
  if (attempt === undefined || attempt.deleted || !attemptBelongs(attempt.fields, recordType, id))
    return skip(undefined);
  if (attempt.fields.state !== 'sending') {
    // Someone finished this attempt first: its claimant lost the claim (the lease lapsed and it
    // was taken over). State does not move; what this claimant saw is kept.
    if (claim.owner === undefined || attempt.fields.owner !== claim.owner) return skip(undefined);
    if (attempt.fields.lateObservation !== undefined) return skip(STALE);
    return commit(
      {
        operation: `${attemptType(recordType)}.late_observation`,
        subjectType: attemptType(recordType),
        subjectId: claim.attemptId,
        fields: {
          lateObservation: {
            owner: claim.owner,
            observedAt: nowIso,
            outcome: finish.outcome,
            status: finish.status,
            reason: finish.reason,
            headers: finish.headers as JsonObject | null,
          },
        },
        actor: 'system',
      },
      STALE,
    );
  }
  const d = readDelivery(view, recordType, id);
  const attemptFields: JsonObject = {
    state: finish.outcome,
    finishedAt: nowIso,
    status: finish.status,
    reason: finish.reason,
    headers: finish.headers as JsonObject | null,
  };
  if (d === undefined || d.currentAttempt !== claim.attemptId) {
    return commit(
      {
        operation: `${attemptType(recordType)}.finish`,
        subjectType: attemptType(recordType),
        subjectId: claim.attemptId,
        fields: attemptFields,
        actor: 'system',
      },
      undefined,
    );
  }
  const state: DeliveryState = finish.retryAt !== undefined ? 'retrying' : finish.outcome;
  const fields: JsonObject = {
    state,
    currentAttempt: null,
    lastStatus: finish.status,
    lastOutcome: finish.outcome,
    nextAttemptAt: finish.retryAt !== undefined ? new Date(finish.retryAt).toISOString() : null,
    finishedAt: nowIso,
    ...releaseFields(finish.retryAt !== undefined ? new Date(finish.retryAt).toISOString() : null),
  };
  if (finish.outcome === 'succeeded' && d.acceptedAt === null) fields.acceptedAt = nowIso;
  return commit(
    {
      operation: `${recordType}.finish`,
      subjectType: recordType,
      subjectId: id,
      fields,
      projection: {
        updates: [{ type: attemptType(recordType), id: claim.attemptId, fields: attemptFields }],
      },
      actor: 'system',
    },
    state,
  );
}
