// The asynchronous storage port's conformance suite, run unchanged against any StorageBackend: call
// `describePortConformance(name, factory)` from a test file with a factory that makes a fresh backend.
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { JsonObject } from '../../src/log/json-value.js';
import type { Entry } from '../../src/log/write.js';
import type { Resource } from '../../src/state/resource.js';
import type { IndexDelta, StorageBackend, TwinStore } from '../../src/storage/port.js';

export interface PortCase {
  /** A fresh backend: no twins, nothing written. */
  readonly backend: StorageBackend;
  /** Another handle on the same storage (its own connections or file handles); memory may answer `backend`. */
  reopen(): Promise<StorageBackend>;
  /** Removes what the case made; called after every backend it gave was closed. */
  cleanup(): Promise<void>;
}

const NO_DELTA: IndexDelta = { remove: [], add: [] };

export function entry(
  seq: number,
  type = 'customer',
  id = `cus_${seq}`,
  fields: JsonObject = { n: seq },
): Entry {
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
    fields,
  };
}

export function resource(
  type: string,
  id: string,
  version: number,
  fields: JsonObject = {},
  deleted = false,
): Resource {
  return { type, id, version, deleted, fields };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** One atomic increment of counter/c: read it and the head inside the section, append, put. */
export async function increment(store: TwinStore): Promise<number> {
  return store.transact(async (tx) => {
    const head = await tx.head();
    const value = Number((await tx.getResource('counter', 'c'))?.fields.value ?? 0) + 1;
    const e = entry(head + 1, 'counter', 'c', { value });
    tx.append(e, canonicalJson(e));
    tx.putResource(resource('counter', 'c', head + 1, { value }), NO_DELTA, head + 1);
    return value;
  });
}

function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function describePortConformance(name: string, factory: () => Promise<PortCase>): void {
  describe(`storage port conformance: ${name}`, () => {
    const opened: StorageBackend[] = [];
    const cases: PortCase[] = [];

    const fresh = async (): Promise<{
      backend: StorageBackend;
      store: TwinStore;
      reopen: () => Promise<StorageBackend>;
    }> => {
      const made = await factory();
      cases.push(made);
      opened.push(made.backend);
      const reopen = async (): Promise<StorageBackend> => {
        const again = await made.reopen();
        opened.push(again);
        return again;
      };
      return { backend: made.backend, store: await made.backend.openTwin('t'), reopen };
    };

    afterEach(async () => {
      for (const backend of opened.splice(0).reverse()) await backend.close();
      for (const made of cases.splice(0)) await made.cleanup();
    });

    it('starts empty and appends dense entries', async () => {
      const { backend, store } = await fresh();
      expect(await store.head()).toBe(0);
      await store.transact((tx) => {
        for (let seq = 1; seq <= 5; seq++) tx.append(entry(seq), canonicalJson(entry(seq)));
      });
      expect(await store.head()).toBe(5);
      expect(await backend.listTwins()).toContain('t');
      await store.transact(async (tx) => {
        expect(await tx.head()).toBe(5);
        tx.append(entry(6), canonicalJson(entry(6)));
      });
      expect(
        (await store.transact((tx) => tx.readEntries(0, 100), { readOnly: true })).map(
          (e) => e.seq,
        ),
      ).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('keeps the body byte for byte and parses it back', async () => {
      const { store } = await fresh();
      const e = entry(1, 'customer', 'cus_1', {
        name: 'Zoë 😀',
        quote: `it's "x" \\ y`,
        nested: { b: [1, 2.5, null, true] },
      });
      const body = canonicalJson(e);
      await store.transact((tx) => tx.append(e, body));
      expect(await collect(store.entryBodies(0))).toEqual([body]);
      expect((await store.transact((tx) => tx.readEntries(0, 1), { readOnly: true }))[0]).toEqual(
        e,
      );
    });

    it('reads a range, streams bodies and reads by subject', async () => {
      const { store } = await fresh();
      await store.transact((tx) => {
        for (let seq = 1; seq <= 6; seq++) {
          const e = entry(seq, 'customer', seq % 2 === 0 ? 'cus_even' : 'cus_odd');
          tx.append(e, canonicalJson(e));
          // the kernel puts an entry's subject right after appending it, naming the entry
          tx.putResource(resource('customer', e.subjectId, seq), NO_DELTA, seq);
          // a projection touch (no subjectOf) must not enter the subject's history
          tx.putResource(
            resource('customer', seq % 2 === 0 ? 'cus_odd' : 'cus_even', seq),
            NO_DELTA,
          );
        }
      });
      expect(
        (await store.transact((tx) => tx.readEntries(2, 3), { readOnly: true })).map((e) => e.seq),
      ).toEqual([3, 4, 5]);
      expect(
        (await store.transact((tx) => tx.readEntries(5, 100), { readOnly: true })).map(
          (e) => e.seq,
        ),
      ).toEqual([6]);
      expect(await store.transact((tx) => tx.readEntries(6, 10), { readOnly: true })).toEqual([]);
      expect((await collect(store.entryBodies(4))).map((b) => JSON.parse(b).seq)).toEqual([5, 6]);
      expect((await store.entriesBySubject('customer', 'cus_even')).map((e) => e.seq)).toEqual([
        2, 4, 6,
      ]);
      expect(await store.entriesBySubject('customer', 'nobody')).toEqual([]);
      expect((await store.transact((tx) => tx.readEntries(0, 1), { readOnly: true }))[0]).toEqual(
        entry(1, 'customer', 'cus_odd'),
      );
    });

    it('keeps resources, lists live ones in id order and answers index lookups', async () => {
      const { store } = await fresh();
      await store.transact((tx) => {
        tx.putResource(resource('endpoint', 'we_b', 1, { events: ['a'] }), {
          remove: [],
          add: [{ name: 'byEvent', key: 'a' }],
        });
        tx.putResource(resource('endpoint', 'we_a', 2, { events: ['a', 'b'] }), {
          remove: [],
          add: [
            { name: 'byEvent', key: 'a' },
            { name: 'byEvent', key: 'b' },
          ],
        });
        tx.putResource(resource('customer', 'cus_1', 3), NO_DELTA);
        tx.putResource(resource('customer', 'cus_0', 4, {}, true), NO_DELTA);
      });
      expect(
        await store.transact((tx) => tx.getResource('endpoint', 'we_a'), { readOnly: true }),
      ).toEqual(resource('endpoint', 'we_a', 2, { events: ['a', 'b'] }));
      expect(
        await store.transact((tx) => tx.getResource('endpoint', 'missing'), { readOnly: true }),
      ).toBeUndefined();
      expect(
        (await store.transact((tx) => tx.getResource('customer', 'cus_0'), { readOnly: true }))
          ?.deleted,
      ).toBe(true);
      expect(
        (await store.transact((tx) => tx.listResources('endpoint'), { readOnly: true })).map(
          (r) => r.id,
        ),
      ).toEqual(['we_a', 'we_b']);
      expect(
        (await store.transact((tx) => tx.listResources('customer'), { readOnly: true })).map(
          (r) => r.id,
        ),
      ).toEqual(['cus_1']);
      expect(
        (
          await store.transact((tx) => tx.lookup('endpoint', 'byEvent', 'a'), { readOnly: true })
        ).map((r) => r.id),
      ).toEqual(['we_a', 'we_b']);
      expect(
        (
          await store.transact((tx) => tx.lookup('endpoint', 'byEvent', 'b'), { readOnly: true })
        ).map((r) => r.id),
      ).toEqual(['we_a']);
      expect((await collect(store.liveResources())).map((r) => `${r.type}/${r.id}`)).toEqual([
        'customer/cus_1',
        'endpoint/we_a',
        'endpoint/we_b',
      ]);
      await store.transact((tx) =>
        tx.putResource(resource('endpoint', 'we_a', 5, { events: ['b'] }), {
          remove: [{ name: 'byEvent', key: 'a' }],
          add: [],
        }),
      );
      expect(
        (
          await store.transact((tx) => tx.lookup('endpoint', 'byEvent', 'a'), { readOnly: true })
        ).map((r) => r.id),
      ).toEqual(['we_b']);
      // a tombstone drops out of lookups even while its keys remain
      await store.transact((tx) =>
        tx.putResource(resource('endpoint', 'we_b', 6, { events: ['a'] }, true), NO_DELTA),
      );
      expect(
        await store.transact((tx) => tx.lookup('endpoint', 'byEvent', 'a'), { readOnly: true }),
      ).toEqual([]);
      await store.transact((tx) => tx.clearIndex('endpoint', 'byEvent'));
      expect(
        await store.transact((tx) => tx.lookup('endpoint', 'byEvent', 'b'), { readOnly: true }),
      ).toEqual([]);
      expect(
        await store.transact(async (tx) =>
          (await tx.allResources('customer')).map((r) => r.id).sort(),
        ),
      ).toEqual(['cus_0', 'cus_1']);
    });

    it('answers reads inside a section: the head as of the lock, resources, lookups, tombstones, meta, entries', async () => {
      const { store } = await fresh();
      await store.transact((tx) => {
        const e = entry(1, 'endpoint', 'we_1');
        tx.append(e, canonicalJson(e));
        tx.putResource(
          resource('endpoint', 'we_1', 1, { url: 'u' }),
          { remove: [], add: [{ name: 'byUrl', key: 'u' }] },
          1,
        );
        tx.putResource(resource('endpoint', 'we_0', 1, {}, true), NO_DELTA);
        tx.setMeta('m', 'v');
      });
      const seen = await store.transact(async (tx) => ({
        // asked twice before the first answer lands, once in the same tick and once in the next
        heads: await (async () => {
          const first = [tx.head(), tx.head()];
          await Promise.resolve();
          return Promise.all([...first, tx.head()]);
        })(),
        head: await tx.head(),
        get: await tx.getResource('endpoint', 'we_1'),
        list: (await tx.listResources('endpoint')).map((r) => r.id),
        all: (await tx.allResources('endpoint')).map((r) => r.id).sort(),
        lookup: (await tx.lookup('endpoint', 'byUrl', 'u')).map((r) => r.id),
        meta: await tx.getMeta('m'),
        missingMeta: await tx.getMeta('nope'),
        entries: (await tx.readEntries(0, 10)).map((e) => e.subjectId),
      }));
      expect(seen).toEqual({
        heads: [1, 1, 1],
        head: 1,
        get: resource('endpoint', 'we_1', 1, { url: 'u' }),
        list: ['we_1'],
        all: ['we_0', 'we_1'],
        lookup: ['we_1'],
        meta: 'v',
        missingMeta: undefined,
        entries: ['we_1'],
      });
    });

    it("returns the section's value, whether the section is synchronous or not", async () => {
      const { store } = await fresh();
      expect(await store.transact(() => 41)).toBe(41);
      expect(await store.transact(async () => 42)).toBe(42);
    });

    it('commits nothing when a section rejects, and passes its error on unchanged', async () => {
      const { store } = await fresh();
      await store.transact((tx) => tx.append(entry(1), canonicalJson(entry(1))));
      const failure = new Error('decide failed');
      await expect(
        store.transact(async (tx) => {
          await tx.getResource('customer', 'cus_1');
          tx.append(entry(2), canonicalJson(entry(2)));
          tx.putResource(
            resource('customer', 'cus_2', 2),
            { remove: [], add: [{ name: 'x', key: 'y' }] },
            2,
          );
          tx.setMeta('k', 'v');
          throw failure;
        }),
      ).rejects.toBe(failure);
      await expect(
        store.transact((tx) => {
          tx.append(entry(2), canonicalJson(entry(2)));
          throw new RangeError('sync throw');
        }),
      ).rejects.toThrow(RangeError);
      expect(await store.head()).toBe(1);
      expect(
        await store.transact((tx) => tx.getResource('customer', 'cus_2'), { readOnly: true }),
      ).toBeUndefined();
      expect(
        await store.transact((tx) => tx.lookup('customer', 'x', 'y'), { readOnly: true }),
      ).toEqual([]);
      expect(await store.transact((tx) => tx.getMeta('k'), { readOnly: true })).toBeUndefined();
      // and the twin still works afterwards
      await store.transact((tx) => tx.append(entry(2), canonicalJson(entry(2))));
      expect(await store.head()).toBe(2);
    });

    it('refuses nested sections', async () => {
      const { store } = await fresh();
      await expect(store.transact(() => store.transact(() => 1))).rejects.toThrow(/do not nest/);
      // the outer section's refusal left the twin usable
      expect(await store.transact(() => 'after')).toBe('after');
    });

    it('keeps meta values', async () => {
      const { store } = await fresh();
      await store.transact((tx) => tx.setMeta('index:a', '1'));
      await store.transact((tx) => tx.setMeta('index:a', '2'));
      expect(await store.transact((tx) => tx.getMeta('index:a'), { readOnly: true })).toBe('2');
      expect(
        await store.transact((tx) => tx.getMeta('index:b'), { readOnly: true }),
      ).toBeUndefined();
    });

    it('coalesces what one section wrote: last value of a resource, last add or remove of a key, clears in order', async () => {
      const { store } = await fresh();
      await store.transact((tx) => {
        tx.putResource(resource('x', 'a', 1, { v: 1 }), {
          remove: [],
          add: [{ name: 'i', key: 'k1' }],
        });
        tx.putResource(resource('x', 'a', 2, { v: 2 }), {
          remove: [{ name: 'i', key: 'k1' }],
          add: [{ name: 'i', key: 'k2' }],
        });
        tx.putResource(resource('x', 'b', 2, { v: 2 }), {
          remove: [],
          add: [{ name: 'j', key: 'old' }],
        });
        tx.clearIndex('x', 'j');
        tx.putResource(resource('x', 'c', 2, { v: 2 }), {
          remove: [],
          add: [{ name: 'j', key: 'new' }],
        });
        tx.setMeta('m', '1');
        tx.setMeta('m', '2');
      });
      expect(await store.transact((tx) => tx.getResource('x', 'a'), { readOnly: true })).toEqual(
        resource('x', 'a', 2, { v: 2 }),
      );
      expect(await store.transact((tx) => tx.lookup('x', 'i', 'k1'), { readOnly: true })).toEqual(
        [],
      );
      expect(
        (await store.transact((tx) => tx.lookup('x', 'i', 'k2'), { readOnly: true })).map(
          (r) => r.id,
        ),
      ).toEqual(['a']);
      expect(await store.transact((tx) => tx.lookup('x', 'j', 'old'), { readOnly: true })).toEqual(
        [],
      );
      expect(
        (await store.transact((tx) => tx.lookup('x', 'j', 'new'), { readOnly: true })).map(
          (r) => r.id,
        ),
      ).toEqual(['c']);
      expect(await store.transact((tx) => tx.getMeta('m'), { readOnly: true })).toBe('2');
      await store.transact((tx) => {
        tx.putResource(resource('x', 'a', 3, { v: 3 }), {
          remove: [{ name: 'i', key: 'k2' }],
          add: [],
        });
        tx.putResource(resource('x', 'a', 4, { v: 4 }), {
          remove: [],
          add: [{ name: 'i', key: 'k2' }],
        });
      });
      expect(
        (await store.transact((tx) => tx.lookup('x', 'i', 'k2'), { readOnly: true })).map(
          (r) => r.id,
        ),
      ).toEqual(['a']);
    });

    it('survives reopening with everything intact', async () => {
      const { store, reopen } = await fresh();
      await store.transact((tx) => {
        tx.append(entry(1), canonicalJson(entry(1)));
        tx.putResource(
          resource('customer', 'cus_1', 1, { n: 1 }),
          { remove: [], add: [{ name: 'byN', key: '1' }] },
          1,
        );
        tx.setMeta('k', 'v');
      });
      const again = await (await reopen()).openTwin('t');
      expect(await again.head()).toBe(1);
      expect(
        await again.transact((tx) => tx.getResource('customer', 'cus_1'), { readOnly: true }),
      ).toEqual(resource('customer', 'cus_1', 1, { n: 1 }));
      expect(
        (await again.transact((tx) => tx.lookup('customer', 'byN', '1'), { readOnly: true })).map(
          (r) => r.id,
        ),
      ).toEqual(['cus_1']);
      expect(await again.transact((tx) => tx.getMeta('k'), { readOnly: true })).toBe('v');
      expect(await collect(again.entryBodies(0))).toEqual([canonicalJson(entry(1))]);
    });

    it('keeps twins apart and lists them', async () => {
      const { backend, store } = await fresh();
      const other = await backend.openTwin('other');
      await store.transact((tx) => {
        tx.append(entry(1), canonicalJson(entry(1)));
        tx.putResource(resource('customer', 'cus_1', 1), NO_DELTA, 1);
      });
      expect(await other.head()).toBe(0);
      expect(
        await other.transact((tx) => tx.getResource('customer', 'cus_1'), { readOnly: true }),
      ).toBeUndefined();
      expect(await collect(other.liveResources())).toEqual([]);
      expect(await backend.listTwins()).toEqual(['other', 't']);
    });

    it('orders live resources and ids by UTF-8 bytes, non-BMP characters included', async () => {
      const { store } = await fresh();
      const ids = [
        'a',
        'Z',
        'B',
        'b',
        '_',
        '\u00e9',
        '\uffee',
        '\u{1F600}',
        'b\u{10000}',
        'b\uff00',
        'a b',
        'A',
      ];
      const types = ['x', 'X', '\u00e9t', 'y'];
      await store.transact((tx) => {
        let v = 0;
        for (const type of types)
          for (const id of ids) tx.putResource(resource(type, id, ++v, { id }), NO_DELTA);
      });
      expect(
        (await store.transact((tx) => tx.listResources('x'), { readOnly: true })).map((r) => r.id),
      ).toEqual([...ids].sort(utf8Order));
      const live = (await collect(store.liveResources())).map((r) => [r.type, r.id] as const);
      const expected = types
        .flatMap((t) => ids.map((id) => [t, id] as const))
        .sort((p, q) => utf8Order(p[0], q[0]) || utf8Order(p[1], q[1]));
      expect(live).toEqual(expected);
      // resuming past a row (or past a key no row has) seeks to the next one in the same order
      for (const i of [
        0,
        5,
        ids.length - 1,
        ids.length,
        expected.length - 2,
        expected.length - 1,
      ]) {
        const [type, id] = expected[i]!;
        const rest = (await collect(store.liveResources({ type, id }))).map(
          (r) => [r.type, r.id] as const,
        );
        expect(rest).toEqual(expected.slice(i + 1));
      }
      const pastType = (await collect(store.liveResources({ type: 'x', id: '\u{10FFFF}' }))).map(
        (r) => r.type,
      );
      expect(pastType).toEqual(expected.filter(([t]) => utf8Order(t, 'x') > 0).map(([t]) => t));
    });

    it('streams more than one batch, and a stream left early frees what it held', async () => {
      const { store } = await fresh();
      const n = 1_234;
      await store.transact((tx) => {
        for (let i = 1; i <= n; i++) {
          const e = entry(i, 'item', `i${String(i).padStart(5, '0')}`);
          tx.append(e, canonicalJson(e));
          tx.putResource(resource('item', e.subjectId, i, { i }), NO_DELTA, i);
        }
      });
      const live = await collect(store.liveResources());
      expect(live.map((r) => r.fields.i)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect((await collect(store.entryBodies(1_000))).length).toBe(n - 1_000);
      // Leaving streams early, more times than a pool holds connections: each must give its own back.
      for (let round = 0; round < 25; round++) {
        for await (const r of store.liveResources()) if (r.id.length > 0) break;
        for await (const b of store.entryBodies(0)) if (b.length > 0) break;
      }
      expect(await increment(store)).toBe(1);
      expect(await store.head()).toBe(n + 1);
    });

    it('runs sections queued on one handle one at a time', async () => {
      const { store } = await fresh();
      const values = await Promise.all(Array.from({ length: 20 }, () => increment(store)));
      expect([...values].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(await store.head()).toBe(20);
      expect(
        (await store.transact((tx) => tx.readEntries(0, 100), { readOnly: true })).map(
          (e) => e.seq,
        ),
      ).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('serialises sections from two handles on the same storage: every increment counted, the log dense', async () => {
      const { store, reopen } = await fresh();
      const second = await (await reopen()).openTwin('t');
      const runs: Promise<number>[] = [];
      for (let i = 0; i < 25; i++) runs.push(increment(store), increment(second));
      await Promise.all(runs);
      expect(await store.head()).toBe(50);
      expect(
        (await second.transact((tx) => tx.getResource('counter', 'c'), { readOnly: true }))?.fields
          .value,
      ).toBe(50);
      expect(
        (await store.transact((tx) => tx.readEntries(0, 100), { readOnly: true })).map(
          (e) => e.fields?.value,
        ),
      ).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });
  });
}
