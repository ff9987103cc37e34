// The trigger side of a walk report: every decision the engine recorded (triggered, filtered,
// failed, duplicate, in progress, refused) in the order it was received, and every calendar
// occurrence with its local wall time — read from the trigger twin, so replays agree.
import type { JsonValue } from '../log/json-value.js';
import { OCCURRENCE_TYPE } from '../triggers/calendar/subscription.js';
import { DEFAULT_TRIGGER_TWIN } from '../triggers/defaults.js';
import {
  RECEIPT_TYPE,
  receiptOf,
  RECORD_TYPE,
  triggerRecordOf,
} from '../triggers/trigger-records.js';
import type { World } from '../world/world.js';

export interface TriggerDecision {
  /** Seq of the write that received it, in the trigger twin. */
  readonly seq: number;
  readonly at: string;
  /** A record's state (triggered, filtered, failed, processing) or a receipt's status (duplicate, in_progress, refused). */
  readonly status: string;
  /** "webhook/stripe", "calendar/cron", … */
  readonly source: string;
  readonly triggerId: string | null;
  readonly dedupeKey: string | null;
  /** The vendor's event type, for webhooks. */
  readonly eventType: string | null;
  readonly routineId: string | null;
  /** Runs so far (records only). */
  readonly attempts: number | null;
  readonly result: JsonValue;
  /** Error code of a failed run or a refusal. */
  readonly error: string | null;
}

export interface OccurrenceReport {
  readonly triggerId: string;
  readonly number: number;
  readonly nominalAt: string;
  /** Local wall time in the subscription's zone. */
  readonly wallTime: string;
  readonly timezone: string;
  readonly utcOffsetMinutes: number;
  readonly state: string;
  /** What ingest answered when it fired. */
  readonly answer: string | null;
}

export interface TriggerReport {
  readonly decisions: TriggerDecision[];
  readonly occurrences: OccurrenceReport[];
}

function eventTypeOf(payload: JsonValue): string | null {
  const t =
    payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? payload.eventType
      : undefined;
  return typeof t === 'string' ? t : null;
}

export async function triggerReport(
  world: World,
  twinName = DEFAULT_TRIGGER_TWIN,
): Promise<TriggerReport> {
  if (!(await world.twinNames()).includes(twinName)) return { decisions: [], occurrences: [] };
  const twin = world.twin(twinName);
  const decisions: TriggerDecision[] = [];
  for (const r of await twin.list(RECORD_TYPE)) {
    if (r.deleted) continue;
    const f = triggerRecordOf(r);
    decisions.push({
      seq: f.receivedSeq,
      at: f.receivedAt,
      status: f.state,
      source: `${f.envelope.source.kind}/${f.envelope.source.provider}`,
      triggerId: f.envelope.triggerId,
      dedupeKey: f.envelope.dedupeKey,
      eventType: eventTypeOf(f.envelope.payload),
      routineId: f.routineId,
      attempts: f.attempts,
      result: f.result ?? null,
      error: f.error,
    });
  }
  for (const r of await twin.list(RECEIPT_TYPE)) {
    if (r.deleted) continue;
    const f = receiptOf(r);
    decisions.push({
      seq: f.receivedSeq,
      at: f.receivedAt,
      status: f.status,
      source: `${f.sourceKind ?? '?'}/${f.provider ?? '?'}`,
      triggerId: f.triggerId,
      dedupeKey: f.dedupeKey,
      eventType: null,
      routineId: null,
      attempts: null,
      result: null,
      error: f.code,
    });
  }
  decisions.sort((a, b) => a.seq - b.seq);
  const occurrences = (await twin.list(OCCURRENCE_TYPE))
    .filter((r) => !r.deleted)
    .map((r) => r.fields as Record<string, JsonValue>)
    .map((o) => ({
      triggerId: String(o.triggerId),
      number: Number(o.number),
      nominalAt: String(o.nominalAt),
      wallTime: String(o.wallTime),
      timezone: String(o.timezone),
      utcOffsetMinutes: Number(o.utcOffsetMinutes),
      state: String(o.state),
      answer: typeof o.answer === 'string' ? o.answer : null,
    }))
    .sort((a, b) =>
      a.nominalAt < b.nominalAt
        ? -1
        : a.nominalAt > b.nominalAt
          ? 1
          : a.triggerId < b.triggerId
            ? -1
            : 1,
    );
  return { decisions, occurrences };
}

function brief(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function offset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

export function formatTriggers(report: TriggerReport): string[] {
  if (report.decisions.length === 0 && report.occurrences.length === 0) return [];
  const out = [`Trigger decisions: ${report.decisions.length} (in the order received)`];
  for (const d of report.decisions) {
    const what = d.eventType === null ? (d.dedupeKey ?? '-') : `${d.eventType} (${d.dedupeKey})`;
    let outcome = d.status;
    if (d.status === 'triggered')
      outcome += ` → ${d.routineId}${d.attempts !== null && d.attempts > 1 ? ` on run ${d.attempts}` : ''}: ${brief(d.result)}`;
    else if (d.error !== null) outcome += ` (${d.error})`;
    out.push(`  ${d.source} ${d.triggerId ?? '-'} ${what}: ${outcome}`);
  }
  if (report.occurrences.length > 0) {
    out.push('Calendar occurrences:');
    for (const o of report.occurrences) {
      out.push(
        `  ${o.triggerId} #${o.number} ${o.wallTime} ${o.timezone} (${offset(o.utcOffsetMinutes)}) = ${o.nominalAt}: ${o.state}${o.answer === null ? '' : `, ${o.answer}`}`,
      );
    }
  }
  return out;
}
