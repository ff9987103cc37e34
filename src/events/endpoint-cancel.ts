// Waiting deliveries end with their endpoint (docs/events.md): in the same commit that removes or
// disables an endpoint, each of its deliveries still waiting — queued and never tried, or waiting
// for a retry — is cancelled with the reason, as vendors stop retrying a deleted endpoint. Once
// cancelled a record leaves the due index, so a second disable, a later delete or a re-enable
// cancels nothing again, and no worker waits for a retry that would never be sent.
import { canonicalJson } from '../log/canonical-json.js';
import type { Entry, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import type { Twin } from '../world/twin.js';
import { DUE_FIELD, DUE_INDEX, END_OF_TIME } from '../work/lease.js';
import type { EndpointKind, EventsDeclaration } from './declaration.js';
import { deliveryOf } from './delivery-records.js';

type EndpointEndReason = 'endpoint_removed' | 'endpoint_disabled';

/** Open records read at most per ended endpoint (they come in due order). */
const MAX_OPEN = 100_000;

/** Why an endpoint no longer takes deliveries after this commit; undefined while it still does. */
export function endpointEnded(
  kind: EndpointKind,
  endpoint: Resource | undefined,
): EndpointEndReason | undefined {
  if (endpoint === undefined || endpoint.deleted) return 'endpoint_removed';
  if (
    kind.enabledWhen !== undefined &&
    canonicalJson(endpoint.fields[kind.enabledWhen.field] ?? null) !==
      canonicalJson(kind.enabledWhen.value)
  )
    return 'endpoint_disabled';
  return undefined;
}

/** Why the endpoint a delivery goes to no longer takes deliveries; undefined while it does. */
export function deliveryEndpointEnded(
  view: ReadView,
  decl: EventsDeclaration,
  d: { readonly endpointKind: string; readonly endpointId: string },
): EndpointEndReason | undefined {
  const endpoint = view.get(d.endpointKind, d.endpointId);
  const kind = decl.endpoints.find((k) => k.type === d.endpointKind);
  if (kind !== undefined) return endpointEnded(kind, endpoint);
  return endpoint === undefined || endpoint.deleted ? 'endpoint_removed' : undefined;
}

/** The write that ends a waiting delivery with its endpoint: no retry, off the due index. */
export function cancelWrite(recordType: string, id: string, reason: EndpointEndReason): Write {
  return {
    operation: `${recordType}.cancel`,
    subjectType: recordType,
    subjectId: id,
    fields: { state: 'cancelled', reason, nextAttemptAt: null, [DUE_FIELD]: null },
    actor: 'system',
  };
}

/** The cancel writes for the waiting deliveries of the endpoints `entries` removed or disabled. */
function cancelWaitingWrites(
  entries: readonly Entry[],
  view: ReadView,
  decl: EventsDeclaration,
): Write[] {
  const ended = new Map<string, EndpointEndReason>();
  for (const entry of entries) {
    const kind = decl.endpoints.find((k) => k.type === entry.subjectType);
    if (kind === undefined) continue;
    const reason = endpointEnded(kind, view.get(kind.type, entry.subjectId));
    if (reason !== undefined) ended.set(`${kind.type}\u0000${entry.subjectId}`, reason);
  }
  if (ended.size === 0) return [];
  const writes: Write[] = [];
  for (const record of view.lookupUpTo(decl.recordType, DUE_INDEX, END_OF_TIME, MAX_OPEN)) {
    const d = deliveryOf(record);
    const reason = ended.get(`${d.endpointKind}\u0000${d.endpointId}`);
    if (reason === undefined || d.currentAttempt !== null) continue;
    const waiting = d.state === 'retrying' || (d.state === 'queued' && d.attempts === 0);
    if (!waiting) continue;
    writes.push(cancelWrite(decl.recordType, record.id, reason));
  }
  return writes;
}

export function installEndpointCancel(twin: Twin, pack: string, decl: EventsDeclaration): void {
  twin.use({
    name: `endpoint-cancel:${pack}`,
    withinCommit: (entries, view) => cancelWaitingWrites(entries, view, decl),
  });
}
