// A finish finishes only an attempt claimed for its record (type and id), and the record carries
// `finishedAt` of its last attempt: null before the first and while one is in flight.
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/events/dispatcher.js';
import {
  decideClaim,
  decideAttemptFinish,
  type Claim,
  type Finish,
} from '../../src/events/delivery-records.js';
import { InProcessTransport } from '../../src/events/transports/in-process-transport.js';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/index.js'; // the root entry: registerPack's module moves in issue 9
import { openWorld } from '../../src/world/world.js';
import { ACME_SECRET, acmePack, createAcmeEndpoint } from '../support/acme-pack.js';

const T0 = '2026-04-01T00:00:00.000Z';
const OK: Finish = { outcome: 'succeeded', status: 200, reason: 'http_status', headers: null };

async function twoClaimed() {
  const clock = new VirtualClock(T0);
  const world = openWorld({ root: ':memory:', clock, seed: 'finish' });
  const twin = registerPack(world, acmePack());
  // No dispatcher: the test claims and finishes by hand.
  for (const id of ['ep_a', 'ep_b']) {
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: id,
      fields: { url: `inproc://${id}`, secret_ref: id, events: ['*'], status: 'enabled' },
    });
  }
  await twin.applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_1',
    fields: {},
  });
  const [a, b] = (await twin.list('delivery')).map((r) => r.id);
  const claim = async (id: string) =>
    (await twin.applyAtomic((view) => decideClaim(view, 'delivery', id, 'first', T0, clock.now())))
      .result!;
  return { world, twin, a: a!, b: b!, claimA: await claim(a!), claimB: await claim(b!) };
}

describe('finish identity', () => {
  it("a finish with another record's attempt finishes nothing", async () => {
    const s = await twoClaimed();
    const head = await s.twin.head();
    const out = await s.twin.applyAtomic((view) =>
      decideAttemptFinish(view, 'delivery', s.a, s.claimB, OK, T0),
    );
    expect(out.result).toBeUndefined();
    expect(out.entries).toEqual([]);
    expect(await s.twin.head()).toBe(head);
    expect((await s.twin.get('delivery_attempt', s.claimB.attemptId))!.fields.state).toBe(
      'sending',
    );
    expect((await s.twin.get('delivery', s.a))!.fields).toMatchObject({
      state: 'sending',
      currentAttempt: s.claimA.attemptId,
    });
    // its own finish goes through
    expect(
      (
        await s.twin.applyAtomic((view) =>
          decideAttemptFinish(view, 'delivery', s.b, s.claimB, OK, T0),
        )
      ).result,
    ).toBe('succeeded');
    await s.world.close();
  });

  it('a finish refuses an attempt claimed for another record type, even under the same id', async () => {
    const s = await twoClaimed();
    // An attempt resource that names another record type (as a stray or imported write could).
    const stray: Claim = { attemptId: `${s.a}.9`, number: 9, kind: 'first' };
    await s.twin.applyWrite({
      operation: 'stray.write',
      subjectType: 'delivery_attempt',
      subjectId: stray.attemptId,
      fields: { recordType: 'hook_delivery', delivery: s.a, number: 9, state: 'sending' },
    });
    const out = await s.twin.applyAtomic((view) =>
      decideAttemptFinish(view, 'delivery', s.a, stray, OK, T0),
    );
    expect(out.entries).toEqual([]);
    expect((await s.twin.get('delivery_attempt', stray.attemptId))!.fields.state).toBe('sending');
    await s.world.close();
  });

  it('claims name the record type on the attempt; attempts from before that are checked by id alone', async () => {
    const s = await twoClaimed();
    expect((await s.twin.get('delivery_attempt', s.claimA.attemptId))!.fields).toMatchObject({
      recordType: 'delivery',
      delivery: s.a,
    });
    const legacy: Claim = { attemptId: `${s.a}.7`, number: 7, kind: 'first' };
    await s.twin.applyWrite({
      operation: 'legacy.write',
      subjectType: 'delivery_attempt',
      subjectId: legacy.attemptId,
      fields: { delivery: s.b, number: 7, state: 'sending' },
    });
    // claimed for b: a finish for a refuses it
    expect(
      (
        await s.twin.applyAtomic((view) =>
          decideAttemptFinish(view, 'delivery', s.a, legacy, OK, T0),
        )
      ).entries,
    ).toEqual([]);
    // for b it records the attempt's outcome (b's current attempt is another, so b does not move)
    const forB = await s.twin.applyAtomic((view) =>
      decideAttemptFinish(view, 'delivery', s.b, legacy, OK, T0),
    );
    expect(forB.entries.map((e) => e.operation)).toEqual(['delivery_attempt.finish']);
    await s.world.close();
  });

  it('the record carries finishedAt of its last attempt, null while one is in flight', async () => {
    const clock = new VirtualClock(T0);
    const world = openWorld({ root: ':memory:', clock, seed: 'finished-at' });
    const twin = registerPack(
      world,
      acmePack({ delaysMs: [60_000], retryOn: ['failed'], jitter: 0 }),
    );
    const statuses = [500, 200];
    let inFlight: Record<string, unknown> | undefined;
    const transport = new InProcessTransport(clock, async () => {
      inFlight = { ...(await twin.list('delivery'))[0]!.fields };
      return statuses.shift()!;
    });
    const dispatcher = new Dispatcher(world, { routes: [{ prefix: 'inproc://', transport }] });
    await world.secrets.set('ep', ACME_SECRET);
    await createAcmeEndpoint(twin);
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: {},
    });
    expect((await twin.list('delivery'))[0]!.fields.finishedAt).toBeNull();
    await dispatcher.idle();
    expect(inFlight).toMatchObject({ state: 'sending', finishedAt: null });
    const record = async () => (await twin.list('delivery'))[0]!;
    const attempt = async (n: number) =>
      (await twin.get('delivery_attempt', `${(await record()).id}.${n}`))!.fields;
    expect((await record()).fields).toMatchObject({ state: 'retrying', finishedAt: T0 });
    expect((await record()).fields.finishedAt).toBe((await attempt(1)).finishedAt);
    await clock.advance(60_000);
    await dispatcher.idle();
    // the retry's claim cleared it while it was in flight; its finish set it again
    expect(inFlight).toMatchObject({ state: 'sending', finishedAt: null, attempts: 2 });
    expect((await record()).fields).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect((await record()).fields.finishedAt).toBe((await attempt(2)).finishedAt);
    expect((await record()).fields.finishedAt).not.toBe((await attempt(1)).finishedAt);
    await world.close();
  });
});
