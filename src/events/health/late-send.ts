// A send too late for its rate slot (pace.ts): the sender checks the world clock just before the
// request leaves, and a request that would leave more than SEND_LATE_TOLERANCE_MS after its slot
// does not go. Under the twin's lock, instead, its claim is undone as if it had never been made —
// the attempt record is removed and the delivery's attempt count, state and lease are what they
// were — and the delivery books the endpoint's next free slot and is held until just before it,
// like any rate-held delivery. It therefore burns no attempt and no retry, and goes out once, in
// its new slot. Only the claim's holder can do this (same owner, same fence, the attempt still
// current): a sender whose claim was taken over writes nothing and sends nothing. An attempt late
// again is held back again (`rebooks` counts it), each time claimed twice as far ahead of its
// slot (pace.ts rebookLead), up to MAX_REBOOKS times; after that it goes as it is (pace.ts says why).
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { commit, skip, type Decision } from '../../world/decision.js';
import { leaseOf, stillHeld } from '../../work/lease.js';
import type { EventsDeclaration } from '../declaration.js';
import {
  attemptId,
  attemptType,
  readDelivery,
  type Claim,
  type DeliveryFields,
} from '../delivery-records.js';
import { admitLate, type Hold } from './admit.js';
import { holdWrites, rebooksOf } from './claim-gate.js';
import { endpointHealthKind, freshHealth } from './endpoint-health.js';
import { healthTarget } from './endpoint-of.js';
import { MAX_REBOOKS, rebookLead } from './pace.js';
import { neverLeft } from './receiver-bound.js';

/** Whether a send of this claimed attempt too late for its slot is held back (MAX_REBOOKS). */
export function holdsBackLate(d: DeliveryFields, attempt: number): boolean {
  return rebooksOf(d, attempt) < MAX_REBOOKS;
}

/**
 * Undoes the late attempt's claim and holds its delivery to a new slot booked at `nowMs` (read in
 * the section). Answers when the delivery may be claimed again, or undefined when this sender no
 * longer holds the claim (nothing written).
 */
export function decideLateSend(
  view: ReadView,
  decl: EventsDeclaration,
  deliveryId: string,
  claim: Claim,
  nowMs: number,
): Decision<{ until: number } | undefined> {
  const type = decl.recordType;
  const d = readDelivery(view, type, deliveryId);
  if (
    d === undefined ||
    d.state !== 'sending' ||
    d.currentAttempt !== claim.attemptId ||
    claim.kind === 'redeliver' ||
    !stillHeld(leaseOf(d), { owner: claim.owner ?? 'local', fence: claim.fence ?? 0 })
  )
    return skip(undefined);
  const target = healthTarget(view, decl, d);
  const id = endpointHealthKind.id(d.endpointKind, d.endpointId);
  const stored = endpointHealthKind.read(view, id) ?? freshHealth(d.endpointKind, d.endpointId);
  // It gives its slot up before it leaves, so it holds no later attempt back (receiver-bound.ts).
  const health = neverLeft(stored, claim.attemptId);
  // Late again: claimed further ahead this time (pace.ts rebookLead).
  const rebooks = rebooksOf(d, claim.number) + 1;
  // The endpoint was removed since the claim: nothing to book, the claim decides what comes next.
  const admitted: Hold =
    target === undefined
      ? { ok: false, until: nowMs, why: 'rate_limited' }
      : admitLate(health, target.policy, nowMs, rebookLead(rebooks));
  const hold =
    admitted.health === undefined && health !== stored ? { ...admitted, health } : admitted;
  // What the claim changed, back as it was: a retry is due again (from the hold on), and keeps
  // the finish time of the attempt before it.
  const retry = claim.kind === 'retry';
  const previous = retry
    ? view.get(attemptType(type), attemptId(deliveryId, claim.number - 1))
    : undefined;
  const before = {
    state: retry ? 'retrying' : 'queued',
    attempts: claim.number - 1,
    currentAttempt: null,
    nextAttemptAt: retry ? isoAt(hold.until) : null,
    finishedAt:
      typeof previous?.fields.finishedAt === 'string' && previous.deleted !== true
        ? previous.fields.finishedAt
        : null,
    owner: null,
    leaseUntil: null,
    rebookedAttempt: claim.number,
    rebooks,
  };
  const writes = holdWrites(
    decl,
    deliveryId,
    { ...d, attempts: claim.number - 1 },
    hold,
    before,
    'rebook',
  );
  // The delivery's write is the last; it also takes the late attempt's record away.
  const rebook = writes.pop()!;
  writes.push({
    ...rebook,
    projection: { deletes: [{ type: attemptType(type), id: claim.attemptId }] },
  });
  return commit(writes, { until: hold.until });
}
