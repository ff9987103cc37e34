// Endpoints made for one send (`twinworld send`): the endpoint a send subscribes exists only to
// take the one event that send causes. In the same commit that creates it, fan-out records a
// claim on it; a claimed endpoint takes events only from commits made inside the send that claimed
// it, while that send runs in this process. So however the sending process dies — before the
// causing write, after it, before the endpoint is retired — no later event, from this process or
// any other, ever goes to that endpoint: the claim outlives the process, the permission does not.
import { AsyncLocalStorage } from 'node:async_hooks';
import { checkCallback } from '../errors.js';
import type { Entry, ProjectedResource, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import type { Resource } from '../state/resource.js';
import type { EndpointKind } from './declaration.js';

const SEND_CLAIM_TYPE = 'twinworld_send_claim';

/** The endpoints (by claim id) the send running in this async context has created. */
const sending = new AsyncLocalStorage<Set<string>>();

function sendClaimId(kind: string, endpointId: string): string {
  return `${kind}/${endpointId}`;
}

/** Runs `fn` as one send: endpoints its commits create are claimed for it alone. */
export function runSending<T>(fn: () => T): T {
  checkCallback('runSending(fn)', fn);
  return sending.run(new Set(), fn);
}

/** Whether `twinworld send` made the endpoint for one event (its claim is kept for good). */
export function madeBySend(view: ReadView, kind: string, endpointId: string): boolean {
  const claim = view.get(SEND_CLAIM_TYPE, sendClaimId(kind, endpointId));
  return claim !== undefined && !claim.deleted;
}

/** Whether fan-out may deliver to `endpoint` from the commit being made now. */
export function mayTake(view: ReadView, kind: EndpointKind, endpoint: Resource): boolean {
  const id = sendClaimId(kind.type, endpoint.id);
  const claim = view.get(SEND_CLAIM_TYPE, id);
  if (claim === undefined || claim.deleted) return true;
  return sending.getStore()?.has(id) === true;
}

/**
 * Inside a send: the claims for the endpoints the commit's entries create, as writes for the same
 * commit. Outside a send: nothing.
 */
export function claimWrites(
  entries: readonly Entry[],
  kinds: readonly EndpointKind[],
  before: (entry: Entry) => Resource | undefined,
  nowIso: string,
): Write[] {
  const store = sending.getStore();
  if (store === undefined) return [];
  const types = new Set(kinds.map((k) => k.type));
  const writes: Write[] = [];
  // Deduped per call, not by the send's set: over an asynchronous store a commit's hooks may run
  // again (a read-set restart), and the claim must be written by the run that commits.
  const claimed = new Set<string>();
  const claim = (type: string, id: string): void => {
    const claimId = sendClaimId(type, id);
    if (claimed.has(claimId)) return;
    claimed.add(claimId);
    store.add(claimId);
    writes.push({
      operation: 'send.claim_endpoint',
      subjectType: SEND_CLAIM_TYPE,
      subjectId: claimId,
      fields: { endpointKind: type, endpointId: id, claimedAt: nowIso },
      actor: 'system',
    });
  };
  for (const entry of entries) {
    if (types.has(entry.subjectType) && entry.delete !== true) {
      const prior = before(entry);
      if (prior === undefined || prior.deleted) claim(entry.subjectType, entry.subjectId);
    }
    for (const created of entry.projection?.creates ?? ([] as readonly ProjectedResource[]))
      if (types.has(created.type)) claim(created.type, created.id);
  }
  return writes;
}
