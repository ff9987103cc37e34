// Delivery record ids sort by creation time, keep their shape, and draw what a random id drew.
import { describe, expect, it } from 'vitest';
import { deliveryRecordId } from '../../src/events/delivery-id.js';
import { VirtualClock } from '../../src/world/clock.js';
import { SeededIds } from '../../src/world/ids.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { openWorld } from '../../src/world/world.js';
import { acmePack, createAcmeEndpoint } from '../support/acme-pack.js';

describe('delivery record ids', () => {
  it('sort by the time they were made, across digit and case boundaries', () => {
    const times = [0, 1, 9, 10, 35, 36, 61, 62, 1_000, 1_772_366_400_000, 1_772_366_400_001, 4e12];
    const made = times.map((t) =>
      deliveryRecordId(new SeededIds(new VirtualClock(t), `order ${t}`), 'dlv_'),
    );
    for (const id of made) expect(id).toMatch(/^dlv_[0-9A-Za-z]{24}$/);
    // Byte order, as SQLite's BINARY collation and PostgreSQL's "C" compare them.
    expect([...made].sort()).toEqual(made);
  });

  it('take the same draw as a random id, so later ids from the source do not move', () => {
    const a = new SeededIds(new VirtualClock(1_772_366_400_000), 'same');
    const b = new SeededIds(new VirtualClock(1_772_366_400_000), 'same');
    const ordered = deliveryRecordId(a, 'dlv_');
    const random = b.vendorId('', 24);
    expect(ordered.slice(-16)).toBe(random.slice(-16));
    expect(a.vendorId('cus')).toBe(b.vendorId('cus'));
  });

  it('are what fan-out gives new records: later writes sort after earlier ones', async () => {
    const clock = new VirtualClock('2026-04-01T00:00:00Z');
    const world = openWorld({ root: ':memory:', clock, seed: 'ordered' });
    const twin = registerPack(world, acmePack());
    await createAcmeEndpoint(twin);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      await twin.applyWrite({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: `cus_${i}`,
        fields: { name: `c${i}` },
      });
      const all = await twin.list('delivery');
      made.push(...all.map((d) => d.id).filter((id) => !made.includes(id)));
      await clock.advance(1);
    }
    expect(made).toHaveLength(5);
    expect([...made].sort()).toEqual(made);
    await world.close();
  });
});
