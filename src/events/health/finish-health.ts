// The health writes a finished attempt adds to its finish: the endpoint's new health when it moved
// (a failure, or the first success after failures) or when the attempt was out in a rate slot
// (receiver-bound.ts), and, when the vendor's window has run out, the
// endpoint itself disabled — whose waiting deliveries the endpoint-cancel hook then ends in the
// same commit, once.
import type { JsonValue } from '../../log/json-value.js';
import type { Write } from '../../log/write.js';
import type { ReadView } from '../../state/read-view.js';
import type { EventsDeclaration } from '../declaration.js';
import type { DeliveryFields } from '../delivery-records.js';
import { afterAttempt, type AttemptResult } from './after-attempt.js';
import { endpointHealthKind, freshHealth, type EndpointHealthFields } from './endpoint-health.js';
import { healthTarget } from './endpoint-of.js';
import { disabledNotice } from './health-notice.js';
import { comeBack } from './receiver-bound.js';

export function finishHealthWrites(
  view: ReadView,
  decl: EventsDeclaration,
  d: DeliveryFields,
  attempt: string,
  result: AttemptResult,
  nowMs: number,
): Write[] {
  // The common case first, on the hot path: a success at an endpoint with nothing to close reads
  // only the health record (none, for an endpoint that never failed), not the endpoint.
  const { id, stored, back } = cameBack(view, d, attempt, nowMs);
  const backOnly = back === undefined ? [] : [backWrite(id, back)];
  if (
    result.outcome === 'succeeded' &&
    (stored === undefined || (stored.state === 'healthy' && stored.failures === 0))
  )
    return backOnly;
  const target = healthTarget(view, decl, d);
  if (target === undefined) return backOnly;
  const health = back ?? stored ?? freshHealth(d.endpointKind, d.endpointId);
  // Only a vendor that honours Retry-After (its retry policy says so) makes the endpoint wait.
  const told =
    decl.retry?.honorRetryAfter === true ? result : { ...result, retryAfterSec: undefined };
  const after = afterAttempt(health, target.policy, told, nowMs);
  const writes: Write[] = [
    endpointHealthKind.write(
      after.change === undefined ? 'endpoint_health.attempt' : `endpoint_health.${after.change.to}`,
      id,
      after.health,
      { actor: 'system' },
    ),
  ];
  if (after.change?.to === 'disabled' && target.policy.disable?.announce === 'notice')
    writes.push(disabledNotice(after.health, target.policy.source, new Date(nowMs).toISOString()));
  const enabledWhen = target.kind.enabledWhen;
  if (after.change?.to === 'disabled' && enabledWhen !== undefined) {
    const off: JsonValue =
      target.kind.disabledValue ??
      (typeof enabledWhen.value === 'boolean' ? !enabledWhen.value : null);
    writes.push({
      operation: `${target.kind.type}.health_disable`,
      subjectType: target.kind.type,
      subjectId: d.endpointId,
      fields: { [enabledWhen.field]: off },
      actor: 'system',
    });
  }
  return writes;
}

/** The endpoint's health as stored, and as it is once the attempt is back (if it was out). */
function cameBack(view: ReadView, d: DeliveryFields, attempt: string, nowMs: number) {
  const id = endpointHealthKind.id(d.endpointKind, d.endpointId);
  const stored = endpointHealthKind.read(view, id);
  return { id, stored, back: stored === undefined ? undefined : comeBack(stored, attempt, nowMs) };
}

function backWrite(id: string, health: EndpointHealthFields): Write {
  return endpointHealthKind.write('endpoint_health.attempt', id, health, { actor: 'system' });
}

/**
 * The health write of an attempt that was out in a rate slot and is back at `nowMs` without a
 * result to judge (a take-over: its request, if it left, reached the receiver before its lease
 * lapsed); none when it was not out (receiver-bound.ts).
 */
export function backWrites(
  view: ReadView,
  d: DeliveryFields,
  attempt: string,
  nowMs: number,
): Write[] {
  const { id, back } = cameBack(view, d, attempt, nowMs);
  return back === undefined ? [] : [backWrite(id, back)];
}
