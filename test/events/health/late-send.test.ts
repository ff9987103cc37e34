// A send too late for its rate slot (src/events/health/late-send.ts, pace.ts): the sender checks
// the world clock just before the request leaves; within SEND_LATE_TOLERANCE_MS of its slot the
// request goes, later it does not — the claim is undone under the twin's lock (no attempt, no
// retry burnt), the delivery books a new slot and is held to it, and goes out there, once (late
// again, it is held back again, claimed further ahead each time). The lateness is made by a vault resolver that takes
// time on the world clock to answer (what a loaded machine looks like to the sender: time passes
// while it signs). A virtual clock moved by the test does not move while a request is signed, so
// a walk's sends are never late.
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/events/dispatcher.js';
import { admitLate } from '../../../src/events/health/admit.js';
import { freshHealth } from '../../../src/events/health/endpoint-health.js';
import { decideLateSend } from '../../../src/events/health/late-send.js';
import {
  lateForSlot,
  MAX_REBOOKS,
  rebookLead,
  SEND_LATE_TOLERANCE_MS,
  SLOT_LEAD_MS,
  SLOT_MIN_AHEAD_MS,
} from '../../../src/events/health/pace.js';
import { getPack, registerPack } from '../../../src/events/pack-registry.js';
import type { RetryPolicy } from '../../../src/events/retry.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../../src/events/transports/in-process-transport.js';
import { VirtualClock } from '../../../src/world/clock.js';
import { normalizeDecision } from '../../../src/world/decision.js';
import type { Twin } from '../../../src/world/twin.js';
import { openWorld } from '../../../src/world/world.js';
import { MemoryBackend } from '../../../src/storage/memory/memory-backend.js';
import { ACME_SECRET, acmePack } from '../../support/acme-pack.js';
import { interceptStoreWrites } from '../../support/intercepted-backend.js';

const T0 = Date.parse('2026-04-01T00:00:00.000Z');
const RATE = 10;
/** Slot k of a run anchored at a: a + ceil(k · 1050 / 10) (pace.ts). */
const SLOT_GAP = 105;
const iso = (ms: number) => new Date(ms).toISOString();

describe('whether a send is too late for its slot', () => {
  it('at its slot and up to the tolerance it goes; a millisecond later it does not', () => {
    const slot = T0 + 50;
    expect(lateForSlot(slot, slot - 10)).toBe(false);
    expect(lateForSlot(slot, slot)).toBe(false);
    expect(lateForSlot(slot, slot + SEND_LATE_TOLERANCE_MS)).toBe(false);
    expect(lateForSlot(slot, slot + SEND_LATE_TOLERANCE_MS + 1)).toBe(true);
  });

  it('each time an attempt is late it is claimed twice as far ahead of its slot, at most six times', () => {
    expect(MAX_REBOOKS).toBe(6);
    expect(Array.from({ length: MAX_REBOOKS }, (_, k) => rebookLead(k + 1))).toEqual(
      [2, 4, 8, 16, 32, 64].map((x) => x * SLOT_LEAD_MS),
    );
  });

  it('a late send is held to the endpoint’s next free slot, or behind the breaker, never let through', () => {
    const policy = { source: 'test', ratePerSecond: RATE };
    const busy = {
      ...freshHealth('endpoint', 'ep'),
      slotAnchor: T0,
      slotsBooked: 30,
      slotRate: RATE,
    };
    const lead = rebookLead(1);
    // A backlog: the next free slot is 30 slots on, and the delivery waits until the lead before it.
    const behind = admitLate(busy, policy, T0 + 100, lead);
    expect(behind).toMatchObject({ ok: false, why: 'rate_limited', slot: T0 + 30 * SLOT_GAP });
    expect(behind.health).toMatchObject({ slotAnchor: T0, slotsBooked: 31 });
    expect(behind.until).toBeLessThanOrEqual(T0 + 30 * SLOT_GAP - lead);
    expect(behind.until).toBeGreaterThan(T0 + 30 * SLOT_GAP - lead - 50);
    // An idle endpoint: a slot the lead ahead is booked, and still only held (due at once).
    const idle = admitLate(freshHealth('endpoint', 'ep'), policy, T0, lead);
    expect(idle).toMatchObject({ ok: false, why: 'rate_limited', slot: T0 + lead });
    expect(idle.until).toBeLessThanOrEqual(T0);
    // The breaker is open: held until it lets a probe through, and no slot is booked.
    const open = { ...busy, state: 'open' as const, pausedUntil: iso(T0 + 60_000) };
    expect(admitLate(open, policy, T0 + 100, lead)).toEqual({
      ok: false,
      until: T0 + 60_000,
      why: 'breaker_open',
    });
  });
});

const RETRY_ONCE: RetryPolicy = { delaysMs: [60_000], retryOn: ['failed'], jitter: 0 };

/** A virtual clock the vault can move on without running what is due (time passing mid-send). */
class SlowVaultClock extends VirtualClock {
  jump(ms: number): void {
    this.moveTo(this.now() + ms);
  }
}

/**
 * A world whose acme endpoint is paced at 10/s, and a vault the test can make slow. `failRebooks`
 * rebook sections fail in the store (the entry's append throws) before the rest go through.
 */
async function setup(failRebooks = 0) {
  const clock = new SlowVaultClock(T0);
  let vaultTakes = 0;
  let failsLeft = failRebooks;
  const errors: string[] = [];
  const backend = interceptStoreWrites(new MemoryBackend(), {
    append: (entry, write) => {
      if (entry.operation === 'delivery.rebook' && failsLeft > 0) {
        failsLeft--;
        throw new Error('injected: the store failed on the rebook');
      }
      write();
    },
  });
  const world = openWorld({
    root: ':memory:',
    backend,
    onError: (e) => errors.push(String(e)),
    clock,
    seed: 'late-send',
    // Undefined: the secret is the stored one; the vault only takes its time on the clock.
    resolveSecret: () => {
      clock.jump(vaultTakes);
      return undefined;
    },
  });
  const events = acmePack(RETRY_ONCE).events!;
  const twin = registerPack(world, {
    name: 'acme',
    events: { ...events, health: { source: 'test', ratePerSecond: RATE } },
  });
  const received: InProcessRequest[] = [];
  let status = 200;
  const dispatcher = new Dispatcher(world, {
    routes: [
      {
        prefix: 'inproc://',
        transport: new InProcessTransport(clock, (req) => {
          received.push(req);
          return status;
        }),
      },
    ],
    autoDispatch: false,
  });
  await world.secrets.set('ep', ACME_SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
  await twin.applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_1',
    fields: { email: 'cus_1@example.com' },
  });
  const [delivery] = await twin.list('delivery');
  const id = delivery!.id;
  return {
    clock,
    errors,
    world,
    twin,
    dispatcher,
    received,
    id,
    answerWith: (s: number) => void (status = s),
    /** How long on the world clock the vault takes to answer from now on. */
    vaultTakes: (ms: number) => void (vaultTakes = ms),
    record: async () => (await fieldsOf(twin, 'delivery', id))!,
    attempts: async () =>
      (await twin.list('delivery_attempt')).map((a): Record<string, unknown> => ({
        id: a.id,
        ...a.fields,
      })),
    ops: async () => (await twin.entries()).map((e) => e.operation),
  };
}

/**
 * The first attempt is claimed for the endpoint's first slot, and its send comes a millisecond
 * past the tolerance (the vault took that long). Answers the slot and when the send was checked.
 */
async function sendFirstLate(w: Awaited<ReturnType<typeof setup>>) {
  const slot = T0 + SLOT_MIN_AHEAD_MS;
  const late = slot + SEND_LATE_TOLERANCE_MS + 1;
  await w.dispatcher.dispatch('acme', w.id);
  w.vaultTakes(SEND_LATE_TOLERANCE_MS + 1);
  await w.clock.set(late);
  await w.dispatcher.idle();
  return { slot, late };
}

async function fieldsOf(twin: Twin, type: string, id: string) {
  return (await twin.get(type, id))?.fields;
}

describe('a send too late for its slot books a new one instead of going', () => {
  it('on time: sent in its slot, as attempt 1', async () => {
    const w = await setup();
    const slot = T0 + SLOT_MIN_AHEAD_MS;
    expect(await w.dispatcher.dispatch('acme', w.id)).toBeUndefined(); // claimed, sent at its slot
    await w.clock.set(slot);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await w.attempts()).toEqual([
      expect.objectContaining({ id: `${w.id}.1`, startedAt: iso(slot), state: 'succeeded' }),
    ]);
    expect(await w.ops()).not.toContain('delivery.rebook');
    // Out from its claim, back with its answer: nothing holds later attempts back.
    expect((await w.twin.list('endpoint_health'))[0]!.fields).toMatchObject({
      out: {},
      lateBacks: [],
    });
    await w.world.close();
  });

  it('a dispatcher closed while an attempt waits for its slot hands the claim back: nothing sent, nothing left out', async () => {
    const w = await setup();
    const health = async () => (await w.twin.list('endpoint_health'))[0]!.fields;
    await w.dispatcher.dispatch('acme', w.id); // claimed, waiting for its slot
    expect((await health()).out).toEqual({ [`${w.id}.1`]: T0 + SLOT_MIN_AHEAD_MS });
    await w.dispatcher.close();
    expect(w.received).toHaveLength(0);
    expect(await w.record()).toMatchObject({
      state: 'queued',
      attempts: 0,
      currentAttempt: null,
      owner: null,
      heldFor: 'rate_limited',
    });
    expect(await w.attempts()).toEqual([]);
    // Not out any more: it holds no later attempt back until a takeover (receiver-bound.ts).
    expect((await health()).out).toEqual({});
    await w.world.close();
  });

  it('exactly the tolerance late: still sent, in its slot', async () => {
    const w = await setup();
    const slot = T0 + SLOT_MIN_AHEAD_MS;
    await w.dispatcher.dispatch('acme', w.id);
    w.vaultTakes(SEND_LATE_TOLERANCE_MS);
    await w.clock.set(slot + SEND_LATE_TOLERANCE_MS);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    expect(w.received[0]!.headers['x-acme-attempt']).toBe('1');
    expect(w.received[0]!.receivedAt).toBe(slot + SEND_LATE_TOLERANCE_MS);
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await w.ops()).not.toContain('delivery.rebook');
    await w.world.close();
  });

  it('a millisecond later: not sent, the claim undone and a new slot booked; it goes there, once, as attempt 1', async () => {
    const w = await setup();
    const { slot, late } = await sendFirstLate(w);
    expect(w.received).toHaveLength(0);
    // As if the claim had never been made: queued, no attempt, no owner; held to a new slot, the
    // first one free at least twice the usual lead ahead (the endpoint's next, slot + 105, is nearer).
    const next = late + rebookLead(1);
    expect(next).toBeGreaterThan(slot + SLOT_GAP);
    const entries = await w.twin.entries();
    const rebook = entries.filter((e) => e.operation === 'delivery.rebook');
    expect(rebook).toHaveLength(1);
    expect(rebook[0]!.fields).toMatchObject({
      state: 'queued',
      attempts: 0,
      currentAttempt: null,
      owner: null,
      leaseUntil: null,
      heldFor: 'rate_limited',
      slotAt: iso(next),
      slotAttempt: 1,
      rebookedAttempt: 1,
      rebooks: 1,
    });
    expect(Date.parse(String(rebook[0]!.fields!.dueAt))).toBeLessThanOrEqual(late);
    expect(rebook[0]!.recordedAt).toBe(iso(late));
    expect(rebook[0]!.projection).toEqual({
      deletes: [{ type: 'delivery_attempt', id: `${w.id}.1` }],
    });
    const i = entries.indexOf(rebook[0]!);
    expect(entries[i - 1]).toMatchObject({
      operation: 'endpoint_health.book',
      fields: { slotAnchor: next, slotsBooked: 1 },
    });
    // The hold was due at once, so this process claimed it again, for the new slot.
    expect(await w.record()).toMatchObject({ state: 'sending', attempts: 1 });
    expect(await w.attempts()).toEqual([
      expect.objectContaining({ id: `${w.id}.1`, startedAt: iso(next), state: 'sending' }),
    ]);

    // It goes in the new slot, once.
    w.vaultTakes(0);
    await w.clock.set(next);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    expect(w.received[0]!.headers['x-acme-attempt']).toBe('1');
    expect(w.received[0]!.receivedAt).toBe(next);
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await w.attempts()).toEqual([
      expect.objectContaining({ id: `${w.id}.1`, startedAt: iso(next), state: 'succeeded' }),
    ]);
    expect((await w.ops()).filter((o) => o === 'delivery.rebook')).toHaveLength(1);
    await w.world.close();
  });

  it('late again in its new slot: held back again, claimed twice as far ahead; on time there, it goes once', async () => {
    const w = await setup();
    const { late } = await sendFirstLate(w);
    const next = late + rebookLead(1);
    expect(await w.record()).toMatchObject({ state: 'sending', rebookedAttempt: 1, rebooks: 1 });
    // Late in the new slot too: not sent, held to a third slot, four times the lead ahead.
    const lateAgain = next + SEND_LATE_TOLERANCE_MS + 1;
    const third = lateAgain + rebookLead(2);
    await w.clock.set(lateAgain);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(0);
    expect(await w.record()).toMatchObject({
      state: 'sending',
      attempts: 1,
      rebookedAttempt: 1,
      rebooks: 2,
      slotAt: iso(third),
    });
    expect(await w.attempts()).toEqual([
      expect.objectContaining({ id: `${w.id}.1`, startedAt: iso(third), state: 'sending' }),
    ]);
    // On time there: sent once, as attempt 1, in that slot.
    w.vaultTakes(0);
    await w.clock.set(third);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    expect(w.received[0]!.receivedAt).toBe(third);
    expect(w.received[0]!.headers['x-acme-attempt']).toBe('1');
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect((await w.ops()).filter((o) => o === 'delivery.rebook')).toHaveLength(2);
    await w.world.close();
  });

  it('late every time (MAX_REBOOKS held back already): the last goes as it is, so a loaded machine still delivers', async () => {
    const w = await setup();
    const { late } = await sendFirstLate(w);
    // Held back: each new slot lies, and its claim comes, twice as far ahead as the time before.
    let slot = late + rebookLead(1);
    for (let k = 2; k <= MAX_REBOOKS; k++) {
      const at = slot + SEND_LATE_TOLERANCE_MS + 1;
      slot = at + rebookLead(k);
      await w.clock.set(at);
      await w.dispatcher.idle();
      expect(w.received).toHaveLength(0);
      expect(await w.record()).toMatchObject({ rebooks: k, slotAt: iso(slot) });
    }
    // Late in the last slot too: it goes.
    await w.clock.set(slot + SEND_LATE_TOLERANCE_MS + 1);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    expect(w.received[0]!.receivedAt).toBe(slot + SEND_LATE_TOLERANCE_MS + 1);
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect((await w.ops()).filter((o) => o === 'delivery.rebook')).toHaveLength(MAX_REBOOKS);
    await w.world.close();
  });

  it('a rebook whose commit fails is tried again: held to a new slot all the same, sent once', async () => {
    const w = await setup(2);
    const { late } = await sendFirstLate(w);
    expect(w.received).toHaveLength(0);
    // The failed tries were reported (a group's section may also run a failed member again on
    // its own, so two failures can be one try), a later one committed: one rebook in the log.
    expect(w.errors.length).toBeGreaterThan(0);
    for (const e of w.errors) expect(e).toContain('injected: the store failed on the rebook');
    expect((await w.ops()).filter((o) => o === 'delivery.rebook')).toHaveLength(1);
    const next = late + rebookLead(1);
    expect(await w.record()).toMatchObject({ state: 'sending', attempts: 1, slotAt: iso(next) });
    w.vaultTakes(0);
    await w.clock.set(next);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 1 });
    await w.world.close();
  });

  it('a rebook that keeps failing is given up: nothing is sent, and the claim is left to its lease', async () => {
    const w = await setup(Number.POSITIVE_INFINITY);
    await sendFirstLate(w);
    expect(w.received).toHaveLength(0);
    // Each try reported, the last as the dispatch's error.
    expect(w.errors.length).toBeGreaterThanOrEqual(3);
    for (const e of w.errors) expect(e).toContain('injected: the store failed on the rebook');
    // Still this sender's claim, as the claim left it: whoever takes it over after the lease
    // finishes it as a sender that stopped (recover.ts), never sends it blindly.
    expect(await w.record()).toMatchObject({ state: 'sending', attempts: 1 });
    expect((await w.ops()).filter((o) => o === 'delivery.rebook')).toHaveLength(0);
    await w.dispatcher.close();
    await w.world.close();
  });

  it('a late retry burns no retry: the policy’s one retry is still the one that goes, as attempt 2', async () => {
    const w = await setup();
    w.answerWith(500);
    await w.dispatcher.dispatch('acme', w.id);
    await w.clock.set(T0 + SLOT_MIN_AHEAD_MS);
    await w.dispatcher.idle();
    const failed = await w.record();
    expect(failed).toMatchObject({ state: 'retrying', attempts: 1 });
    const retryAt = Date.parse(String(failed.nextAttemptAt));
    w.answerWith(200);
    // The retry is claimed at its time and waits for its slot; the vault makes it late.
    w.vaultTakes(SEND_LATE_TOLERANCE_MS + 1);
    await w.clock.set(retryAt + SLOT_MIN_AHEAD_MS + SEND_LATE_TOLERANCE_MS + 1);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(1);
    const rebook = (await w.twin.entries()).filter((e) => e.operation === 'delivery.rebook');
    expect(rebook).toHaveLength(1);
    expect(rebook[0]!.fields).toMatchObject({
      state: 'retrying',
      attempts: 1,
      currentAttempt: null,
      finishedAt: failed.finishedAt,
      heldFor: 'rate_limited',
      slotAttempt: 2,
    });
    expect(rebook[0]!.projection).toEqual({
      deletes: [{ type: 'delivery_attempt', id: `${w.id}.2` }],
    });

    w.vaultTakes(0);
    await w.clock.set(retryAt + 5_000);
    await w.dispatcher.idle();
    expect(w.received).toHaveLength(2);
    expect(w.received[1]!.headers['x-acme-attempt']).toBe('2');
    // Succeeded on the policy's only retry: the late one was not counted.
    expect(await w.record()).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect((await w.attempts()).map((a) => [a.id, a.kind, a.state])).toEqual([
      [`${w.id}.1`, 'first', 'failed'],
      [`${w.id}.2`, 'retry', 'succeeded'],
    ]);
    await w.world.close();
  });

  it('only the claim’s holder can undo it: another owner or an older fence writes nothing', async () => {
    const w = await setup();
    await w.dispatcher.dispatch('acme', w.id);
    const d = await w.record();
    const claim = {
      attemptId: String(d.currentAttempt),
      number: 1,
      kind: 'first' as const,
      owner: String(d.owner),
      fence: Number(d.fence),
    };
    const pack = getPack(w.world, 'acme').events!;
    const decide = (c: typeof claim) =>
      w.twin.read((view) => normalizeDecision(decideLateSend(view, pack, w.id, c, T0 + 500)));
    expect(await decide({ ...claim, owner: 'wrk_other' })).toMatchObject({ skipped: true });
    expect(await decide({ ...claim, fence: claim.fence - 1 })).toMatchObject({ skipped: true });
    expect(await decide({ ...claim, attemptId: `${w.id}.2` })).toMatchObject({ skipped: true });
    const mine = await decide(claim);
    expect(mine.skipped).toBe(false);
    expect(mine.result).toEqual({ until: expect.any(Number) });
    await w.dispatcher.close();
    await w.world.close();
  });
});
