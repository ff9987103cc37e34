// The health check at claim time: an endpoint whose breaker is open, or that has had its rate this
// second, takes no new attempt now. The delivery keeps its attempts and its place; only its due
// time moves to when the endpoint will take it, so the worker sleeps instead of polling, and every
// host sharing the store sees the same counter because it is decided under the twin's lock.
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
  | { readonly open: true; readonly writes: readonly Write[] }
  | { readonly open: false; readonly until: number; readonly writes: readonly Write[] };

const PASS: Gate = { open: true, writes: [] };

export function gateClaim(
  view: ReadView,
  decl: EventsDeclaration,
  deliveryId: string,
  d: DeliveryFields,
  nowMs: number,
): Gate {
  const target = healthTarget(view, decl, d);
  if (target === undefined) return PASS;
  const { policy } = target;
  const id = endpointHealthKind.id(d.endpointKind, d.endpointId);
  const health = endpointHealthKind.read(view, id) ?? freshHealth(d.endpointKind, d.endpointId);
  // Nothing to hold and nothing to count: a healthy endpoint without a rate writes nothing.
  if (
    policy.ratePerSecond === undefined &&
    (health.state === 'healthy' || health.state === 'degraded')
  )
    return PASS;
  const admission = admit(health, policy, nowMs);
  if (admission.ok) {
    return {
      open: true,
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
    writes: [
      {
        operation: `${decl.recordType}.hold`,
        subjectType: decl.recordType,
        subjectId: deliveryId,
        fields: { [DUE_FIELD]: isoAt(admission.until), heldFor: admission.why },
        actor: 'system',
      },
    ],
  };
}
