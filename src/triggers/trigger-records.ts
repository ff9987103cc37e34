// Trigger records, receipts and replay guards as stored in the trigger twin: their types, ids,
// record kinds and readers. The decisions over them live beside this file: receive.ts (receive),
// runs.ts (start, heartbeat, finish, recover) and receipts.ts (receipts and refusals).
import { sha256Hex } from '../log/canonical-json.js';
import type { JsonValue } from '../log/json-value.js';
import type { ProjectedResource } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import type { TriggerEnvelope } from './envelope.js';
import { recordKind } from '../state/record-kind.js';

export const RECORD_TYPE = 'trigger_record';
export const RECEIPT_TYPE = 'trigger_receipt';
/** What a key's signed content was first received as, while a replay of it counts as one. */
export const REPLAY_GUARD_TYPE = 'trigger_replay_guard';
/** Records in `processing` or `failed`, keyed "<state>/<tenant>": recovery finds them without a scan. */
export const RECOVERY_INDEX = 'twinworld:recovery';
export const TENANT_INDEX = 'twinworld:tenant';

export type RecordState = 'received' | 'processing' | 'triggered' | 'filtered' | 'failed';

export interface RecordFields {
  readonly envelope: TriggerEnvelope;
  readonly state: RecordState;
  readonly routineId: string;
  readonly runKey: string;
  readonly attempts: number;
  readonly currentAttempt: number | null;
  readonly receivedAt: string;
  readonly receivedSeq: number;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly result: JsonValue;
  /** An error code (never exception text) when the last run failed. */
  readonly error: string | null;
  readonly recovery: string | null;
  /** The worker holding the run's claim, and until when (docs/work.md); absent on older records. */
  readonly owner?: string | null;
  readonly leaseUntil?: string | null;
  readonly fence?: number;
  readonly dueAt?: string | null;
  /** Repeats of this delivery counted on it instead of a receipt each (repeat-windows.ts). */
  readonly repeats?: RepeatTotals;
}

/** How a repeat of a known delivery came: the same key, its signed content under another key, or while it runs. */
export type RepeatKind = 'duplicate' | 'replay' | 'in_progress';

export interface RepeatTotals {
  readonly count: number;
  readonly byKind: Readonly<Partial<Record<RepeatKind, number>>>;
  readonly firstAt: string;
  readonly lastAt: string;
  readonly lastKind: RepeatKind;
  readonly lastDedupeKey: string;
}

export type ReceiptStatus = 'duplicate' | 'in_progress' | 'refused';

/** The record of a decision that claimed nothing: a duplicate, an in-progress answer, a refusal. */
export interface ReceiptFields {
  readonly status: ReceiptStatus;
  readonly tenantId: string;
  readonly scopeId: string | null;
  readonly sourceKind: string | null;
  readonly provider: string | null;
  readonly triggerId: string | null;
  readonly eventId: string | null;
  readonly dedupeKey: string | null;
  readonly payloadHash: string | null;
  readonly recordId: string | null;
  readonly code: string | null;
  readonly path: string | null;
  readonly message: string | null;
  /** Size of a refused webhook body: the body itself is never recorded. */
  readonly bodyBytes: number | null;
  readonly receivedAt: string;
  readonly receivedSeq: number;
}

export function recordId(tenantId: string, dedupeKey: string): string {
  return `trg_${sha256Hex(`${tenantId}\u0000${dedupeKey}`)}`;
}

/** Receipts are named after the seq of the entry that writes them: unique, ordered, no id draw. */
export function receiptId(seq: number): string {
  return `rcpt_${String(seq).padStart(12, '0')}`;
}

export function replayGuardId(tenantId: string, key: string): string {
  return `rpl_${sha256Hex(`${tenantId}\u0000${key}`)}`;
}

/** Signed content of a packet whose delivery id is not signed: a second id for it is a replay. */
export interface ReplayGuard {
  readonly key: string;
  readonly windowMs: number;
}

export interface ReplayGuardFields {
  readonly tenantId: string;
  readonly key: string;
  readonly recordId: string;
  readonly dedupeKey: string;
  readonly firstSeenAt: string;
  readonly expiresAt: string;
}

export function recoveryKey(state: 'processing' | 'failed', tenantId: string): string {
  return `${state}/${tenantId}`;
}

/** Trigger records, receipts and replay guards, typed (src/state/record-kind.ts). */
export const triggerRecordKind = recordKind<RecordFields>({ type: RECORD_TYPE });
export const receiptKind = recordKind<ReceiptFields>({ type: RECEIPT_TYPE });
export const replayGuardKind = recordKind<ReplayGuardFields>({ type: REPLAY_GUARD_TYPE });

/** A trigger record's fields, typed. */
export function triggerRecordOf(resource: Resource): RecordFields {
  return triggerRecordKind.of(resource);
}

/** A receipt's fields, typed. */
export function receiptOf(resource: Resource): ReceiptFields {
  return receiptKind.of(resource);
}

/** A replay guard's fields, typed. */
export function replayGuardOf(resource: Resource): ReplayGuardFields {
  return replayGuardKind.of(resource);
}

export function readRecord(view: ReadView, id: string): RecordFields | undefined {
  const r = view.get(RECORD_TYPE, id);
  return r === undefined || r.deleted ? undefined : triggerRecordOf(r);
}

export function readReplayGuard(view: ReadView, id: string): ReplayGuardFields | undefined {
  const r = view.get(REPLAY_GUARD_TYPE, id);
  return r === undefined || r.deleted ? undefined : replayGuardOf(r);
}

/** Who claims a run, and for how long before it must heartbeat (docs/work.md). */
export interface RunClaimant {
  readonly owner: string;
  readonly leaseMs: number;
}

/** What identifies an envelope in a receipt or refusal: everything but its payload. */
export function envelopeIdentity(env: TriggerEnvelope) {
  return {
    tenantId: env.tenantId,
    scopeId: env.scopeId,
    sourceKind: env.source.kind,
    provider: env.source.provider,
    triggerId: env.triggerId,
    eventId: env.eventId,
    dedupeKey: env.dedupeKey,
    payloadHash: env.payloadHash,
  };
}
