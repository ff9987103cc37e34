// The console reads again whenever a head moves, so what one refresh reads must not grow with the
// history: deliveries from a window of each pack's log (never a listing of every record), a page
// of resources per type (a seek past a full type, not a scan), and the state hash only on request.
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/events/dispatcher.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { createConsoleHandler, type ConsoleHandler } from '../../src/host/console/handler.js';
import { DELIVERY_WINDOW } from '../../src/host/console/snapshot.js';
import { MemoryBackend } from '../../src/storage/memory/memory-backend.js';
import { openWorld, type World } from '../../src/world/world.js';
import { ACME_SECRET, acmePack } from '../support/acme-pack.js';
import { interceptStoreWrites } from '../support/intercepted-backend.js';

const TOKEN = 'console-bounded-reads';

interface Opened {
  world: World;
  dispatcher: Dispatcher;
  console: ConsoleHandler;
  /** Store reads by method since the last `reset`. */
  reads: Map<string, number>;
}

let opened: Opened | undefined;
afterEach(async () => {
  if (opened === undefined) return;
  await opened.console.close();
  await opened.dispatcher.close();
  await opened.world.close();
  opened = undefined;
});

async function open(): Promise<Opened> {
  const reads = new Map<string, number>();
  const backend = interceptStoreWrites(new MemoryBackend(), {
    read: (method) => reads.set(method, (reads.get(method) ?? 0) + 1),
  });
  const world = openWorld({ root: ':memory:', backend });
  registerPack(world, acmePack(undefined, 'shop'));
  const dispatcher = new Dispatcher(world, { autoDispatch: false });
  const console = createConsoleHandler({ world, dispatcher, token: TOKEN, pollMs: 20 });
  await world.secrets.set('ep', ACME_SECRET);
  // Nothing listens on port 9 of the loopback: an attempt fails at once, and is an entry.
  await world.twin('shop').applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: 'http://127.0.0.1:9/hook', secret_ref: 'ep', events: ['*'], status: 'enabled' },
  });
  opened = { world, dispatcher, console, reads };
  return opened;
}

async function api<T>(c: ConsoleHandler, path: string): Promise<{ status: number; body: T }> {
  const r = await c.fetch(
    new Request(`http://127.0.0.1:1${path}`, { headers: { 'x-twinworld-token': TOKEN } }),
  );
  return { status: r.status, body: (await r.json()) as T };
}

const customers = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: `cus_${from + i}`,
    fields: { i: from + i },
  }));

describe('the console reads a bounded amount per refresh', () => {
  it('deliveries: those the newest window of the log created or moved, never a listing of all', async () => {
    const { world, dispatcher, console: c, reads } = await open();
    const shop = world.twin('shop');
    await shop.applyAtomic(() => customers(0, 3));
    const old = (await shop.list('delivery')).map((d) => d.id);
    expect(old).toHaveLength(3);
    // A whole window of entries that make no delivery pushes the three out of it.
    await shop.applyAtomic(() =>
      Array.from({ length: DELIVERY_WINDOW }, (_, i) => ({
        operation: 'note.create',
        subjectType: 'note',
        subjectId: `note_${i}`,
        fields: { i },
      })),
    );
    await shop.applyAtomic(() => customers(3, 2));
    // An old one moves: its attempt is in the window, so it is shown again.
    await dispatcher.dispatch('shop', old[1]!);
    const fresh = (await shop.list('delivery')).map((d) => d.id).filter((id) => !old.includes(id));
    reads.clear();
    const { status, body } = await api<{
      deliveries: { id: string; state: string }[];
      endpoints: { id: string; recent: { settled: number } }[];
      events: string[];
    }>(c, '/api/deliveries');
    expect(status).toBe(200);
    expect(body.deliveries.map((d) => d.id).sort()).toEqual([...fresh, old[1]!].sort());
    expect(body.deliveries.find((d) => d.id === old[1])?.state).not.toBe('queued');
    expect(body.events).toEqual(['customer.created']);
    expect(reads.get('listResources') ?? 0).toBe(0);
    expect(reads.get('allResources') ?? 0).toBe(0);
    // The window is read once, whatever precedes it.
    expect(reads.get('readEntries')).toBe(1);
  });

  it('resources: at most a page per type, reading past a full type by a seek', async () => {
    const { world, console: c, reads } = await open();
    const t = world.twin('shop');
    const make = (type: string, n: number) =>
      t.applyAtomic(() =>
        Array.from({ length: n }, (_, i) => ({
          operation: `${type}.create`,
          subjectType: type,
          subjectId: `${type}_${String(i).padStart(4, '0')}`,
          fields: { i },
        })),
      );
    await make('alpha', 450);
    await make('beta', 3);
    await make('gamma', 250);
    reads.clear();
    const { body } = await api<Record<string, { id: string; version: number }[]>>(
      c,
      '/api/resources?twin=shop',
    );
    expect(Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v.length]))).toEqual({
      alpha: 200,
      beta: 3,
      endpoint: 1,
      gamma: 200,
    });
    // The first 200 of each type by id, newest version first.
    expect(body.alpha!.map((r) => r.id).sort()).toEqual(
      Array.from({ length: 200 }, (_, i) => `alpha_${String(i).padStart(4, '0')}`),
    );
    const versions = body.alpha!.map((r) => r.version);
    expect(versions).toEqual([...versions].sort((a, b) => b - a));
    // Rows streamed: the 404 shown and at most one page more per seek, not the 704 stored.
    expect(reads.get('liveResources')!).toBeLessThan(500);
  });

  it('the state hash: not on the overview the page re-reads, computed on request', async () => {
    const { world, console: c } = await open();
    await world.twin('shop').applyAtomic(() => customers(0, 2));
    const overview = await api<{ twins: Record<string, unknown>[] }>(c, '/api/overview');
    const shop = overview.body.twins.find((t) => t.name === 'shop')!;
    expect(shop).toEqual({
      name: 'shop',
      head: await world.twin('shop').head(),
      chain: (await world.twin('shop').chainHead())!.hash,
    });
    const hash = await api<{ twin: string; hash: string }>(c, '/api/hash?twin=shop');
    // With the head it is the hash at, so the page can show it in whichever row holds that head.
    expect(hash).toEqual({
      status: 200,
      body: { twin: 'shop', head: shop.head, hash: await world.twin('shop').hash() },
    });
    const refused = await api<{ error: string; message: string; path: string }>(
      c,
      '/api/hash?twin=nope',
    );
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ error: 'UNKNOWN_TWIN', path: 'twin' });
    expect(refused.body.message).toContain('Twins table');
    // No twin at all is the request's mistake, named (test/host/console-api.test.ts).
    expect((await api(c, '/api/hash')).status).toBe(400);
  });
});
