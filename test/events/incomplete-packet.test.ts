// Incomplete packets are refused before the claim: a delivery record without a url, a body, or
// what its signed headers are made from ends `refused` with the reason, no attempt is created,
// no observer sees a packet and the receiver gets no request.
import { describe, expect, it } from 'vitest';
import { Dispatcher, type SignedPacket } from '../../src/events/dispatcher.js';
import { packetGap } from '../../src/events/packet.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../src/events/transports/in-process-transport.js';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/index.js'; // the root entry: registerPack's module moves in issue 9
import { openWorld } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';

async function setup() {
  const clock = new VirtualClock('2026-04-01T00:00:00Z');
  const world = openWorld({ root: ':memory:', clock, seed: 'packet' });
  const twin = registerPack(
    world,
    acmePack({ delaysMs: [60_000], retryOn: ['failed', 'unknown'] }),
  );
  const received: InProcessRequest[] = [];
  const seen: SignedPacket[] = [];
  const transport = new InProcessTransport(clock, (req) => (received.push(req), 200));
  const dispatcher = new Dispatcher(world, { routes: [{ prefix: 'inproc://', transport }] });
  dispatcher.observe((p) => seen.push(p));
  await world.secrets.set('ep', ACME_SECRET);
  return { clock, world, twin, dispatcher, received, seen };
}

/** A record as fan-out writes it, for writing one directly with a part taken out. */
function recordFields(without: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    state: 'queued',
    attempts: 0,
    currentAttempt: null,
    nextAttemptAt: null,
    acceptedAt: null,
    finishedAt: null,
    lastStatus: null,
    lastOutcome: null,
    pack: 'acme',
    eventType: 'customer.created',
    eventId: 'evt_1',
    messageId: 'msg_1',
    endpointKind: 'endpoint',
    endpointId: 'ep',
    secretRef: 'ep',
    url: 'inproc://ep/hook',
    body: '{"type":"customer.created"}',
    createdAt: '2026-04-01T00:00:00.000Z',
    traceparent: null,
    tracestate: null,
  };
  delete fields[without];
  return fields;
}

describe('incomplete packets are refused before the claim', () => {
  it('an endpoint without a url: the record is refused (incomplete_packet: url), nothing attempted or sent', async () => {
    const s = await setup();
    await s.twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await s.twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'a@example.com' },
    });
    await s.dispatcher.idle();
    const [record] = await s.twin.list('delivery');
    expect(record!.fields).toMatchObject({
      state: 'refused',
      reason: 'incomplete_packet: url',
      attempts: 0,
      currentAttempt: null,
      nextAttemptAt: null,
      finishedAt: null,
    });
    expect(await s.twin.list('delivery_attempt')).toEqual([]);
    expect(s.received).toEqual([]);
    expect(s.seen).toEqual([]);
    const ops = (await s.twin.entries()).map((e) => e.operation);
    expect(ops).toEqual([
      'endpoint.create',
      'customer.create',
      'delivery.create',
      'delivery.refuse',
    ]);
    // refused is terminal: time passing, recovery and a second dispatch attempt nothing
    await s.clock.advance(24 * 3600_000);
    expect(await s.dispatcher.recover()).toEqual({
      markedUnknown: [],
      dispatched: [],
      retried: [],
      scheduled: [],
      inFlight: [],
      scheduledRetries: 0,
    });
    expect(await s.dispatcher.dispatch('acme', record!.id)).toBeUndefined();
    expect(await s.twin.entries()).toHaveLength(4);
    expect(s.received).toEqual([]);
    await s.world.close();
  });

  for (const [without, part] of [
    ['body', 'body'],
    ['messageId', 'headers'],
    ['secretRef', 'headers'],
    ['url', 'url'],
  ] as const) {
    it(`a record without ${without} is refused as incomplete_packet: ${part}`, async () => {
      const s = await setup();
      await s.twin.applyWrite({
        operation: 'endpoint.create',
        subjectType: 'endpoint',
        subjectId: 'ep',
        fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
      });
      await s.twin.applyWrite({
        operation: 'delivery.create',
        subjectType: 'delivery',
        subjectId: 'dlv_x',
        fields: recordFields(without) as never,
      });
      await s.dispatcher.idle();
      expect((await s.twin.get('delivery', 'dlv_x'))!.fields).toMatchObject({
        state: 'refused',
        reason: `incomplete_packet: ${part}`,
        attempts: 0,
      });
      expect(await s.twin.list('delivery_attempt')).toEqual([]);
      expect(s.received).toEqual([]);
      expect(s.seen).toEqual([]);
      await s.world.close();
    });
  }

  it("an operator's redeliver of a refused record is refused, says why, and appends nothing", async () => {
    const s = await setup();
    await s.twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await s.twin.applyWrite({
      operation: 'delivery.create',
      subjectType: 'delivery',
      subjectId: 'dlv_x',
      fields: recordFields('url') as never,
    });
    await s.dispatcher.idle();
    const head = await s.twin.head();
    const error = await s.dispatcher.redeliver('dlv_x').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_CLAIMABLE', path: 'delivery' });
    expect(String((error as Error).message)).toContain('incomplete_packet: url');
    expect(await s.twin.head()).toBe(head);
    expect(s.received).toEqual([]);
    await s.world.close();
  });

  it('a complete record is still claimed and sent', async () => {
    const s = await setup();
    await s.twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: 'inproc://ep/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
    });
    await s.twin.applyWrite({
      operation: 'delivery.create',
      subjectType: 'delivery',
      subjectId: 'dlv_ok',
      fields: recordFields('none') as never,
    });
    await s.dispatcher.idle();
    expect((await s.twin.get('delivery', 'dlv_ok'))!.fields).toMatchObject({
      state: 'succeeded',
      attempts: 1,
    });
    expect(s.received).toHaveLength(1);
    await s.world.close();
  });

  it('packetGap names the first missing part; an empty body is a body', () => {
    const full = recordFields('none');
    expect(packetGap(full)).toBeUndefined();
    expect(packetGap({ ...full, body: '' })).toBeUndefined();
    expect(packetGap({ ...full, url: '' })).toBe('url');
    expect(packetGap({ ...full, url: 42 })).toBe('url');
    expect(packetGap({ ...full, body: null })).toBe('body');
    expect(packetGap({ ...full, messageId: '' })).toBe('headers');
  });
});
