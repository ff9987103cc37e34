// Pacing an endpoint to its rate with booked slots (src/events/health/pace.ts, admit.ts): claims
// made in any pattern — a burst, claims across a second's turn, a backlog held and claimed again —
// are sent at times no one-second window of which holds more than the rate; a held delivery keeps
// the slot it booked and is looked at once more, just before it, not every second.
import { describe, expect, it } from 'vitest';
import { standardWebhooks } from '../../../packs/index.js';
import { admit } from '../../../src/events/health/admit.js';
import { healthTarget } from '../../../src/events/health/endpoint-of.js';
import {
  freshHealth,
  type EndpointHealthFields,
} from '../../../src/events/health/endpoint-health.js';
import type { HealthPolicy } from '../../../src/events/health/health-policy.js';
import {
  SLOT_LEAD_MS,
  SLOT_MARGIN_MS,
  SLOT_MIN_AHEAD_MS,
} from '../../../src/events/health/pace.js';
import type { Resource } from '../../../src/state/resource.js';
import { busiestWindow } from '../../support/busiest-window.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * What a paced, saturated endpoint shows in its busiest second: the rate, less what the margin
 * between slots takes (N slots span a second and SLOT_MARGIN_MS; never more than N).
 */
function leastBusiest(rate: number): number {
  return Math.min(rate, Math.floor((1000 * rate) / (1000 + SLOT_MARGIN_MS)) + 1);
}

interface Sim {
  /** When each attempt was sent. */
  readonly sent: number[];
  /** How many times each delivery was looked at before it was sent. */
  readonly looks: number[];
  readonly health: EndpointHealthFields;
}

/**
 * Deliveries to one endpoint, each first claimed at its time in `claims`: a claim admitted goes at
 * its `sendAt`, a held one is claimed again at `until`, with the slot it booked — as the
 * dispatcher and the worker do, on one clock, in due order.
 */
function simulate(policy: HealthPolicy, claims: readonly number[]): Sim {
  let health = freshHealth('endpoint', 'ep_1');
  const due = claims.map((at, id) => ({ id, at, slot: undefined as number | undefined }));
  const sent: number[] = [];
  const looks = claims.map(() => 0);
  while (due.length > 0) {
    due.sort((a, b) => a.at - b.at || a.id - b.id);
    const d = due.shift()!;
    looks[d.id]!++;
    const a = admit(health, policy, d.at, d.slot);
    if (a.ok) {
      health = a.health;
      sent.push('sendAt' in a ? a.sendAt : d.at);
      continue;
    }
    if (a.health !== undefined) health = a.health;
    due.push({ id: d.id, at: a.until, slot: a.slot });
  }
  return { sent, looks, health };
}

const at40: HealthPolicy = { source: 'test', ratePerSecond: 40 };

describe('pacing to the rate', () => {
  it('a burst of claims at one instant goes out one slot apart, never more than the rate in any second', () => {
    const { sent } = simulate(at40, Array<number>(200).fill(T0));
    expect(sent).toHaveLength(200);
    expect(busiestWindow(sent)).toBe(leastBusiest(40));
    const gaps = sent.slice(1).map((t, i) => t - sent[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(Math.floor((1000 + SLOT_MARGIN_MS) / 40));
    // 200 at 40/s take five seconds (and the margin), not one burst per second.
    expect(sent.at(-1)! - sent[0]!).toBeGreaterThanOrEqual(Math.ceil((199 * 1000) / 40));
  });

  it('claims at the end of one second and the start of the next do not add up', () => {
    // Today's per-second count let 40 go at 0.99 s and 40 more at 1.00 s: 80 in 10 ms.
    const claims = [...Array<number>(40).fill(T0 + 990), ...Array<number>(40).fill(T0 + 1000)];
    expect(busiestWindow(simulate(at40, claims).sent)).toBeLessThanOrEqual(40);
  });

  it('a held backlog is released at the rate, each delivery looked at once more, just before its slot', () => {
    const { sent, looks } = simulate(at40, Array<number>(400).fill(T0));
    expect(busiestWindow(sent)).toBeLessThanOrEqual(40);
    // Every second of the ten has its share: no second left empty and the next one crowded.
    const perSecond = new Map<number, number>();
    for (const t of sent)
      perSecond.set(
        Math.floor((t - T0) / 1000),
        (perSecond.get(Math.floor((t - T0) / 1000)) ?? 0) + 1,
      );
    for (const n of [...perSecond.values()].slice(0, -1)) expect(n).toBeGreaterThanOrEqual(36);
    expect(Math.max(...looks)).toBeLessThanOrEqual(2);
  });

  it('rates that do not divide a second evenly keep their count in every window', () => {
    for (const rate of [3, 7, 120, 160]) {
      const { sent } = simulate(
        { source: 'test', ratePerSecond: rate },
        Array.from({ length: rate * 6 }, (_, i) => T0 + (i % 7) * 113),
      );
      expect(busiestWindow(sent), `${rate}/s`).toBe(leastBusiest(rate));
    }
  });

  it('a fractional rate keeps whole attempts: 2.5/s allows 2 in a second, 0.5/s one in two seconds', () => {
    expect(
      busiestWindow(simulate({ source: 't', ratePerSecond: 2.5 }, Array<number>(10).fill(T0)).sent),
    ).toBe(2);
    const slow = simulate({ source: 't', ratePerSecond: 0.5 }, Array<number>(4).fill(T0)).sent;
    expect(slow.slice(1).map((t, i) => t - slow[i]!)).toEqual([2000, 2000, 2000]);
  });

  it('an idle endpoint earns no burst: after a pause, sends start again one slot apart', () => {
    const first = simulate(at40, Array<number>(10).fill(T0));
    let health = first.health;
    const later: number[] = [];
    for (let i = 0; i < 5; i++) {
      const a = admit(health, at40, T0 + 60_000);
      if (!a.ok) break;
      health = a.health;
      later.push(a.sendAt);
    }
    expect(
      later
        .slice(1)
        .map((t, i) => t - later[i]!)
        .every((g) => g >= 25),
    ).toBe(true);
  });

  it('a new slot lies past the claim by room for its commit, and one near is claimed now and sent then', () => {
    const a = admit(freshHealth('k', 'e'), at40, T0);
    expect(a.ok && a.sendAt).toBe(T0 + SLOT_MIN_AHEAD_MS);
  });

  it('a slot claimed late is not sent late into later slots: the attempt books afresh', () => {
    const { health } = simulate(at40, Array<number>(40).fill(T0));
    // A held delivery whose slot was T0+200 comes back only at T0+5000 (a stalled worker).
    const late = admit(health, at40, T0 + 5_000, T0 + 200);
    // Its new slot lies further ahead than a first claim's, as the endpoint's claims now lead more.
    expect(late.ok && late.sendAt).toBe(T0 + 5_000 + SLOT_MIN_AHEAD_MS + SLOT_LEAD_MS);
    expect(late.ok && late.health.claimLeadMs).toBe(2 * SLOT_LEAD_MS);
    // One that comes back in time takes its own slot and books nothing.
    const onTime = admit(health, at40, T0 + 200 - SLOT_LEAD_MS, T0 + 200);
    expect(onTime.ok && onTime.sendAt).toBe(T0 + 200);
    expect(onTime.ok && onTime.health.slotsBooked).toBe(health.slotsBooked);
  });

  it('claims late for their slots make the endpoint’s claims lead further (up to 800 ms); timely ones shrink it back', () => {
    // A backlog of 200 held deliveries, slots booked back to back.
    let { health } = simulate(at40, Array<number>(200).fill(T0));
    // Four claims in a row come 100 ms after their slots: the lead doubles each time, to 800.
    const leads: (number | undefined)[] = [];
    for (let k = 0; k < 4; k++) {
      const a = admit(health, at40, T0 + 1_000 + k, T0 + 900);
      expect(a.ok).toBe(false);
      health = a.health!;
      leads.push(health.claimLeadMs);
    }
    expect(leads).toEqual([200, 400, 800, 800]);
    // A held delivery is now due that lead before its new slot.
    const held = admit(health, at40, T0 + 1_100, T0 + 900);
    expect(held.ok).toBe(false);
    expect(held.ok === false && held.slot! - held.until).toBeGreaterThanOrEqual(800);
    // Claims in time for their slots take a thirty-second off each time, back to SLOT_LEAD_MS.
    let timely = 0;
    while ((health.claimLeadMs ?? SLOT_LEAD_MS) > SLOT_LEAD_MS && timely < 1_000) {
      const slot = T0 + 10_000 + timely * 30;
      const a = admit(health, at40, slot - 10, slot);
      expect(a.ok).toBe(true);
      if (a.ok) health = a.health;
      timely++;
    }
    expect(health.claimLeadMs).toBe(SLOT_LEAD_MS);
    expect(timely).toBeGreaterThan(40);
    expect(timely).toBeLessThan(100);
  });

  it('the endpoint’s own rate overrides the pack’s default, and the default paces the rest', () => {
    const decl = standardWebhooks.pack.events!;
    const withDefault = { ...decl, health: { ...decl.health!, ratePerSecond: 10 } };
    const endpoint = (id: string, fields: Record<string, number>): Resource => ({
      type: 'endpoint',
      id,
      version: 1,
      deleted: false,
      fields: { url: 'http://127.0.0.1:9/hook', ...fields },
    });
    const view = {
      get: (_type: string, id: string) =>
        id === 'ep_own' ? endpoint(id, { throttleRate: 4 }) : endpoint(id, {}),
    };
    const own = healthTarget(view, withDefault, { endpointKind: 'endpoint', endpointId: 'ep_own' });
    const rest = healthTarget(view, withDefault, { endpointKind: 'endpoint', endpointId: 'ep_2' });
    expect(busiestWindow(simulate(own!.policy, Array<number>(30).fill(T0)).sent)).toBe(4);
    expect(busiestWindow(simulate(rest!.policy, Array<number>(30).fill(T0)).sent)).toBe(
      leastBusiest(10),
    );
  });

  it('the breaker and Retry-After still come first: a held attempt with a slot waits for them', () => {
    const { health } = simulate(at40, Array<number>(5).fill(T0));
    const throttled: EndpointHealthFields = {
      ...health,
      state: 'throttled',
      pausedUntil: new Date(T0 + 5_000).toISOString(),
    };
    expect(admit(throttled, at40, T0 + 100, T0 + 150)).toEqual({
      ok: false,
      until: T0 + 5_000,
      why: 'retry_after',
    });
    const open: EndpointHealthFields = {
      ...health,
      state: 'open',
      pausedUntil: new Date(T0 + 60_000).toISOString(),
    };
    expect(admit(open, at40, T0 + 100, T0 + 150)).toMatchObject({ ok: false, why: 'breaker_open' });
  });

  it('a delivery held for the rate after the breaker’s pause records only its booking: the probe is not spent', () => {
    // A backlog at an endpoint whose breaker pause is over: the next free slot is seconds away.
    const { health } = simulate(at40, Array<number>(200).fill(T0));
    const paused: EndpointHealthFields = {
      ...health,
      state: 'open',
      pausedUntil: new Date(T0 + 50).toISOString(),
    };
    const held = admit(paused, at40, T0 + 100);
    expect(held).toMatchObject({ ok: false, why: 'rate_limited' });
    expect(held.ok === false && held.health).toMatchObject({
      state: 'open',
      pausedUntil: paused.pausedUntil,
      slotsBooked: health.slotsBooked + 1,
    });
  });
});
