// Delivery records and attempts, and the pure decisions of the send-once protocol: who may
// claim a record, and how an attempt's outcome moves it. Each runs inside an atomic action.
import type { JsonObject } from '../log/json-value.js';
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { commit, skip, type Decision } from '../world/decision.js';
import { incompleteReason, packetGap } from './packet.js';
import type { AttemptOutcome } from './retry.js';

/** `refused`: the record never held a whole packet (see packet.ts); terminal, nothing was sent. */
export type DeliveryState =
  'queued' | 'sending' | 'retrying' | 'succeeded' | 'failed' | 'unknown' | 'refused';
export const DELIVERY_STATES: readonly DeliveryState[] = [
  'queued',
  'sending',
  'retrying',
  'succeeded',
  'failed',
  'unknown',
  'refused',
];

/** Index every delivery record type carries, so recovery finds records by state, never by scan. */
export const STATE_INDEX = 'twinworld:state';

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
  secretRef: string;
  url: string;
  body: string;
  createdAt: string;
  traceparent: string | null;
  tracestate: string | null;
  /** Why a `refused` record was refused, e.g. "incomplete_packet: url"; absent otherwise. */
  reason?: string;
}

export type ClaimKind = 'first' | 'retry' | 'redeliver';

export interface Claim {
  readonly attemptId: string;
  readonly number: number;
  readonly kind: ClaimKind;
}

export function attemptType(recordType: string): string {
  return `${recordType}_attempt`;
}

export function attemptId(deliveryId: string, number: number): string {
  return `${deliveryId}.${number}`;
}

export function readDelivery(
  view: ReadView,
  recordType: string,
  id: string,
): DeliveryFields | undefined {
  const r = view.get(recordType, id);
  return r === undefined || r.deleted ? undefined : (r.fields as unknown as DeliveryFields);
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
  endpointTakes: (d: DeliveryFields) => boolean = () => true,
): Decision<Claim | undefined> {
  const d = readDelivery(view, recordType, id);
  if (d === undefined) return skip(undefined);
  if (kind === 'retry' && d.state === 'retrying' && !endpointTakes(d)) {
    // As vendors do: an endpoint disabled or deleted since the failure gets no more retries.
    return commit(
      {
        operation: `${recordType}.retry_cancel`,
        subjectType: recordType,
        subjectId: id,
        fields: { state: 'failed', nextAttemptAt: null },
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
  const gap = packetGap(d as unknown as Record<string, unknown>);
  if (gap !== undefined) {
    // Refused before the claim: no attempt comes into being and nothing is sent.
    if (d.state === 'refused') return skip(undefined);
    return commit(
      {
        operation: `${recordType}.refuse`,
        subjectType: recordType,
        subjectId: id,
        fields: { state: 'refused', reason: incompleteReason(gap), nextAttemptAt: null },
        actor: 'system',
      },
      undefined,
    );
  }
  const number = d.attempts + 1;
  const aid = attemptId(id, number);
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
            },
          },
        ],
      },
      actor: kind === 'redeliver' ? 'operator' : 'system',
    },
  ];
  return commit(writes, { attemptId: aid, number, kind });
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
export function decideFinish(
  view: ReadView,
  recordType: string,
  id: string,
  claim: Claim,
  finish: Finish,
  nowIso: string,
): Decision<DeliveryState | undefined> {
  const attempt = view.get(attemptType(recordType), claim.attemptId);
  if (
    attempt === undefined ||
    attempt.deleted ||
    attempt.fields.state !== 'sending' ||
    !attemptBelongs(attempt.fields, recordType, id)
  )
    return skip(undefined);
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
