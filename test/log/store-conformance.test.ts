// One conformance suite for the storage port, run unchanged against every backend.
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { StorageBackend, TwinStore } from '../../src/storage/port.js';
import type { Entry } from '../../src/log/write.js';
import type { Resource } from '../../src/state/resource.js';
import { backends } from '../support/backends.js';

function entry(seq: number, type = 'customer', id = `cus_${seq}`): Entry {
  return {
    seq,
    writeId: `w${seq}`,
    twin: 't',
    recordedAt: '2026-01-01T00:00:00.000Z',
    occurredAt: '2026-01-01T00:00:00.000Z',
    actor: 'api',
    operation: `${type}.create`,
    subjectType: type,
    subjectId: id,
    fields: { n: seq },
  };
}

function resource(type: string, id: string, version: number, fields: Record<string, unknown> = {}, deleted = false): Resource {
  return { type, id, version, deleted, fields } as Resource;
}

for (const backendCase of backends) {
  describe(`storage port conformance: ${backendCase.name}`, () => {
    let cleanup = (): void => {};
    let backend: StorageBackend;
    let reopen: () => StorageBackend;
    let store: TwinStore;

    const fresh = (): void => {
      const made = backendCase.create();
      backend = made.backend;
      reopen = made.reopen;
      cleanup = made.cleanup;
      store = backend.openTwin('t');
    };
    afterEach(() => {
      backend.close();
      cleanup();
    });

    it('starts empty and appends dense entries', () => {
      fresh();
      expect(store.head()).toBe(0);
      store.exclusive(() => {
        for (let seq = 1; seq <= 5; seq++) store.append(entry(seq), canonicalJson(entry(seq)));
      });
      expect(store.head()).toBe(5);
      expect(backend.listTwins()).toContain('t');
    });

    it('reads a range, streams bodies and reads by subject', () => {
      fresh();
      store.exclusive(() => {
        for (let seq = 1; seq <= 6; seq++) {
          const e = entry(seq, 'customer', seq % 2 === 0 ? 'cus_even' : 'cus_odd');
          store.append(e, canonicalJson(e));
          // the kernel puts an entry's subject right after appending it, naming the entry
          store.putResource(resource('customer', e.subjectId, seq), { remove: [], add: [] }, seq);
          // a projection touch (no subjectOf) must not enter the subject's chain
          store.putResource(resource('customer', seq % 2 === 0 ? 'cus_odd' : 'cus_even', seq), { remove: [], add: [] });
        }
      });
      expect(store.readEntries(2, 3).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(store.readEntries(5, 100).map((e) => e.seq)).toEqual([6]);
      expect(store.readEntries(6, 10)).toEqual([]);
      expect([...store.entryBodies(4)].map((b) => JSON.parse(b).seq)).toEqual([5, 6]);
      expect(store.entriesBySubject('customer', 'cus_even').map((e) => e.seq)).toEqual([2, 4, 6]);
      expect(store.entriesBySubject('customer', 'nobody')).toEqual([]);
      expect(store.readEntries(0, 1)[0]).toEqual(entry(1, 'customer', 'cus_odd'));
    });

    it('keeps resources, lists live ones in id order and answers index lookups', () => {
      fresh();
      store.exclusive(() => {
        store.putResource(resource('endpoint', 'we_b', 1, { events: ['a'] }), { remove: [], add: [{ name: 'byEvent', key: 'a' }] });
        store.putResource(resource('endpoint', 'we_a', 2, { events: ['a', 'b'] }), {
          remove: [],
          add: [
            { name: 'byEvent', key: 'a' },
            { name: 'byEvent', key: 'b' },
          ],
        });
        store.putResource(resource('customer', 'cus_1', 3), { remove: [], add: [] });
        store.putResource(resource('customer', 'cus_0', 4, {}, true), { remove: [], add: [] });
      });
      expect(store.getResource('endpoint', 'we_a')).toEqual(resource('endpoint', 'we_a', 2, { events: ['a', 'b'] }));
      expect(store.getResource('endpoint', 'missing')).toBeUndefined();
      expect(store.getResource('customer', 'cus_0')?.deleted).toBe(true);
      expect(store.listResources('endpoint').map((r) => r.id)).toEqual(['we_a', 'we_b']);
      expect(store.listResources('customer').map((r) => r.id)).toEqual(['cus_1']);
      expect(store.lookup('endpoint', 'byEvent', 'a').map((r) => r.id)).toEqual(['we_a', 'we_b']);
      expect(store.lookup('endpoint', 'byEvent', 'b').map((r) => r.id)).toEqual(['we_a']);
      expect([...store.liveResources()].map((r) => `${r.type}/${r.id}`)).toEqual(['customer/cus_1', 'endpoint/we_a', 'endpoint/we_b']);
      store.exclusive(() => store.putResource(resource('endpoint', 'we_a', 5, { events: ['b'] }), { remove: [{ name: 'byEvent', key: 'a' }], add: [] }));
      expect(store.lookup('endpoint', 'byEvent', 'a').map((r) => r.id)).toEqual(['we_b']);
      store.exclusive(() => store.clearIndex('endpoint', 'byEvent'));
      expect(store.lookup('endpoint', 'byEvent', 'b')).toEqual([]);
      expect([...store.allResources('customer')].map((r) => r.id).sort()).toEqual(['cus_0', 'cus_1']);
    });

    it('rolls back everything a throwing section did', () => {
      fresh();
      store.exclusive(() => store.append(entry(1), canonicalJson(entry(1))));
      expect(() =>
        store.exclusive(() => {
          store.append(entry(2), canonicalJson(entry(2)));
          store.putResource(resource('customer', 'cus_2', 2), { remove: [], add: [{ name: 'x', key: 'y' }] });
          store.setMeta('k', 'v');
          throw new Error('decide failed');
        }),
      ).toThrow('decide failed');
      expect(store.head()).toBe(1);
      expect(store.getResource('customer', 'cus_2')).toBeUndefined();
      expect(store.lookup('customer', 'x', 'y')).toEqual([]);
      expect(store.getMeta('k')).toBeUndefined();
    });

    it('refuses nested sections', () => {
      fresh();
      expect(() => store.exclusive(() => store.exclusive(() => 1))).toThrow(/do not nest/);
    });

    it('keeps meta values', () => {
      fresh();
      store.exclusive(() => store.setMeta('index:a', '1'));
      store.exclusive(() => store.setMeta('index:a', '2'));
      expect(store.getMeta('index:a')).toBe('2');
    });

    it('survives reopening with everything intact', () => {
      fresh();
      store.exclusive(() => {
        store.append(entry(1), canonicalJson(entry(1)));
        store.putResource(resource('customer', 'cus_1', 1, { n: 1 }), { remove: [], add: [] });
      });
      const again = reopen().openTwin('t');
      expect(again.head()).toBe(1);
      expect(again.getResource('customer', 'cus_1')).toEqual(resource('customer', 'cus_1', 1, { n: 1 }));
      expect([...again.entryBodies(0)]).toEqual([canonicalJson(entry(1))]);
    });
  });
}

describe('ordering across backends', () => {
  it('memory, SQLite and replay order ids the same, non-BMP characters included', async () => {
    const { replayLines } = await import('../../src/world/replay.js');
    const { World } = await import('../../src/world/world.js');
    const ids = ['a', 'Z', '\u00e9', '\uffee', '\u{1F600}', 'b\u{10000}', 'b\uff00', '_'];
    const hashes: string[] = [];
    const orders: string[][] = [];
    for (const backendCase of backends) {
      const made = backendCase.create();
      const world = new World({ root: ':memory:', backend: made.backend, seed: 1 });
      const twin = world.twin('t');
      for (const id of ids) twin.applyWrite({ operation: 'x.put', subjectType: 'x', subjectId: id, occurredAt: '2026-01-01T00:00:00.000Z' });
      orders.push(twin.list('x').map((r) => r.id));
      hashes.push(twin.hash());
      hashes.push((await replayLines(twin.exportLines())).hash);
      await world.close();
      made.cleanup();
    }
    expect(orders[0]).toEqual(orders[1]);
    expect(new Set(hashes).size).toBe(1);
  });
});

describe('key order', () => {
  it('compareKeys is UTF-8 byte order (SQLite BINARY) for any strings', async () => {
    const { compareKeys } = await import('../../src/state/state-hash.js');
    const alphabet = ['a', 'z', 'A', '_', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1F600}', '\u{10FFFF}'];
    const { SeededIds } = await import('../../src/world/ids.js');
    const { VirtualClock } = await import('../../src/world/clock.js');
    const rng = new SeededIds(new VirtualClock(0), 'keys');
    const word = () => Array.from({ length: 1 + Math.floor(rng.random() * 4) }, () => alphabet[Math.floor(rng.random() * alphabet.length)]).join('');
    for (let i = 0; i < 3000; i++) {
      const a = word();
      const b = word();
      expect(Math.sign(compareKeys(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }
  });
});
