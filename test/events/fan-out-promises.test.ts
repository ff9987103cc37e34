// The promises of fan-out beyond "one record per taking endpoint": an endpoint reached through
// several of its filters gets one record, records are appended in endpoint order, and each record
// holds what the delivery needs (time, pack, ids, url and secret reference) from the write's commit.
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { newId } from '../../src/events/fan-out.js';
import { openWorld, type World } from '../../src/world/world.js';
import { acmePack } from '../support/acme-pack.js';

const worlds: World[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((w) => w.close()));
});

const NOW = '2026-04-01T00:00:00.750Z';

function setup() {
  const world = openWorld({ root: ':memory:', clock: new VirtualClock(NOW), seed: 'fan-p' });
  worlds.push(world);
  const twin = registerPack(world, acmePack());
  const endpoint = (id: string, fields: Record<string, unknown>) =>
    twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: id,
      // An undefined field is left out: the endpoint has no such field at all.
      fields: Object.fromEntries(
        Object.entries({
          url: `inproc://${id}`,
          secret_ref: id,
          status: 'enabled',
          ...fields,
        }).filter(([, v]) => v !== undefined),
      ) as never,
    });
  const createCustomer = (id = 'cus_1') =>
    twin.applyAtomic(() => [
      {
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: id,
        fields: { email: 'a@example.com' },
      },
    ]);
  return { world, twin, endpoint, createCustomer };
}

describe('fan-out promises', () => {
  it('an endpoint reached through several of its filters gets one record', async () => {
    const { twin, endpoint, createCustomer } = setup();
    await endpoint('ep_many', { events: ['*', 'customer.*', 'customer.created'] });
    const out = await createCustomer();
    expect(out.entries.map((e) => e.operation)).toEqual(['customer.create', 'delivery.create']);
    expect((await twin.list('delivery')).map((r) => r.fields['endpointId'])).toEqual(['ep_many']);
  });

  it('records are appended in endpoint id order, whichever filter found each endpoint', async () => {
    const { endpoint, createCustomer } = setup();
    await endpoint('ep_c', { events: ['*'] });
    await endpoint('ep_a', { events: ['customer.created'] });
    await endpoint('ep_b', { events: ['customer.*'] });
    await endpoint('ep_d', { events: ['*'] });
    const out = await createCustomer();
    expect(out.entries.slice(1).map((e) => e.fields?.['endpointId'])).toEqual([
      'ep_a',
      'ep_b',
      'ep_c',
      'ep_d',
    ]);
  });

  it('each record holds the commit time, the pack, fresh ids, and the endpoint url and secret', async () => {
    const { endpoint, createCustomer } = setup();
    await endpoint('ep_1', { events: ['*'], secret_ref: 'sec_shared' });
    await endpoint('ep_2', { events: ['*'], secret_ref: undefined, url: undefined });
    const out = await createCustomer();
    const [, first, second] = out.entries;
    expect(first).toMatchObject({
      operation: 'delivery.create',
      subjectType: 'delivery',
      actor: 'system',
    });
    expect(first!.subjectId).toMatch(/^dlv_.{24}$/);
    expect(first!.fields).toMatchObject({
      createdAt: NOW,
      dueAt: NOW,
      pack: 'acme',
      endpointKind: 'endpoint',
      secretRef: 'sec_shared',
      url: 'inproc://ep_1',
      nextAttemptAt: null,
      lastOutcome: null,
      lastStatus: null,
      finishedAt: null,
      traceparent: null,
      tracestate: null,
    });
    expect(String(first!.fields?.['messageId'])).toMatch(/^msg_.{24}$/);
    expect(String(first!.fields?.['eventId'])).toMatch(/^evt_.{24}$/);
    // Without a secret reference the endpoint's own id names its secret; without a url, none.
    expect(second!.fields).toMatchObject({ secretRef: 'ep_2', url: '' });
    expect(second!.fields?.['messageId']).not.toBe(first!.fields?.['messageId']);
    const body = JSON.parse(String(first!.fields?.['body'])) as Record<string, unknown>;
    expect(body['created']).toBe(Math.floor(Date.parse(NOW) / 1000));
    expect(body['pending']).toBe(2);
    expect(body['data']).toEqual({ object: { email: 'a@example.com' } });
  });

  it('a delete renders no previous attributes, and an update of a deleted subject none either', async () => {
    const { twin, endpoint, createCustomer } = setup();
    await endpoint('ep_1', { events: ['*'] });
    await createCustomer();
    const del = await twin.applyAtomic(() => [
      { operation: 'customer.delete', subjectType: 'customer', subjectId: 'cus_1', delete: true },
    ]);
    expect(del.entries.map((e) => e.operation)).toContain('delivery.create');
    const upd = await twin.applyAtomic(() => [
      {
        operation: 'customer.update',
        subjectType: 'customer',
        subjectId: 'cus_1',
        fields: { email: 'b@example.com' },
      },
    ]);
    const rec = upd.entries.find((e) => e.operation === 'delivery.create')!;
    const body = JSON.parse(String(rec.fields?.['body'])) as { data: Record<string, unknown> };
    expect(body.data['previous']).toBeUndefined();
  });

  it('an update renders exactly the fields it changed, with their old values (null if new)', async () => {
    const { twin, endpoint, createCustomer } = setup();
    await endpoint('ep_1', { events: ['customer.updated'] });
    await createCustomer();
    const upd = await twin.applyAtomic(() => [
      {
        operation: 'customer.update',
        subjectType: 'customer',
        subjectId: 'cus_1',
        fields: { email: 'a@example.com', name: 'Ada' },
      },
    ]);
    const rec = upd.entries.find((e) => e.operation === 'delivery.create')!;
    const body = JSON.parse(String(rec.fields?.['body'])) as { data: Record<string, unknown> };
    expect(body.data['previous']).toEqual({ name: null });
  });
});

describe('ids of events and deliveries', () => {
  it('"uuid" draws a UUID; any other prefix is followed by a 24-character vendor id', () => {
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(NOW), seed: 'ids' });
    worlds.push(world);
    expect(newId(world.ids, 'uuid')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    const id = newId(world.ids, 'evt_');
    expect(id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(newId(world.ids, '')).toHaveLength(24);
  });
});

describe("a declaration's own ids, values and body encoding", () => {
  it('are used for every record, and endpoints of several kinds go in kind order', async () => {
    const base = acmePack();
    const { messageIdPrefix: _unused, ...events } = base.events!;
    const pack = {
      ...base,
      events: {
        ...events,
        values: (ctx: { eventType: string }) => ({ type: `v.${ctx.eventType}` }),
        encodeBody: (rendered: unknown) => `enc:${JSON.stringify(rendered)}`,
        endpoints: [
          { ...events.endpoints[0]!, type: 'zhook' },
          { type: 'ahook', urlField: 'url', secretRefField: 'secret_ref', eventsField: 'events' },
        ],
      },
    } as never;
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(NOW), seed: 'decl' });
    worlds.push(world);
    const twin = registerPack(world, pack);
    for (const [type, id] of [
      ['zhook', 'ep_1'],
      ['ahook', 'ep_2'],
    ] as const)
      await twin.applyWrite({
        operation: `${type}.create`,
        subjectType: type,
        subjectId: id,
        fields: { url: `inproc://${id}`, events: ['*'], status: 'enabled' },
      });
    const out = await twin.applyAtomic(() => [
      { operation: 'customer.create', subjectType: 'customer', subjectId: 'c', fields: { n: 1 } },
    ]);
    const records = out.entries.slice(1).map((e) => e.fields!);
    expect(records.map((r) => r['endpointKind'])).toEqual(['ahook', 'zhook']);
    for (const r of records) {
      expect(String(r['messageId'])).toMatch(/^msg_.{24}$/);
      expect(String(r['body']).startsWith('enc:')).toBe(true);
      expect(JSON.parse(String(r['body']).slice(4))).toMatchObject({ type: 'v.customer.created' });
    }
  });

  it('a message id tied to the event is the same on every record of that event', async () => {
    const base = acmePack();
    const pack = {
      ...base,
      events: { ...base.events!, messageId: (ctx: { eventId: string }) => `m-${ctx.eventId}` },
    } as never;
    const world = openWorld({ root: ':memory:', clock: new VirtualClock(NOW), seed: 'mid' });
    worlds.push(world);
    const twin = registerPack(world, pack);
    for (const id of ['ep_1', 'ep_2'])
      await twin.applyWrite({
        operation: 'endpoint.create',
        subjectType: 'endpoint',
        subjectId: id,
        fields: { url: `inproc://${id}`, secret_ref: id, events: ['*'], status: 'enabled' },
      });
    const out = await twin.applyAtomic(() => [
      { operation: 'customer.create', subjectType: 'customer', subjectId: 'c', fields: { n: 1 } },
    ]);
    const records = out.entries.slice(1).map((e) => e.fields!);
    expect(records).toHaveLength(2);
    for (const r of records) expect(r['messageId']).toBe(`m-${String(r['eventId'])}`);
  });
});
