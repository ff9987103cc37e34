// Fan-out in the same commit: one queued record per (event type, taking endpoint).
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/world/clock.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld } from '../../src/world/world.js';
import { filterKeysFor, filterTakes } from '../../src/events/filter.js';
import { acmePack } from '../support/acme-pack.js';

function setup() {
  const world = openWorld({
    root: ':memory:',
    clock: new VirtualClock('2026-04-01T00:00:00Z'),
    seed: 'fan',
  });
  const twin = registerPack(world, acmePack());
  const endpoint = (id: string, events: string[], status = 'enabled') =>
    twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: id,
      fields: { url: `inproc://${id}`, secret_ref: id, events, status },
    });
  return { world, twin, endpoint };
}

describe('event filters', () => {
  it('matches *, families and exact types', () => {
    expect(filterKeysFor('invoice.payment.failed')).toEqual([
      '*',
      'invoice.payment.failed',
      'invoice.payment.*',
      'invoice.*',
    ]);
    expect(filterTakes(['customer.*'], 'customer.created')).toBe(true);
    expect(filterTakes(['customer.created'], 'customer.updated')).toBe(false);
    expect(filterTakes(['*'], 'anything')).toBe(true);
    expect(filterTakes(['cust*'], 'customer.created')).toBe(false);
  });
});

describe('fan-out', () => {
  it('appends one queued record per taking endpoint in the same commit as the write', async () => {
    const { twin, endpoint } = setup();
    await endpoint('ep_all', ['*']);
    await endpoint('ep_family', ['customer.*']);
    await endpoint('ep_exact', ['customer.updated']);
    await endpoint('ep_off', ['*'], 'disabled');
    await endpoint('ep_other', ['order.placed']);
    const out = await twin.applyAtomic(() => [
      {
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: 'cus_1',
        fields: { email: 'a@example.com' },
      },
    ]);
    expect(out.entries.map((e) => e.operation)).toEqual([
      'customer.create',
      'delivery.create',
      'delivery.create',
    ]);
    const records = (await twin.list('delivery')).map((r) => r.fields);
    expect(records.map((r) => r.endpointId).sort()).toEqual(['ep_all', 'ep_family']);
    for (const r of records) {
      expect(r).toMatchObject({
        state: 'queued',
        attempts: 0,
        currentAttempt: null,
        eventType: 'customer.created',
        endpointKind: 'endpoint',
        acceptedAt: null,
      });
      expect(JSON.parse(String(r.body))).toMatchObject({
        type: 'customer.created',
        data: { object: { email: 'a@example.com' } },
        pending: 2,
      });
    }
    // one event, one id, whichever endpoint it goes to; distinct message ids per delivery
    expect(new Set(records.map((r) => r.eventId)).size).toBe(1);
    expect(new Set(records.map((r) => r.messageId)).size).toBe(2);
  });

  it('renders previous attributes on an update, and nothing for an unchanged field', async () => {
    const { twin, endpoint } = setup();
    await endpoint('ep', ['customer.updated']);
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'old@example.com', name: 'A' },
    });
    await twin.applyWrite({
      operation: 'customer.update',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'new@example.com', name: 'A' },
    });
    const body = JSON.parse(String((await twin.list('delivery'))[0]!.fields.body));
    expect(body.data).toEqual({
      object: { email: 'new@example.com', name: 'A' },
      previous: { email: 'old@example.com' },
    });
  });

  it('one write may produce several event types, each filtered on its own', async () => {
    const { twin, endpoint } = setup();
    await endpoint('ep', ['order.*']);
    await twin.applyWrite({
      operation: 'order.place',
      subjectType: 'order',
      subjectId: 'o1',
      fields: { audit: true },
    });
    await twin.applyWrite({
      operation: 'order.place',
      subjectType: 'order',
      subjectId: 'o2',
      fields: { audit: false },
    });
    expect((await twin.list('delivery')).map((r) => `${r.fields.eventType}`).sort()).toEqual([
      'order.audit',
      'order.placed',
      'order.placed',
    ]);
  });

  it('writes that produce no event, or reach no endpoint, append no record', async () => {
    const { twin, endpoint } = setup();
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
    });
    await endpoint('ep', ['order.placed']);
    await twin.applyWrite({
      operation: 'customer.note',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { note: 'x' },
    });
    expect(await twin.list('delivery')).toEqual([]);
  });

  it('a write that fails validation leaves neither the write nor its records', async () => {
    const { twin, endpoint } = setup();
    await endpoint('ep', ['*']);
    await expect(
      twin.applyAtomic(() => [
        { operation: 'customer.create', subjectType: 'customer', subjectId: 'c', fields: {} },
        { operation: 'x', subjectType: '', subjectId: 'y' },
      ]),
    ).rejects.toThrow();
    expect(await twin.list('delivery')).toEqual([]);
    expect(await twin.get('customer', 'c')).toBeUndefined();
  });
});
