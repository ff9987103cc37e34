// What a walk did, as data: every delivery with its numbered attempts, every receiver's tally,
// the trigger decisions, and each twin's state hash — all read from the log and the world clock,
// so two runs of one walk give the same report. Wall-clock timings sit apart, under `wall`.
import { attemptId, attemptType, deliveryOf } from '../events/delivery-records.js';
import { packTwinName, registeredPacks } from '../events/pack-registry.js';
import { headerValues } from '../events/signing/scheme.js';
import type { World } from '../world/world.js';
import type { FaultReceiver } from './fault-receiver.js';
import { RECEIVERS_PREFIX } from './receiver-transport.js';
import type { TriggerReport } from './trigger-report.js';

export interface AttemptReport {
  readonly number: number;
  /** first, retry or redeliver. */
  readonly kind: string;
  readonly state: string;
  readonly status: number | null;
  /** http_status, timeout, connection_reset, … */
  readonly reason: string | null;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  /** The traceparent this attempt's request carried (a hop of the writer's trace). */
  readonly traceparent: string | null;
}

export interface DeliveryReport {
  readonly pack: string;
  readonly id: string;
  readonly eventType: string;
  readonly eventId: string;
  readonly url: string;
  /** The walk receiver the URL names, if it names one. */
  readonly receiver: string | null;
  readonly state: string;
  readonly acceptedAt: string | null;
  readonly nextAttemptAt: string | null;
  /** The trace of the write that caused it, when that write ran under a traceparent. */
  readonly traceId: string | null;
  readonly createdAt: string;
  readonly attempts: AttemptReport[];
}

export interface ReceiverReport {
  readonly name: string;
  readonly url: string;
  readonly requests: number;
  readonly accepted: number;
  readonly unanswered: number;
  readonly acceptedButUnknown: number;
  /** What the profile answered, in order. */
  readonly answers: string[];
}

export interface WalkReport {
  readonly seed: string;
  readonly clock: { readonly start: string; readonly now: string };
  readonly deliveries: DeliveryReport[];
  readonly receivers: ReceiverReport[];
  readonly triggers: TriggerReport;
  readonly hashes: Record<string, string>;
  readonly entries: number;
  /** Beside the log, never in it: real time the walk and each attempt's request took. */
  readonly wall: { readonly totalMs: number; readonly attemptMs: Record<string, number> };
}

function traceIdOf(traceparent: string | null | undefined): string | null {
  return typeof traceparent === 'string' ? (traceparent.split('-')[1] ?? null) : null;
}

function header(headers: unknown, name: string): string | null {
  if (headers === null || typeof headers !== 'object') return null;
  return headerValues(headers as Record<string, string>, name)[0] ?? null;
}

/** Every delivery of every pack, in world-clock order of their records. */
export async function deliveryReports(world: World): Promise<DeliveryReport[]> {
  const out: (DeliveryReport & { seq: number; order: number })[] = [];
  let order = 0;
  for (const pack of registeredPacks(world).values()) {
    order++;
    const decl = pack.events;
    if (decl === undefined) continue;
    const twinName = packTwinName(pack);
    if (!(await world.twinNames()).includes(twinName)) continue;
    const twin = world.twin(twinName);
    const create = `${decl.recordType}.create`;
    for (const entry of await twin.entries()) {
      if (entry.operation !== create || entry.subjectType !== decl.recordType) continue;
      const record = await twin.get(decl.recordType, entry.subjectId);
      if (record === undefined || record.deleted) continue;
      const d = deliveryOf(record);
      const attempts: AttemptReport[] = [];
      for (let n = 1; n <= d.attempts; n++) {
        const a = (await twin.get(attemptType(decl.recordType), attemptId(record.id, n)))?.fields;
        if (a === undefined) continue;
        attempts.push({
          number: n,
          kind: String(a.kind),
          state: String(a.state),
          status: typeof a.status === 'number' ? a.status : null,
          reason: typeof a.reason === 'string' ? a.reason : null,
          startedAt: String(a.startedAt),
          finishedAt: typeof a.finishedAt === 'string' ? a.finishedAt : null,
          traceparent: header(a.headers, 'traceparent'),
        });
      }
      out.push({
        pack: pack.name,
        id: record.id,
        eventType: d.eventType,
        eventId: d.eventId,
        url: d.url,
        receiver: d.url.startsWith(RECEIVERS_PREFIX)
          ? decodeURIComponent(d.url.slice(RECEIVERS_PREFIX.length).split(/[/?#]/)[0]!)
          : null,
        state: d.state,
        acceptedAt: d.acceptedAt,
        nextAttemptAt: d.nextAttemptAt,
        traceId: traceIdOf(d.traceparent),
        createdAt: d.createdAt,
        attempts,
        seq: entry.seq,
        order,
      });
    }
  }
  // Same instant: in pack registration order, then as written.
  out.sort((a, b) =>
    a.createdAt < b.createdAt
      ? -1
      : a.createdAt > b.createdAt
        ? 1
        : a.order - b.order || a.seq - b.seq,
  );
  return out.map(({ seq: _seq, order: _order, ...d }) => d);
}

export function receiverReports(receivers: Iterable<FaultReceiver>): ReceiverReport[] {
  return [...receivers].map((r) => ({
    name: r.name,
    url: r.url,
    ...r.stats(),
    answers: r.requests.map((q) => q.answer),
  }));
}
