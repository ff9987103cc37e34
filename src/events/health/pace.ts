// Pacing an endpoint to its rate with booked slots on the world clock (GCRA without burst): each
// attempt books the next free slot, and no two slots N apart are less than a second (plus a
// margin) apart, so a receiver counting arrivals in any one-second window — sliding or calendar —
// never sees more than N. A count per second would let the end of one second and the start of
// the next add up, and a backlog released at a second's turn arrive as a burst.
//
// Slots are kept as an anchor and a count, not as a running sum of fractional intervals: slot k
// is `anchor + ceil(k · span / N)`, exact in integer milliseconds, so slots k and k+N are exactly
// `span` apart whatever N is (120/s does not divide 1000 ms evenly), on every host and replay.

/**
 * How far ahead of its slot an attempt may be claimed. The claim (a locked section, a store round
 * trip) happens early, and the send then waits in the claiming process for its slot on the clock,
 * so a slow claim does not make one request late and the next one on time.
 */
export const SLOT_LEAD_MS = 100;

/**
 * A held delivery falls due on a boundary of this many milliseconds before its slot's lead, so the
 * deliveries of a backlog come due in batches a worker claims in one section, not one section per
 * slot (400 a second across a few endpoints would queue sections behind the twin's lock).
 */
const SLOT_BATCH_MS = 50;

/**
 * How far past the claim a new slot lies at the least: room for the claim's commit, so an attempt
 * claimed at its slot is not sent late (and the next on time) because the store took a while.
 */
export const SLOT_MIN_AHEAD_MS = 50;

/**
 * When a delivery holding `slot` falls due to be claimed: `leadMs` before it, on a batch boundary.
 * A delivery whose send came too late for its slot is claimed further ahead (rebookLead).
 */
export function claimFrom(slot: number, leadMs: number): number {
  return Math.floor((slot - leadMs) / SLOT_BATCH_MS) * SLOT_BATCH_MS;
}

/**
 * How many times one attempt's send is held back for being too late for its slot; late once more,
 * it goes as it is. Each hold-back costs the twin two sections (the rebook, the claim again) and
 * the endpoint a slot. Held back without end, before the claim lead doubled each time and grew
 * with the endpoint's late claims, the process rate test delivered 681 of 2,000 in 300 s in the
 * full suite. With both, six hold-backs (a last lead of 6.4 s) left the sends that went late as
 * they were so rare that the arrivals' p99 after their slots fell from 600–940 ms (two
 * hold-backs) to 30–64 ms under load (docs/endpoint-health.md, Limits); a bound still keeps a
 * machine too loaded to send anything on time delivering.
 */
export const MAX_REBOOKS = 6;

/**
 * How far ahead of its new slot an attempt is claimed, and at least how far ahead that slot lies,
 * after its send came too late for its slot `rebooks` times: what made it late (a claim that
 * committed after the slot, a process that woke too late to send) is the machine's load, which
 * lasts, so the same lead would most likely be late again. Twice the lead each time.
 */
export function rebookLead(rebooks: number): number {
  return SLOT_LEAD_MS * 2 ** rebooks;
}

/**
 * Added to the second that N slots span (5% of the rate). A request leaves at its slot but reaches
 * the receiver after signing and an HTTP write, whose time varies between requests. When one
 * request is slower than the request N slots after it, the two land less than a second apart
 * unless the slots were this much further apart. On a loaded machine the variation is larger
 * than this margin (docs/endpoint-health.md, Limits); 50 ms covers an idle machine's few
 * milliseconds many times over for 5% of the rate. Half of it is what a request may leave after
 * its slot (SEND_LATE_TOLERANCE_MS); the other half is left for the way from the sender's check to
 * the receiver's clock.
 */
export const SLOT_MARGIN_MS = 50;

/**
 * How late after its slot a request may still leave (the sender checks the world clock just
 * before the request goes; later, it books a new slot instead: late-send.ts). Requests k and k+N
 * leave at least `1000 + SLOT_MARGIN_MS - SEND_LATE_TOLERANCE_MS` ms apart, so with 25 ms no N+1
 * departures fit in any one-second window, and 25 ms of the margin is still left for the
 * request's way from the check to the receiver (an HTTP write on loopback, the receiver's own
 * event loop), which the sender cannot check. A claim up to this late still takes its slot.
 */
export const SEND_LATE_TOLERANCE_MS = 25;

/** Whether a request leaving at `nowMs` would leave too late for its slot (world clock). */
export function lateForSlot(slot: number, nowMs: number): boolean {
  return nowMs > slot + SEND_LATE_TOLERANCE_MS;
}

/** The booked slots of one endpoint, kept on its health record. */
export interface Slots {
  /** Epoch ms of the first slot of the current run of booked slots; null before any. */
  slotAnchor: number | null;
  /** Slots booked since the anchor. */
  slotsBooked: number;
  /** The rate the run was booked at (an override may change it). */
  slotRate: number | null;
  /** How far ahead of their slots this endpoint's held deliveries are claimed; absent: SLOT_LEAD_MS. */
  claimLeadMs?: number;
}

/** The longest an endpoint's claims lead their slots (a waiting attempt holds a worker slot). */
const MAX_CLAIM_LEAD_MS = 800;

/**
 * How far ahead of its slot a claim comes: the endpoint's lead (`endpointLeadMs`, absent while it
 * is SLOT_LEAD_MS), or the attempt's own after its send came late (rebookLead), whichever is longer.
 */
export function claimLead(endpointLeadMs: number | undefined, rebookLeadMs?: number): number {
  return Math.max(rebookLeadMs ?? 0, endpointLeadMs ?? SLOT_LEAD_MS);
}

/**
 * The endpoint's claim lead after a claim came too late for the slot its delivery had booked:
 * twice as long. The claim's section took longer than the lead (the store and the workers were
 * loaded), so the slot went unused and the delivery booked again at the back of the endpoint's
 * slots; a lead that stayed short would lose most slots of a backlog the same way.
 */
export function leadAfterLateClaim(slots: Slots): number {
  return Math.min(2 * (slots.claimLeadMs ?? SLOT_LEAD_MS), MAX_CLAIM_LEAD_MS);
}

/**
 * The endpoint's claim lead after a claim came in time for its slot: a thirty-second shorter, back
 * towards SLOT_LEAD_MS, so a lead grown in a burst of load shrinks again over a few dozen claims
 * and attempts do not wait (holding worker slots) longer than the store needs.
 */
export function leadAfterTimelyClaim(slots: Slots): number | undefined {
  const lead = slots.claimLeadMs;
  if (lead === undefined || lead <= SLOT_LEAD_MS) return lead;
  return Math.max(SLOT_LEAD_MS, lead - Math.ceil(lead / 32));
}

/**
 * Milliseconds from the anchor to slot k. Rates of one or more keep whole attempts per second (the
 * floor: 2.5/s allows 2 in any second); slower rates space attempts 1/rate seconds apart.
 */
function offset(k: number, rate: number): number {
  if (rate < 1) return Math.ceil((k * 1000) / rate);
  return Math.ceil((k * (1000 + SLOT_MARGIN_MS)) / Math.floor(rate));
}

/** How many attempts any one second may hold at `rate`: its whole part, and one below 1/s. */
function perSecond(rate: number): number {
  return rate < 1 ? 1 : Math.floor(rate);
}

/**
 * How far apart two slots `perSecond(rate)` apart lie at the least (exactly, within a run): a
 * second and the margin, or 1/rate seconds below 1/s.
 */
export function slotSpan(rate: number): number {
  return offset(perSecond(rate), rate);
}

/** The first slot not booked yet; undefined before any was booked. */
function nextFreeSlot(slots: Slots): number | undefined {
  // A record written before slots existed has none of these fields.
  const anchor = slots.slotAnchor ?? null;
  const rate = slots.slotRate ?? null;
  if (anchor === null || rate === null) return undefined;
  return anchor + offset(slots.slotsBooked ?? 0, rate);
}

/**
 * Books the next free slot at `nowMs`: the first one not booked, or the earliest a claim now can
 * make when that lies further (an idle endpoint starts a new run; idle time earns no burst). A
 * change of rate starts a new run after the slots already booked. A new slot lies at least
 * `minAheadMs` past now.
 */
export function bookSlot(
  slots: Slots,
  rate: number,
  nowMs: number,
  minAheadMs = SLOT_MIN_AHEAD_MS,
): { slot: number; slots: Slots } {
  const next = nextFreeSlot(slots);
  const earliest = nowMs + minAheadMs;
  // Only the pacing fields: a caller records the booking on a health it chose.
  const lead = slots.claimLeadMs === undefined ? {} : { claimLeadMs: slots.claimLeadMs };
  if (next !== undefined && next >= earliest && slots.slotRate === rate) {
    const slotsBooked = (slots.slotsBooked ?? 0) + 1;
    return {
      slot: next,
      slots: { slotAnchor: slots.slotAnchor, slotsBooked, slotRate: rate, ...lead },
    };
  }
  const anchor = Math.max(earliest, next ?? earliest);
  return { slot: anchor, slots: { slotAnchor: anchor, slotsBooked: 1, slotRate: rate, ...lead } };
}
