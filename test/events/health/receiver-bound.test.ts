// What holds a receiver to an endpoint's rate whatever the way there costs
// (src/events/health/receiver-bound.ts): an attempt leaves at its slot only when the attempts
// booked a span before it are back, and back a second before it. The decisions one by one, then
// a backlog paced through a receiver whose answers sometimes take far longer than the margin
// between slots: with the bound no one-second window at the receiver holds more than the rate;
// with slots alone the same answers put more in one.
import { describe, expect, it } from 'vitest';
import { admit, admitAttempt, type Admission } from '../../../src/events/health/admit.js';
import {
  freshHealth,
  type EndpointHealthFields,
} from '../../../src/events/health/endpoint-health.js';
import { SEND_LATE_TOLERANCE_MS, SLOT_LEAD_MS, slotSpan } from '../../../src/events/health/pace.js';
import {
  comeBack,
  goOut,
  neverLeft,
  receiverBound,
} from '../../../src/events/health/receiver-bound.js';
import { busiestWindow } from '../../support/busiest-window.js';

const T0 = Date.parse('2026-04-01T00:00:00.000Z');
const RATE = 10;
const SPAN = 1050;

describe('the bound, one decision at a time', () => {
  const slot = T0 + 5_000;
  const now = slot - SLOT_LEAD_MS;

  it('a span is a second and the margin at one a second or more, 1/rate seconds below', () => {
    expect(slotSpan(10)).toBe(SPAN);
    expect(slotSpan(2.5)).toBe(SPAN);
    expect(slotSpan(0.5)).toBe(2000);
  });

  it('goes when nothing booked a span before it is out or came back late', () => {
    const health = { out: { 'd1.1': slot - SPAN + 1 }, lateBacks: [[slot - SPAN + 1, slot + 500]] };
    expect(receiverBound(health, RATE, slot, now)).toEqual({ go: true });
    expect(receiverBound({}, RATE, slot, now)).toEqual({ go: true });
  });

  it('waits, keeping its slot, while an attempt booked a span or more before it is out', () => {
    const health = { out: { 'd1.1': slot - SPAN } };
    expect(receiverBound(health, RATE, slot, now)).toEqual({
      go: false,
      until: now + SLOT_LEAD_MS,
    });
  });

  it('an attempt out for longer than ten minutes no longer holds anything back', () => {
    const health = { out: { 'd1.1': now - 10 * 60_000 } };
    expect(receiverBound(health, RATE, slot, now)).toEqual({ go: true });
  });

  it('books again a second after the latest late return of an attempt booked a span before', () => {
    const health = {
      lateBacks: [
        [slot - SPAN, slot + 40],
        [slot - SPAN - 100, slot + 70],
        [slot - SPAN + 1, slot + 900],
      ],
    };
    expect(receiverBound(health, RATE, slot, now)).toEqual({ go: false, after: slot + 70 });
  });

  it('is not claimed earlier than a span before its slot less the tolerance', () => {
    const early = slot - SPAN + SEND_LATE_TOLERANCE_MS;
    expect(receiverBound({}, RATE, slot, early)).toEqual({ go: false, until: early + 1 });
    expect(receiverBound({}, RATE, slot, early + 1)).toEqual({ go: true });
  });

  it('an attempt back within its margin is forgotten; a later one is kept for a second', () => {
    const out = goOut({ ...freshHealth('e', 'ep'), slotRate: RATE }, 'd1.1', slot, now);
    expect(out.out).toEqual({ 'd1.1': slot });
    const onTime = comeBack(out, 'd1.1', slot + SPAN - 1000);
    expect(onTime).toMatchObject({ out: {}, lateBacks: [] });
    const late = comeBack(out, 'd1.1', slot + SPAN - 999);
    expect(late).toMatchObject({ out: {}, lateBacks: [[slot, slot + SPAN + 1]] });
    // A late return a second old holds nothing back any more, and is dropped at the next write.
    expect(goOut(late!, 'd2.1', slot + 2000, slot + SPAN + 1).lateBacks).toEqual([]);
    expect(comeBack(late!, 'd1.1', slot + 100)).toBeUndefined();
    expect(neverLeft({ ...out }, 'd1.1').out).toEqual({});
  });
});

/** A seeded generator, so the run below is the same every time. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

interface Run {
  readonly arrivals: number[];
  readonly sent: number;
  readonly firstArrival: number;
  readonly lastArrival: number;
  /** How much longer than the margin the late answers took, in all (ms). */
  readonly excess: number;
}

/**
 * 300 deliveries to one endpoint at 10/s, all due at once, claimed as the worker claims them (in due
 * order, a held one again at `until` with the slot it kept). Each request leaves at its `sendAt`
 * plus up to the tolerance, and one in eight spends 200–1,500 ms on its way and answer; it arrives
 * somewhere within that time, and comes back at its end. `bounded`: through admitAttempt, which
 * records it out and back; otherwise through the slots alone (admit).
 */
function pace(bounded: boolean): Run {
  const rand = random(7);
  let health: EndpointHealthFields = freshHealth('endpoint', 'ep');
  const policy = { source: 'test', ratePerSecond: RATE };
  type Event = { at: number; order: number } & (
    { kind: 'claim'; id: number; slot?: number } | { kind: 'back'; attempt: string }
  );
  let order = 0;
  const queue: Event[] = Array.from({ length: 300 }, (_, id) => ({
    at: T0,
    order: order++,
    kind: 'claim' as const,
    id,
  }));
  const arrivals: number[] = [];
  let excess = 0;
  while (queue.length > 0) {
    queue.sort((a, b) => a.at - b.at || a.order - b.order);
    const e = queue.shift()!;
    if (e.kind === 'back') {
      health = comeBack(health, e.attempt, e.at) ?? health;
      continue;
    }
    const attempt = `d${e.id}.1`;
    const a: Admission = bounded
      ? admitAttempt(health, policy, e.at, attempt, e.slot)
      : admit(health, policy, e.at, e.slot);
    if (!a.ok) {
      if (a.health !== undefined) health = a.health;
      queue.push({ at: a.until, order: order++, kind: 'claim', id: e.id, slot: a.slot });
      continue;
    }
    health = a.health;
    const leaves = a.sendAt + Math.floor(rand() * (SEND_LATE_TOLERANCE_MS + 1));
    const way = rand() < 1 / 8 ? 200 + Math.floor(rand() * 1300) : 1 + Math.floor(rand() * 5);
    arrivals.push(leaves + Math.floor(rand() * way));
    excess += Math.max(0, way - (SPAN - 1000));
    queue.push({ at: leaves + way, order: order++, kind: 'back', attempt });
  }
  return {
    arrivals,
    sent: arrivals.length,
    firstArrival: Math.min(...arrivals),
    lastArrival: Math.max(...arrivals),
    excess,
  };
}

describe('a backlog through a receiver that is sometimes slow', () => {
  it('never puts more than the rate in any one second at the receiver; slots alone do', () => {
    const bounded = pace(true);
    const slotsAlone = pace(false);
    expect(bounded.sent).toBe(300);
    expect(slotsAlone.sent).toBe(300);
    expect(busiestWindow(bounded.arrivals)).toBeLessThanOrEqual(RATE);
    expect(busiestWindow(slotsAlone.arrivals)).toBeGreaterThan(RATE);
    // What it costs: each answer later than the margin holds the attempts a span after it back
    // until it is in, so the backlog takes at most that much longer in all.
    const seconds = (r: Run) => (r.lastArrival - r.firstArrival) / 1000;
    expect(seconds(slotsAlone)).toBeLessThan(33);
    expect(seconds(bounded)).toBeGreaterThan(seconds(slotsAlone));
    expect(seconds(bounded)).toBeLessThan(seconds(slotsAlone) + bounded.excess / 1000);
  });
});
