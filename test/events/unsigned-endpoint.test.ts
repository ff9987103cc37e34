// Unsigned packets only where a pack declares them: an endpoint kind with `unsignedWithoutSecret`
// (GitHub's hooks made without a secret) sends an endpoint whose secret reference is null with the
// pack's headers and no signature; any other kind keeps the kernel's rule — a null reference falls
// back to the endpoint's id, and a record that says "unsigned" fails as missing_secret unsent.
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/events/dispatcher.js';
import type { EndpointKind } from '../../src/events/declaration.js';
import { registerPack } from '../../src/events/pack-registry.js';
import {
  InProcessTransport,
  type InProcessRequest,
} from '../../src/events/transports/in-process-transport.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';

async function setup(unsigned: boolean) {
  const clock = new VirtualClock('2026-04-01T00:00:00Z');
  const reported: unknown[] = [];
  const world = openWorld({
    root: ':memory:',
    clock,
    seed: 'unsigned',
    onError: (error) => reported.push(error),
  });
  const pack = acmePack();
  const events = pack.events!;
  const kinds: EndpointKind[] = events.endpoints.map((k) =>
    unsigned ? { ...k, unsignedWithoutSecret: true } : k,
  );
  const twin = registerPack(world, { ...pack, events: { ...events, endpoints: kinds } });
  const received: InProcessRequest[] = [];
  const transport = new InProcessTransport(clock, (req) => (received.push(req), 200));
  const dispatcher = new Dispatcher(world, {
    routes: [{ prefix: 'inproc://', transport }],
    autoDispatch: false,
  });
  await world.secrets.set('signed', ACME_SECRET);
  for (const [id, ref] of [
    ['open', null],
    ['signed', 'signed'],
  ] as const)
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: id,
      fields: { url: `inproc://${id}`, secret_ref: ref, events: ['*'], status: 'enabled' },
    });
  await twin.applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_1',
    fields: { email: 'a@example.com' },
  });
  const records = await twin.list('delivery');
  const of = (endpoint: string) => records.find((r) => r.fields.endpointId === endpoint)!;
  return { world, twin, dispatcher, received, reported, of };
}

describe('unsigned packets, only where the endpoint kind declares them', () => {
  it('a declared kind: the endpoint without a secret gets its packet unsigned, with the pack headers; the other stays signed', async () => {
    const s = await setup(true);
    expect(s.of('open').fields.secretRef).toBeNull();
    expect(s.of('signed').fields.secretRef).toBe('signed');
    const open = await s.dispatcher.dispatch('acme', s.of('open').id);
    const signed = await s.dispatcher.dispatch('acme', s.of('signed').id);
    expect([open?.outcome, signed?.outcome]).toEqual(['succeeded', 'succeeded']);
    const at = (url: string) => s.received.find((r) => r.url === url)!.headers;
    expect(at('inproc://open')).toMatchObject({ 'user-agent': 'acme-webhooks/1.0' });
    expect(at('inproc://open')['webhook-signature']).toBeUndefined();
    expect(at('inproc://signed')['webhook-signature']).toMatch(/^v1,/);
    expect(s.reported).toEqual([]);
    await s.world.close();
  });

  it('an undeclared kind: a null reference falls back to the endpoint id, and with no secret stored nothing is sent', async () => {
    const s = await setup(false);
    expect(s.of('open').fields.secretRef).toBe('open');
    const result = await s.dispatcher.dispatch('acme', s.of('open').id);
    expect(result).toMatchObject({ outcome: 'failed', reason: 'missing_secret' });
    expect(s.received).toEqual([]);
    await s.world.close();
  });

  it('an undeclared kind: a record that says "unsigned" (null reference) fails as missing_secret, unsent and reported', async () => {
    const s = await setup(false);
    await s.twin.applyWrite({
      operation: 'delivery.create',
      subjectType: 'delivery',
      subjectId: 'dlv_forged',
      fields: { ...s.of('signed').fields, secretRef: null },
    });
    const result = await s.dispatcher.dispatch('acme', 'dlv_forged');
    expect(result).toMatchObject({ outcome: 'failed', reason: 'missing_secret' });
    expect(s.received).toEqual([]);
    expect(String(s.reported[0])).toContain('are never sent unsigned');
    await s.world.close();
  });
});
