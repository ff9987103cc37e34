// What one appended entry means to a person watching: a delivery record queued or settled, an
// attempt finished, a trigger answered, or any other write. `twinworld tail` prints it as a line
// or as JSON. See docs/console.md.
import { attemptType } from '../events/delivery-records.js';
import { packTwinName, registeredPacks } from '../events/pack-registry.js';
import type { Entry } from '../log/write.js';
import type { World } from '../world/world.js';

type EntryKind = 'entry' | 'delivery' | 'attempt' | 'trigger';

export interface DescribedEntry {
  readonly kind: EntryKind;
  readonly twin: string;
  readonly seq: number;
  readonly recordedAt: string;
  readonly operation: string;
  readonly subjectType: string;
  readonly subjectId: string;
  /** Delivery: its state; attempt: its outcome; trigger: its answer. */
  readonly state?: string;
  readonly status?: number | null;
  readonly eventType?: string;
  readonly url?: string;
  /** For an attempt: its id, and the delivery it belongs to with the state it left it in. */
  readonly attempt?: string;
  readonly delivery?: string;
  readonly deliveryState?: string | undefined;
  readonly text: string;
}

const TRIGGER_TYPES = new Set(['trigger_record', 'trigger_receipt']);

/** The record types of the packs registered in `world`, by twin. */
export function recordTypes(world: World): Map<string, string> {
  const out = new Map<string, string>();
  for (const pack of registeredPacks(world).values())
    if (pack.events !== undefined) out.set(packTwinName(pack), pack.events.recordType);
  return out;
}

/**
 * The attempt an entry finished, with the fields it wrote: a delivery's finish carries it as a
 * projected update of the attempt; a finish the record no longer points at is the attempt's own
 * entry. Undefined for every other entry.
 */
export function finishedAttempt(
  e: Entry,
  recordType: string,
): { id: string; fields: Readonly<Record<string, unknown>> } | undefined {
  const type = attemptType(recordType);
  if (e.subjectType === type && e.operation === `${type}.finish`)
    return { id: e.subjectId, fields: e.fields ?? {} };
  if (e.subjectType !== recordType || e.operation !== `${recordType}.finish`) return undefined;
  const update = e.projection?.updates?.find((u) => u.type === type);
  return update === undefined ? undefined : { id: update.id, fields: update.fields ?? {} };
}

export function describeEntry(e: Entry, records: ReadonlyMap<string, string>): DescribedEntry {
  const base = {
    twin: e.twin,
    seq: e.seq,
    recordedAt: e.recordedAt,
    operation: e.operation,
    subjectType: e.subjectType,
    subjectId: e.subjectId,
  };
  const f = e.fields ?? {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const recordType = records.get(e.twin);
  const where = `${e.twin} #${e.seq}`;
  const finished = recordType === undefined ? undefined : finishedAttempt(e, recordType);
  if (finished !== undefined) {
    const status = typeof finished.fields.status === 'number' ? finished.fields.status : null;
    const outcome = str(finished.fields.state) ?? 'unknown';
    const reason = str(finished.fields.reason);
    return {
      ...base,
      kind: 'attempt',
      state: outcome,
      status,
      attempt: finished.id,
      ...(e.subjectType === recordType
        ? { delivery: e.subjectId, deliveryState: str(f.state) }
        : {}),
      text: `${where}  attempt ${finished.id} ${outcome} ${status ?? '-'}${reason === undefined ? '' : ` (${reason})`}${e.subjectType === recordType ? ` → delivery ${str(f.state)}` : ''}`,
    };
  }
  if (recordType !== undefined && e.subjectType === recordType && str(f.state) !== undefined) {
    const eventType = str(f.eventType);
    const status = typeof f.lastStatus === 'number' ? f.lastStatus : null;
    return {
      ...base,
      kind: 'delivery',
      state: str(f.state)!,
      status,
      ...(eventType === undefined ? {} : { eventType }),
      ...(str(f.url) === undefined ? {} : { url: str(f.url)! }),
      text: `${where}  delivery ${e.subjectId} ${str(f.state)}${eventType === undefined ? '' : ` ${eventType}`}${status === null ? '' : ` ${status}`}${str(f.url) === undefined ? '' : ` → ${str(f.url)}`}`,
    };
  }
  if (TRIGGER_TYPES.has(e.subjectType) && str(f.status) !== undefined) {
    const triggerId = str(f.triggerId);
    return {
      ...base,
      kind: 'trigger',
      state: str(f.status)!,
      text: `${where}  trigger ${triggerId ?? e.subjectId} ${str(f.status)}${str(f.code) === undefined ? '' : ` ${str(f.code)}`}`,
    };
  }
  return {
    ...base,
    kind: 'entry',
    text: `${where}  ${e.operation} ${e.subjectType}/${e.subjectId}${e.actor === '' ? '' : ` by ${e.actor}`}`,
  };
}
