// Whether an attempt to an endpoint may start, and when: the breaker, a receiver's Retry-After and
// the rate, decided under the twin's lock at claim time, so every process and host sharing the
// store is held to them. The rate books the attempt a slot (pace.ts): one close enough is claimed
// now and sent at the slot; a later one is held until just before its slot (claimFrom), which
// stays booked for it, so a backlog is paced out at the rate instead of re-examined every second.
// A refused start burns no attempt; the delivery waits until `until` on the world clock.
import type { EndpointHealthFields } from './endpoint-health.js';
import type { HealthPolicy } from './health-policy.js';
import { goOut, receiverBound } from './receiver-bound.js';
import {
  bookSlot,
  claimFrom,
  claimLead,
  lateForSlot,
  leadAfterLateClaim,
  leadAfterTimelyClaim,
  SLOT_LEAD_MS,
  SLOT_MIN_AHEAD_MS,
  type Slots,
} from './pace.js';

export type Admission =
  | {
      readonly ok: true;
      readonly health: EndpointHealthFields;
      /** When the request goes: now, or the attempt's slot a little ahead. */
      readonly sendAt: number;
      /** The rate slot the request goes in (rated endpoints only): it must leave by then (pace.ts). */
      readonly slot?: number;
    }
  | {
      readonly ok: false;
      readonly until: number;
      readonly why: 'breaker_open' | 'retry_after' | 'rate_limited';
      /** A slot booked for the held delivery (kept on it), and the health that records the booking. */
      readonly slot?: number;
      readonly health?: EndpointHealthFields;
    };

/**
 * `reserved` is the slot a held delivery booked for this attempt, if any: it is taken as booked
 * unless the claim comes later after it than a request may leave (a worker stalled past it), when
 * the attempt books afresh rather than go late into slots that later attempts will use on time.
 * `rebookLeadMs` is set after a send of this attempt came too late for its slot (late-send.ts):
 * how far ahead of its slot it is claimed, and at least how far ahead a slot booked now lies.
 */
export function admit(
  health: EndpointHealthFields,
  policy: HealthPolicy,
  nowMs: number,
  reserved?: number,
  rebookLeadMs?: number,
): Admission {
  let next = health;
  if (health.state === 'throttled') {
    const until = health.pausedUntil === null ? nowMs : Date.parse(health.pausedUntil);
    if (nowMs < until) return { ok: false, until, why: 'retry_after' };
    // The receiver's wait is over; it is still failing until an attempt succeeds.
    next = { ...next, state: 'degraded', pausedUntil: null };
  }
  if (health.state === 'open' || health.state === 'half_open') {
    const until = health.pausedUntil === null ? nowMs : Date.parse(health.pausedUntil);
    if (nowMs < until) return { ok: false, until, why: 'breaker_open' };
    // The pause is over: one probe goes, and the breaker stays shut to the rest for another pause
    // unless the probe's outcome moves it first.
    const pause = policy.breaker?.pauseMs ?? 0;
    next = {
      ...next,
      state: 'half_open',
      pausedUntil: new Date(nowMs + pause).toISOString(),
      ...(health.state === 'open'
        ? { reason: 'probe after pause', changedAt: new Date(nowMs).toISOString() }
        : {}),
    };
  }
  const rate = policy.ratePerSecond;
  if (rate === undefined) return { ok: true, health: next, sendAt: nowMs };
  // How far ahead of its slot a claim comes: the endpoint's lead (grown while its claims came
  // late, pace.ts), or more for an attempt whose send came late.
  let endpointLead = next.claimLeadMs;
  if (reserved !== undefined && !lateForSlot(reserved, nowMs)) {
    const lead = claimLead(endpointLead, rebookLeadMs);
    if (nowMs < claimFrom(reserved, lead))
      return { ok: false, until: claimFrom(reserved, lead), why: 'rate_limited', slot: reserved };
    // A claim a little late still takes its slot and goes at once, as a send this late may
    // (pace.ts), and booking afresh would cost the whole backlog a write each time a worker lags.
    return {
      ok: true,
      health: withLead(next, leadAfterTimelyClaim(next)),
      sendAt: Math.max(reserved, nowMs),
      slot: reserved,
    };
  }
  // Too late for the slot its delivery booked: that slot goes unused, and the endpoint's claims
  // lead further from now on.
  if (reserved !== undefined) endpointLead = leadAfterLateClaim(next);
  const lead = claimLead(endpointLead, rebookLeadMs);
  const booked = bookSlot(
    withLead(next, endpointLead),
    rate,
    nowMs,
    rebookLeadMs ?? SLOT_MIN_AHEAD_MS + lead - SLOT_LEAD_MS,
  );
  if (nowMs >= claimFrom(booked.slot, lead))
    return {
      ok: true,
      health: { ...next, ...booked.slots },
      sendAt: booked.slot,
      slot: booked.slot,
    };
  // Held: only the booking is recorded; a probe the breaker would have let through is not spent.
  return heldFor(health, booked, lead);
}

/**
 * `admit` for attempt `attempt`, which goes if admitted: in a slot, it goes only when the attempts
 * booked a span before it are back (receiver-bound.ts), and it is recorded out until it is back.
 */
export function admitAttempt(
  health: EndpointHealthFields,
  policy: HealthPolicy,
  nowMs: number,
  attempt: string,
  reserved?: number,
  rebookLeadMs?: number,
): Admission {
  const admission = admit(health, policy, nowMs, reserved, rebookLeadMs);
  const rate = policy.ratePerSecond;
  if (!admission.ok || admission.slot === undefined || rate === undefined) return admission;
  const { slot } = admission;
  const bound = receiverBound(admission.health, rate, slot, nowMs);
  if (bound.go) return { ...admission, health: goOut(admission.health, attempt, slot, nowMs) };
  // Held: only a booking admit made is recorded, not a probe the breaker would have let through.
  if ('until' in bound)
    return {
      ok: false,
      until: bound.until,
      why: 'rate_limited',
      slot,
      ...(admission.health === health
        ? {}
        : { health: { ...health, ...slotsOf(admission.health) } }),
    };
  const lead = claimLead(admission.health.claimLeadMs, rebookLeadMs);
  return heldFor(
    health,
    bookSlot(admission.health, rate, nowMs, Math.max(bound.after - nowMs, SLOT_MIN_AHEAD_MS)),
    lead,
  );
}

function slotsOf(health: EndpointHealthFields): Slots {
  const { slotAnchor, slotsBooked, slotRate, claimLeadMs } = health;
  return { slotAnchor, slotsBooked, slotRate, claimLeadMs };
}

/** The health with the endpoint's claim lead set to `lead` (unchanged when it is the same). */
function withLead(health: EndpointHealthFields, lead: number | undefined): EndpointHealthFields {
  return lead === health.claimLeadMs ? health : { ...health, claimLeadMs: lead };
}

/** Held until just before the slot it booked, which stays booked for it; only the booking is recorded. */
function heldFor(
  health: EndpointHealthFields,
  booked: ReturnType<typeof bookSlot>,
  leadMs: number,
): Hold {
  return {
    ok: false,
    until: claimFrom(booked.slot, leadMs),
    why: 'rate_limited',
    slot: booked.slot,
    health: { ...health, ...booked.slots },
  };
}

/** A hold: when the delivery may be claimed again, why, and the slot it booked (if any). */
export type Hold = Extract<Admission, { ok: false }>;

/**
 * Where a send that would leave too late for its slot goes instead (late-send.ts): always a hold,
 * never a send now. The breaker or a Retry-After holds it as at a claim; otherwise it books the
 * next free slot at least `leadMs` ahead (or the endpoint's longer lead) and is held until that
 * lead before it, like any rate-held
 * delivery — also when that slot is near, so only the booking is recorded and a probe the breaker
 * would let through is not spent on an attempt that does not go.
 */
export function admitLate(
  health: EndpointHealthFields,
  policy: HealthPolicy,
  nowMs: number,
  leadMs: number,
): Hold {
  const admission = admit(health, policy, nowMs, undefined, leadMs);
  if (!admission.ok) return admission;
  const rate = policy.ratePerSecond;
  // The endpoint lost its rate since the claim: nothing to book, the delivery is due at once.
  if (rate === undefined) return { ok: false, until: nowMs, why: 'rate_limited' };
  const lead = claimLead(health.claimLeadMs, leadMs);
  return heldFor(health, bookSlot(health, rate, nowMs, lead), lead);
}
