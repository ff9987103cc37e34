// What holds a rated endpoint's receiver to N requests in any one second, whatever the way there
// costs. Slots (pace.ts) bound when requests leave, but a receiver counts when they arrive, and a
// request that spends longer on its way than the one N slots after it can land in the same
// second as that one: no sender can see the way. What a sender does see is the answer, and a
// request arrives before it is answered. So an attempt leaves at its slot only when every attempt
// booked at least one span before it (N slots: a second and the margin) has come back, and came
// back a second or more before the slot.
//
// Why that is enough: take N+1 arrivals in one second and the one among them with the latest
// slot, j. At most N-1 others have slots within a span before j's (slots N apart are a span apart),
// so one, i, was booked a span or more before j. It arrived before it came back, it came back a
// second before j's slot, and j left at its slot or later: i and j arrived more than a second apart.
// An attempt is therefore claimed no earlier than one span before its slot less the late-send
// tolerance: by then every attempt booked a span before it has been claimed or has given its slot
// up (a claim later than that books afresh, admit.ts), so the ones still out are all known.
//
// An attempt back within the margin of its slot can never hold a later one back (it came back a
// span less a second after its slot at most), so only the late ones are kept; with the slots the
// record holds the attempts out now, the late returns of the last second, and nothing older.
import type { Slots } from './pace.js';
import { SEND_LATE_TOLERANCE_MS, SLOT_LEAD_MS, slotSpan } from './pace.js';

export interface OutAttempts {
  /** Attempts claimed in a slot and not back: attempt id → its slot (epoch ms). */
  out?: Record<string, number>;
  /** Attempts that came back late for their slot's margin: [slot, a second after they came back]. */
  lateBacks?: number[][];
}

/**
 * How long an attempt may stay out before it no longer holds later ones back: longer than any
 * transport's timeout and any lease. A claim whose sender died is finished by its take-over, which
 * brings it back; this only keeps a record written by a bug from holding an endpoint for ever.
 */
const OUT_FOR_AT_MOST_MS = 10 * 60_000;

export type Bound =
  | { readonly go: true }
  /** Held until `until`, keeping its slot. */
  | { readonly go: false; readonly until: number }
  /** Its slot is too early: it books one at `after` or later. */
  | { readonly go: false; readonly after: number };

/** Whether an attempt claimed at `nowMs` may leave at `slot` (booked at `rate`), and if not, when to look again. */
export function receiverBound(
  health: OutAttempts,
  rate: number,
  slot: number,
  nowMs: number,
): Bound {
  const before = slot - slotSpan(rate);
  // Claimed too far ahead, an attempt booked a span before it could still be claimed after it.
  if (nowMs <= before + SEND_LATE_TOLERANCE_MS)
    return { go: false, until: before + SEND_LATE_TOLERANCE_MS + 1 };
  for (const at of Object.values(health.out ?? {}))
    if (at <= before && at > nowMs - OUT_FOR_AT_MOST_MS)
      // Out for longer than a span: when it comes back is not known, so look again shortly.
      return { go: false, until: nowMs + SLOT_LEAD_MS };
  let after = slot;
  for (const [at, clear] of health.lateBacks ?? [])
    if (at! <= before) after = Math.max(after, clear!);
  return after === slot ? { go: true } : { go: false, after };
}

/** The health with the attempt out in `slot`, and what no longer holds anything back left out. */
export function goOut<H extends OutAttempts>(
  health: H,
  attempt: string,
  slot: number,
  nowMs: number,
): H {
  const out: Record<string, number> = {};
  for (const [id, at] of Object.entries(health.out ?? {}))
    if (at > nowMs - OUT_FOR_AT_MOST_MS) out[id] = at;
  out[attempt] = slot;
  return { ...health, out, lateBacks: stillHolding(health.lateBacks, nowMs) };
}

/**
 * The health once the attempt came back at `backAt` (answered, failed or taken over), kept as a late
 * return when that was later than its slot's margin; undefined when it was not out.
 */
export function comeBack<H extends OutAttempts & Slots>(
  health: H,
  attempt: string,
  backAt: number,
): H | undefined {
  const slot = health.out?.[attempt];
  if (slot === undefined) return undefined;
  const { [attempt]: _, ...out } = health.out!;
  const lateBacks = stillHolding(health.lateBacks, backAt);
  // Without the rate its run was booked at, every return is kept: it costs a few numbers.
  const span = health.slotRate == null ? 0 : slotSpan(health.slotRate);
  if (backAt + 1000 > slot + span) lateBacks.push([slot, backAt + 1000]);
  return { ...health, out, lateBacks };
}

/** The health without the attempt out: it gave its slot up before it left (late-send.ts). */
export function neverLeft<H extends OutAttempts>(health: H, attempt: string): H {
  if (health.out?.[attempt] === undefined) return health;
  const { [attempt]: _, ...out } = health.out;
  return { ...health, out };
}

function stillHolding(lateBacks: readonly number[][] | undefined, nowMs: number): number[][] {
  return (lateBacks ?? []).filter(([, clear]) => clear! > nowMs);
}
