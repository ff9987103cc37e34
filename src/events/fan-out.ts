// Fan-out in the same commit: for each event a write produces and each endpoint that takes it,
// one queued delivery record is appended with the write — a transactional outbox, so a crash can
// never leave a committed write whose webhooks were forgotten.
import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject, JsonValue } from '../log/json-value.js';
import type { Entry, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import { isoAt } from '../world/clock.js';
import type { IdSource } from '../world/ids.js';
import type { Twin } from '../world/twin.js';
import type { EndpointKind, EventRule, EventsDeclaration, RenderContext } from './declaration.js';
import { endpointMatches } from './endpoint-match.js';
import { filterKeysFor, filterTakes } from './filter.js';
import { deliveryKind, type DeliveryFields } from './delivery-records.js';
import { renderTemplate } from './render.js';
import { captureTrace } from './trace.js';
import { deliveryRecordId } from './delivery-id.js';
import { claimWrites, mayTake } from './send-scope.js';

/** Index on each endpoint kind's event filter field. */
export const EVENTS_INDEX = 'twinworld:events';

export function newId(ids: IdSource, prefix: string): string {
  if (prefix === 'uuid') return ids.uuid();
  return `${prefix}${ids.vendorId('', 24)}`;
}

function changedPrevious(before: Resource | undefined, entry: Entry): JsonObject | undefined {
  if (before === undefined || before.deleted || entry.fields === undefined) return undefined;
  const previous: JsonObject = {};
  for (const [key, value] of Object.entries(entry.fields)) {
    const old = before.fields[key];
    if (canonicalJson(old ?? null) !== canonicalJson(value))
      previous[key] = (old ?? null) as JsonValue;
  }
  return Object.keys(previous).length === 0 ? undefined : previous;
}

interface TakingEndpoint {
  readonly kind: EndpointKind;
  readonly endpoint: Resource;
}

/** Endpoints that take `eventType`, found through the filter index. */
function endpointsFor(
  view: ReadView,
  decl: EventsDeclaration,
  eventType: string,
  kinds: readonly string[] | undefined,
): TakingEndpoint[] {
  const out: TakingEndpoint[] = [];
  const taking = decl.endpoints.filter((kind) => kinds === undefined || kinds.includes(kind.type));
  const keys = filterKeysFor(eventType);
  // Every lookup asked at once: a process that has none cached (a CLI command) waits one round
  // trip for all of them, not one per endpoint kind and filter key.
  const asks = taking.flatMap((kind) =>
    keys.map((key) => ({ type: kind.type, index: EVENTS_INDEX, key })),
  );
  const found = view.lookupMany?.(asks) ?? asks.map((a) => view.lookup(a.type, a.index, a.key));
  for (const [k, kind] of taking.entries()) {
    const seen = new Set<string>();
    // The kind's answers, one per filter key, in `asks` order.
    for (const endpoints of found.slice(k * keys.length, (k + 1) * keys.length)) {
      for (const endpoint of endpoints) {
        if (seen.has(endpoint.id)) continue;
        seen.add(endpoint.id);
        if (
          kind.enabledWhen !== undefined &&
          canonicalJson(endpoint.fields[kind.enabledWhen.field] ?? null) !==
            canonicalJson(kind.enabledWhen.value)
        )
          continue;
        if (!filterTakes(endpoint.fields[kind.eventsField] as unknown[], eventType)) continue;
        // An endpoint a send made takes only that send's own event (send-scope.ts).
        if (!mayTake(view, kind, endpoint)) continue;
        out.push({ kind, endpoint });
      }
    }
  }
  return out.sort((a, b) =>
    a.kind.type === b.kind.type
      ? a.endpoint.id < b.endpoint.id
        ? -1
        : 1
      : a.kind.type < b.kind.type
        ? -1
        : 1,
  );
}

interface RenderedEvent {
  readonly eventType: string;
  readonly eventId: string;
  readonly body: string;
  /** The envelope as rendered, before `encodeBody`: what endpoint matches read. */
  readonly rendered: JsonValue | undefined;
  /** Set when the declaration ties the message id to the event rather than to each delivery. */
  readonly messageId?: string;
  readonly endpoints: TakingEndpoint[];
}

/** Renders every event one entry produces, with the endpoints each one goes to. */
function renderEvents(
  entry: Entry,
  before: Resource | undefined,
  view: ReadView,
  decl: EventsDeclaration,
  ids: IdSource,
  now: number,
  rules: readonly EventRule[],
): RenderedEvent[] {
  const subject = view.get(entry.subjectType, entry.subjectId);
  const previous = changedPrevious(before, entry);
  const base = {
    entry,
    subject,
    previous: before?.deleted === false ? before.fields : undefined,
    view,
    now,
  };
  const out: RenderedEvent[] = [];
  for (const rule of rules) {
    for (const eventType of rule.types) {
      if (rule.when !== undefined && !rule.when(eventType, base)) continue;
      const endpoints = endpointsFor(view, decl, eventType, rule.endpointKinds);
      const eventId = newId(ids, decl.eventIdPrefix);
      const ctx: RenderContext = { ...base, eventType, eventId };
      const values: Record<string, JsonValue | undefined> = {
        id: eventId,
        type: eventType,
        created: Math.floor(now / 1000),
        createdIso: isoAt(now),
        object: (subject?.fields ?? {}) as JsonObject,
        previous,
        subjectId: entry.subjectId,
        seq: entry.seq,
        endpointCount: endpoints.length,
        ...(decl.values?.(ctx) ?? {}),
      };
      const rendered = renderTemplate(decl.envelope, values);
      const body =
        decl.encodeBody === undefined ? JSON.stringify(rendered) : decl.encodeBody(rendered, ctx);
      const messageId = decl.messageId?.(ctx);
      out.push({
        eventType,
        eventId,
        body,
        rendered,
        ...(messageId === undefined ? {} : { messageId }),
        endpoints,
      });
    }
  }
  return out;
}

function deliveryRecordWrite(
  decl: EventsDeclaration,
  pack: string,
  ids: IdSource,
  event: RenderedEvent,
  taking: TakingEndpoint,
  nowIso: string,
  trace: { traceparent: string; tracestate?: string } | undefined,
  actor = 'system',
): Write {
  const { kind, endpoint } = taking;
  // Keys in ascending order: canonicalJson then writes the record with JSON.stringify itself.
  const fields: DeliveryFields = {
    acceptedAt: null,
    attempts: 0,
    body: event.body,
    createdAt: nowIso,
    currentAttempt: null,
    dueAt: nowIso,
    endpointId: endpoint.id,
    endpointKind: kind.type,
    eventId: event.eventId,
    eventType: event.eventType,
    finishedAt: null,
    lastOutcome: null,
    lastStatus: null,
    messageId: event.messageId ?? newId(ids, decl.messageIdPrefix ?? 'msg_'),
    nextAttemptAt: null,
    pack,
    secretRef:
      kind.unsignedWithoutSecret === true && endpoint.fields[kind.secretRefField] === null
        ? null
        : String(endpoint.fields[kind.secretRefField] ?? endpoint.id),
    state: 'queued',
    traceparent: trace?.traceparent ?? null,
    tracestate: trace?.tracestate ?? null,
    url: String(endpoint.fields[kind.urlField] ?? ''),
  };
  return {
    operation: `${decl.recordType}.create`,
    subjectType: decl.recordType,
    subjectId: deliveryRecordId(ids, 'dlv_'),
    fields: deliveryKind.json(fields),
    actor,
  };
}

export function installFanOut(twin: Twin, pack: string, decl: EventsDeclaration): void {
  const byOperation = new Map<string, EventRule[]>();
  for (const rule of decl.rules)
    byOperation.set(rule.operation, [...(byOperation.get(rule.operation) ?? []), rule]);
  twin.use({
    name: `fan-out:${pack}`,
    withinCommit(entries, view, _twin, before) {
      let trace: ReturnType<typeof captureTrace> | null = null;
      const now = twin.world.clock.now();
      const nowIso = isoAt(now);
      const writes: Write[] = claimWrites(entries, decl.endpoints, before, nowIso);
      for (const entry of entries) {
        const rules = byOperation.get(entry.operation);
        if (rules === undefined) continue;
        if (trace === null) trace = captureTrace();
        for (const event of renderEvents(
          entry,
          before(entry),
          view,
          decl,
          twin.world.ids,
          now,
          rules,
        )) {
          for (const taking of event.endpoints) {
            if (!endpointMatches(taking.kind.match, taking.endpoint.fields, event.rendered))
              continue;
            writes.push(
              deliveryRecordWrite(
                decl,
                pack,
                twin.world.ids,
                event,
                taking,
                nowIso,
                trace ?? undefined,
              ),
            );
          }
        }
      }
      return writes;
    },
  });
}
