// Lookup answers are cached per type until an entry moves an index key of that type: the endpoints
// a write fans out to are read from the store once per change, not once per write. A commit here
// that changes a resource and keeps its keys leaves the answer cached, with the resource as it now
// is. An entry from another process (another handle on the same storage) drops the cache whatever
// it changed, since this process cannot tell which keys it moved.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { skip } from '../../src/world/decision.js';
import type { Twin } from '../../src/world/twin.js';
import { openWorld, type World } from '../../src/world/world.js';
import { backends } from '../support/backends.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const byEvent = { type: 'endpoint', name: 'by-event', field: 'events' };

function open(backend: World['backend']): { world: World; twin: Twin } {
  const world = openWorld({ root: ':memory:', backend });
  const twin = world.twin('hooks');
  twin.declareIndex(byEvent);
  cleanups.push(() => world.close());
  return { world, twin };
}

const takers = (twin: Twin, event: string): Promise<string[]> =>
  twin.read((view) => view.lookup('endpoint', 'by-event', event).map((r) => r.id));

const endpoint = (twin: Twin, id: string, events: string[], op = 'create') =>
  twin.applyWrite({
    operation: `endpoint.${op}`,
    subjectType: 'endpoint',
    subjectId: id,
    fields: { events },
  });

describe.each(backends.filter((b) => b.durable))('lookup cache on $name', (b) => {
  it("another process's entries drop it, and so do this process's own commits", async () => {
    const home = b.create();
    cleanups.push(home.cleanup);
    const here = open(home.backend);
    const there = open(home.reopen());
    await endpoint(here.twin, 'ep_1', ['a']);
    expect(await takers(here.twin, 'a')).toEqual(['ep_1']);
    expect(await takers(here.twin, 'a')).toEqual(['ep_1']);

    await endpoint(there.twin, 'ep_2', ['a']);
    await endpoint(there.twin, 'ep_1', ['b'], 'update');
    expect(await takers(here.twin, 'a')).toEqual(['ep_2']);
    expect(await takers(here.twin, 'b')).toEqual(['ep_1']);

    await here.twin.applyWrite({
      operation: 'endpoint.delete',
      subjectType: 'endpoint',
      subjectId: 'ep_2',
      delete: true,
    });
    expect(await takers(here.twin, 'a')).toEqual([]);
    expect(await takers(there.twin, 'a')).toEqual([]);
  });
});

describe.each(backends)('lookup cache on $name, own commits', (b) => {
  it('answers a resource as it now is after a commit that kept its keys', async () => {
    const home = b.create();
    cleanups.push(home.cleanup);
    const { twin } = open(home.backend);
    await endpoint(twin, 'ep_1', ['a']);
    const urls = () =>
      twin.read((view) => view.lookup('endpoint', 'by-event', 'a').map((r) => r.fields.url));
    expect(await urls()).toEqual([undefined]);
    await twin.applyWrite({
      operation: 'endpoint.update',
      subjectType: 'endpoint',
      subjectId: 'ep_1',
      fields: { events: ['a'], url: 'http://127.0.0.1/hooks' },
    });
    expect(await urls()).toEqual(['http://127.0.0.1/hooks']);
    // and within a decide, as the fold left it
    const seen = await twin.applyAtomic((view) =>
      skip(view.lookup('endpoint', 'by-event', 'a').map((r) => r.version)),
    );
    expect(seen.result).toEqual([(await twin.get('endpoint', 'ep_1'))!.version]);
  });
});

describe('lookup cache on sqlite, seen from behind the kernel', () => {
  it('answers a repeated lookup without the store until an entry touches the type', async () => {
    const home = backends.find((b) => b.name === 'sqlite')!.create();
    cleanups.push(home.cleanup);
    const { twin } = open(home.backend);
    await endpoint(twin, 'ep_1', ['a']);
    expect(await takers(twin, 'a')).toEqual(['ep_1']);
    // A key no entry made, written straight into the file: only a store query would find it.
    const root = (home.backend as unknown as { dir: string }).dir;
    const db = new Database(join(root, 'hooks.db'));
    db.prepare(
      "INSERT INTO lookups (type, name, key, id) VALUES ('endpoint', 'by-event', 'a', 'ep_0')",
    ).run();
    db.prepare(
      "INSERT INTO resources (type, id, version, deleted, fields) VALUES ('endpoint', 'ep_0', 1, 0, '{\"events\":[\"x\"]}')",
    ).run();
    db.close();
    expect(await takers(twin, 'a')).toEqual(['ep_1']);
    // An update that keeps every key of the type leaves the answer cached.
    await endpoint(twin, 'ep_1', ['a'], 'update');
    expect(await takers(twin, 'a')).toEqual(['ep_1']);
    // A key moved — even another endpoint's — sends the next lookup to the store.
    await endpoint(twin, 'ep_3', ['c']);
    expect(await takers(twin, 'a')).toEqual(['ep_0', 'ep_1']);
    // Another type's entries leave it alone.
    await twin.applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: 'cus_1',
      fields: {},
    });
    expect(await takers(twin, 'a')).toEqual(['ep_0', 'ep_1']);
  });
});
