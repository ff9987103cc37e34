// Index only what is read: a delivery's lookup keys exist only while someone must act on it. A
// terminal record (succeeded here) keeps no key in the lookup table of its SQLite file, while
// `recover` still finds every record that is not terminal through the due index alone.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { InProcessTransport } from '../../src/events/transports/in-process-transport.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { acmePack, createAcmeEndpoint } from '../support/acme-pack.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function keysOf(root: string, twin: string, id: string): { name: string; key: string }[] {
  const db = new Database(join(root, 'twins', `${twin}.db`), { readonly: true });
  try {
    return db.prepare('SELECT name, key FROM lookups WHERE id = ? ORDER BY name').all(id) as {
      name: string;
      key: string;
    }[];
  } finally {
    db.close();
  }
}

describe('delivery records index only what is read', () => {
  it('a queued record has its due key, a succeeded one has none, and recover finds queued ones', async () => {
    const root = mkdtempSync(join(tmpdir(), 'twinworld-unindexed-'));
    dirs.push(root);
    const clock = new VirtualClock('2026-04-01T00:00:00Z');
    const world = openWorld({ root, clock, seed: 'unindexed' });
    const twin = registerPack(world, acmePack());
    let received = 0;
    const dispatcher = new Dispatcher(world, {
      autoDispatch: false,
      routes: [
        { prefix: 'inproc://', transport: new InProcessTransport(clock, () => (received++, 200)) },
      ],
    });
    await world.secrets.set('ep', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    await createAcmeEndpoint(twin);
    const out = await twin.applyAtomic(() => ({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: { email: 'a@example.com' },
    }));
    const id = out.entries.find((e) => e.subjectType === 'delivery')!.subjectId;
    expect(keysOf(root, twin.name, id)).toEqual([
      { name: 'twinworld:due', key: '2026-04-01T00:00:00.000Z' },
    ]);

    const report = await dispatcher.recover();
    expect(report.dispatched.map((r) => r.deliveryId)).toEqual([id]);
    expect(received).toBe(1);
    expect((await twin.get('delivery', id))?.fields.state).toBe('succeeded');
    expect(keysOf(root, twin.name, id)).toEqual([]);
    await world.close();
  });
});
