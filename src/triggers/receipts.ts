// Receipts: what the trigger twin keeps of an envelope that claimed nothing (a duplicate, one in
// progress, a conflict) and of a refused envelope its source vouched for.
import { TwinError } from '../errors.js';
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { TriggerEnvelope } from './envelope.js';

import {
  envelopeIdentity,
  recordId,
  receiptId,
  RECEIPT_TYPE,
  receiptKind,
  type ReceiptFields,
  type ReceiptStatus,
} from './trigger-records.js';

function receiptWrite(operation: string, fields: ReceiptFields): Write {
  return {
    operation,
    subjectType: RECEIPT_TYPE,
    subjectId: '',
    fields: receiptKind.json(fields),
    actor: 'system',
  };
}

/**
 * The receipt of an envelope's decision that claimed nothing, named after the seq of the entry
 * that writes it. Shared by the direct and the deferred receive.
 */
export function envelopeReceipt(
  view: ReadView,
  nowIso: string,
  env: TriggerEnvelope,
  id: string,
  status: ReceiptStatus,
  extra: Partial<ReceiptFields> = {},
): Write {
  const seq = view.head + 1;
  return {
    ...receiptWrite(status === 'refused' ? 'trigger.conflict' : `trigger.${status}`, {
      status,
      ...envelopeIdentity(env),
      recordId: id,
      code: null,
      path: null,
      message: null,
      bodyBytes: null,
      receivedAt: nowIso,
      receivedSeq: seq,
      ...extra,
    }),
    subjectId: receiptId(seq),
  };
}

export interface Refusal {
  readonly tenantId: string;
  readonly scopeId?: string | null;
  readonly sourceKind?: string | null;
  readonly provider?: string | null;
  readonly triggerId?: string | null;
  readonly eventId?: string | null;
  readonly dedupeKey?: string | null;
  readonly payloadHash?: string | null;
  readonly bodyBytes?: number | null;
  readonly error: TwinError;
}

/**
 * A refused envelope that the source vouched for (a route missing for a verified packet), kept as
 * a receipt with its key. Unauthenticated refusals are counted instead: refusal-windows.ts.
 */
export function refusalWrite(view: ReadView, nowIso: string, refusal: Refusal): Write {
  const e = refusal.error;
  return {
    ...receiptWrite('trigger.refuse', {
      status: 'refused',
      tenantId: refusal.tenantId,
      scopeId: refusal.scopeId ?? null,
      sourceKind: refusal.sourceKind ?? null,
      provider: refusal.provider ?? null,
      triggerId: refusal.triggerId ?? null,
      eventId: refusal.eventId ?? null,
      dedupeKey: refusal.dedupeKey ?? null,
      payloadHash: refusal.payloadHash ?? null,
      recordId: refusal.dedupeKey == null ? null : recordId(refusal.tenantId, refusal.dedupeKey),
      code: e.code,
      path: e.path ?? null,
      message: e.message,
      bodyBytes: refusal.bodyBytes ?? null,
      receivedAt: nowIso,
      receivedSeq: view.head + 1,
    }),
    subjectId: receiptId(view.head + 1),
  };
}
