// The health check at claim time: an endpoint whose breaker is open, that a receiver asked to wait,
// or whose next rate slot is not near takes no new attempt now. The delivery keeps its attempts
// and its place; only its due time moves to when the endpoint will take it, so the worker sleeps
// instead of polling. A rate hold books the delivery's slot and keeps it on the record, so it is
// examined once more, just before its slot, not every second. Every host sharing the store sees
// the same slots because they are booked under the twin's lock.
import type { JsonObject } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import { isoAt } from '../../world/clock.js';
import { DUE_FIELD } from '../../work/lease.js';
import type { EventsDeclaration } from '../declaration.js';
import { attemptId, type DeliveryFields } from '../delivery-records.js';
import { admitAttempt, type Hold } from './admit.js';
import { endpointHealthKind, freshHealth } from './endpoint-health.js';
import { healthTarget } from './endpoint-of.js';
import { rebookLead } from './pace.js';

export type Gate =
  | {
      readonly open: true;
      readonly sendAt: number;
      /** The rate slot the request goes in, on a rated endpoint (it must not leave much later). */
      readonly slot?: number;
      readonly writes: readonly Write[];
    }
  | { readonly open: false; readonly until: number; readonly writes: readonly Write[] };

/** The slot this attempt booked when it was held, if it still holds: a slot is for one attempt. */
function reservedSlot(d: DeliveryFields): number | undefined {
  if (typeof d.slotAt !== 'string' || d.slotAttempt !== d.attempts + 1) return undefined;
  return Date.parse(d.slotAt);
}

/** How many times attempt `attempt` (the next one unless given) was held back for being late (late-send.ts). */
export function rebooksOf(d: DeliveryFields, attempt = d.attempts + 1): number {
  return d.rebookedAttempt === attempt ? (d.rebooks ?? 1) : 0;
}

export function gateClaim(
  view: ReadView,
  decl: EventsDeclaration,
  deliveryId: string,
  d: DeliveryFields,
  nowMs: number,
): Gate {
  const pass: Gate = { open: true, sendAt: nowMs, writes: [] };
  const target = healthTarget(view, decl, d);
  if (target === undefined) return pass;
  const { policy } = target;
  const id = endpointHealthKind.id(d.endpointKind, d.endpointId);
  const health = endpointHealthKind.read(view, id) ?? freshHealth(d.endpointKind, d.endpointId);
  // Nothing to hold and nothing to book: a healthy endpoint without a rate writes nothing.
  if (
    policy.ratePerSecond === undefined &&
    (health.state === 'healthy' || health.state === 'degraded')
  )
    return pass;
  const rebooks = rebooksOf(d);
  const lead = rebooks === 0 ? undefined : rebookLead(rebooks);
  const attempt = attemptId(deliveryId, d.attempts + 1);
  const admission = admitAttempt(health, policy, nowMs, attempt, reservedSlot(d), lead);
  if (admission.ok) {
    return {
      open: true,
      sendAt: admission.sendAt,
      ...(admission.slot === undefined ? {} : { slot: admission.slot }),
      writes: [
        endpointHealthKind.write('endpoint_health.admit', id, admission.health, {
          actor: 'system',
        }),
      ],
    };
  }
  return {
    open: false,
    until: admission.until,
    writes: holdWrites(decl, deliveryId, d, admission),
  };
}

/**
 * The writes of a hold: the slot's booking on the endpoint's health, if one was made, and the
 * delivery's new due time with why it waits. Also what a send too late for its slot writes
 * (late-send.ts), beside undoing its claim.
 */
export function holdWrites(
  decl: EventsDeclaration,
  deliveryId: string,
  d: DeliveryFields,
  hold: Hold,
  extra: JsonObject = {},
  operation = 'hold',
): Write[] {
  const writes: Write[] = [];
  if (hold.health !== undefined)
    writes.push(
      endpointHealthKind.write(
        'endpoint_health.book',
        endpointHealthKind.id(d.endpointKind, d.endpointId),
        hold.health,
        { actor: 'system' },
      ),
    );
  // A slot is kept while the delivery waits for it; a breaker or Retry-After hold gives it up
  // (the slot passes while the delivery waits, and it books a fresh one when it is let through).
  const fields: JsonObject = { ...extra, [DUE_FIELD]: isoAt(hold.until), heldFor: hold.why };
  if (hold.slot !== undefined) {
    fields.slotAt = isoAt(hold.slot);
    fields.slotAttempt = d.attempts + 1;
  } else if (typeof d.slotAt === 'string') {
    fields.slotAt = null;
    fields.slotAttempt = null;
  }
  writes.push({
    operation: `${decl.recordType}.${operation}`,
    subjectType: decl.recordType,
    subjectId: deliveryId,
    fields,
    actor: 'system',
  });
  return writes;
}
