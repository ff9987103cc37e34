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
import type { DeliveryFields } from '../delivery-records.js';
import { admit } from './admit.js';
import { endpointHealthKind, freshHealth } from './endpoint-health.js';
import { healthTarget } from './endpoint-of.js';

export type Gate =
  | { readonly open: true; readonly sendAt: number; readonly writes: readonly Write[] }
  | { readonly open: false; readonly until: number; readonly writes: readonly Write[] };

/** The slot this attempt booked when it was held, if it still holds: a slot is for one attempt. */
function reservedSlot(d: DeliveryFields): number | undefined {
  if (typeof d.slotAt !== 'string' || d.slotAttempt !== d.attempts + 1) return undefined;
  return Date.parse(d.slotAt);
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
  const admission = admit(health, policy, nowMs, reservedSlot(d));
  if (admission.ok) {
    return {
      open: true,
      sendAt: admission.sendAt,
      writes: [
        endpointHealthKind.write('endpoint_health.admit', id, admission.health, {
          actor: 'system',
        }),
      ],
    };
  }
  const writes: Write[] = [];
  if (admission.health !== undefined)
    writes.push(
      endpointHealthKind.write('endpoint_health.book', id, admission.health, { actor: 'system' }),
    );
  // A slot is kept while the delivery waits for it; a breaker or Retry-After hold gives it up
  // (the slot passes while the delivery waits, and it books a fresh one when it is let through).
  const fields: JsonObject = { [DUE_FIELD]: isoAt(admission.until), heldFor: admission.why };
  if (admission.slot !== undefined) {
    fields.slotAt = isoAt(admission.slot);
    fields.slotAttempt = d.attempts + 1;
  } else if (typeof d.slotAt === 'string') {
    fields.slotAt = null;
    fields.slotAttempt = null;
  }
  writes.push({
    operation: `${decl.recordType}.hold`,
    subjectType: decl.recordType,
    subjectId: deliveryId,
    fields,
    actor: 'system',
  });
  return { open: false, until: admission.until, writes };
}
