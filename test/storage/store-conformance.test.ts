// One conformance suite for the asynchronous storage port, run unchanged against every backend.
// It awaits every read a section makes, so a backend whose reads answer asynchronously passes
// or fails it on the same terms as one whose reads answer at once.
import { afterEach, describe, expect, it } from 'vitest';
import { DUE_INDEX } from '../../src/state/indexes.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { StorageBackend, StoreTx, TwinStore } from '../../src/storage/port.js';
import type { Entry } from '../../src/log/write.js';
import type { Resource } from '../../src/state/resource.js';
import { backends, collect } from '../support/backends.js';

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

function append(tx: StoreTx, e: Entry): void {
  tx.append(e, canonicalJson(e));
}

function resource(
  type: string,
  id: string,
  version: number,
  fields: Record<string, unknown> = {},
  deleted = false,
): Resource {
  return { type, id, version, deleted, fields } as Resource;
}

const NO_KEYS = { remove: [], add: [] };

/** (type, id) in UTF-8 byte order, the order the port promises. */
function byteOrder(a: { type: string; id: string }, b: { type: string; id: string }): number {
  return (
    Buffer.compare(Buffer.from(a.type), Buffer.from(b.type)) ||
    Buffer.compare(Buffer.from(a.id), Buffer.from(b.id))
  );
}

const PAGE = 1_000;

for (const backendCase of backends) {
  describe(`storage port conformance: ${backendCase.name}`, () => {
    let cleanup = (): void => {};
    let backend: StorageBackend;
    let reopen: () => StorageBackend;
    let store: TwinStore;

    const fresh = async (): Promise<void> => {
      const made = backendCase.create();
      backend = made.backend;
      reopen = made.reopen;
      cleanup = made.cleanup;
      store = await backend.openTwin('t');
    };
    afterEach(async () => {
      await backend.close();
      cleanup();
    });

    it('starts empty and appends dense entries', async () => {
      await fresh();
      expect(await store.head()).toBe(0);
      expect(await store.transact((tx) => tx.head())).toBe(0);
      await store.transact((tx) => {
        for (let seq = 1; seq <= 5; seq++) append(tx, entry(seq));
      });
      expect(await store.head()).toBe(5);
      expect(await store.transact((tx) => tx.head(), { readOnly: true })).toBe(5);
      await store.transact(async (tx) => append(tx, entry((await tx.head()) + 1)));
      expect(await store.head()).toBe(6);
      expect(await backend.listTwins()).toContain('t');
    });

    it('reads what entries touched: every subject, whole entries where a projection is and at the head', async () => {
      await fresh();
      const projecting: Entry = {
        ...entry(2, 'delivery', 'dl_1'),
        projection: {
          creates: [{ type: 'run', id: 'run_1', fields: {} }],
          deletes: [{ type: 'hold', id: 'h_1' }],
        },
      };
      const all = [entry(1), projecting, entry(3), entry(4, 'invoice', 'in_4')];
      await store.transact((tx) => {
        for (const e of all) append(tx, e);
      });
      const read = await store.transact(
        async (tx) => ({
          all: await tx.readTouched(0, 100),
          middle: (await tx.readTouched(1, 2)).map((t) => t.seq),
          past: await tx.readTouched(4, 10),
        }),
        { readOnly: true },
      );
      expect(read.all.map((t) => [t.seq, t.subjectType, t.subjectId])).toEqual(
        all.map((e) => [e.seq, e.subjectType, e.subjectId]),
      );
      expect(read.all[1]!.entry).toEqual(projecting);
      expect(read.all[3]!.entry).toEqual(all[3]);
      // a backend may give other entries whole too, as they are
      for (const t of read.all) if (t.entry !== undefined) expect(t.entry).toEqual(all[t.seq - 1]);
      expect(read.middle).toEqual([2, 3]);
      expect(read.past).toEqual([]);
    });

    it('reads a range, streams bodies and reads by subject', async () => {
      await fresh();
      await store.transact((tx) => {
        for (let seq = 1; seq <= 6; seq++) {
          const e = entry(seq, 'customer', seq % 2 === 0 ? 'cus_even' : 'cus_odd');
          append(tx, e);
          // the kernel puts an entry's subject right after appending it, naming the entry
          tx.putResource(resource('customer', e.subjectId, seq), NO_KEYS, seq);
          // a projection touch (no subjectOf) must not enter the subject's chain
          tx.putResource(
            resource('customer', seq % 2 === 0 ? 'cus_odd' : 'cus_even', seq),
            NO_KEYS,
          );
        }
      });
      const range = await store.transact(
        async (tx) => ({
          middle: (await tx.readEntries(2, 3)).map((e) => e.seq),
          tail: (await tx.readEntries(5, 100)).map((e) => e.seq),
          past: await tx.readEntries(6, 10),
          first: (await tx.readEntries(0, 1))[0],
        }),
        { readOnly: true },
      );
      expect(range).toEqual({
        middle: [3, 4, 5],
        tail: [6],
        past: [],
        first: entry(1, 'customer', 'cus_odd'),
      });
      expect((await collect(store.entryBodies(4))).map((b) => JSON.parse(b).seq)).toEqual([5, 6]);
      expect(await collect(store.entryBodies(6))).toEqual([]);
      expect((await store.entriesBySubject('customer', 'cus_even')).map((e) => e.seq)).toEqual([
        2, 4, 6,
      ]);
      expect((await store.entriesBySubject('customer', 'cus_odd')).map((e) => e.seq)).toEqual([
        1, 3, 5,
      ]);
      expect(await store.entriesBySubject('customer', 'nobody')).toEqual([]);
      expect((await store.entriesBySubject('customer', 'cus_even'))[0]).toEqual(
        entry(2, 'customer', 'cus_even'),
      );
    });

    it('links subjects when a section appends all its entries before it puts them', async () => {
      await fresh();
      // A section's order: every entry first, then the subjects' puts.
      await store.transact((tx) => {
        for (let seq = 1; seq <= 3; seq++) append(tx, entry(seq, 'customer', 'cus_1'));
        for (let seq = 1; seq <= 3; seq++)
          tx.putResource(resource('customer', 'cus_1', seq), NO_KEYS, seq);
      });
      await store.transact((tx) => {
        append(tx, entry(4, 'customer', 'cus_2'));
        append(tx, entry(5, 'customer', 'cus_1'));
        tx.putResource(resource('customer', 'cus_2', 4), NO_KEYS, 4);
        tx.putResource(resource('customer', 'cus_1', 5), NO_KEYS, 5);
      });
      expect((await store.entriesBySubject('customer', 'cus_1')).map((e) => e.seq)).toEqual([
        1, 2, 3, 5,
      ]);
      expect((await store.entriesBySubject('customer', 'cus_2')).map((e) => e.seq)).toEqual([4]);
      expect((await collect(store.entryBodies(0))).map((b) => JSON.parse(b).seq)).toEqual([
        1, 2, 3, 4, 5,
      ]);
      expect(await store.head()).toBe(5);
    });

    it('keeps resources, lists live ones in id order and answers index lookups', async () => {
      await fresh();
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
        tx.putResource(resource('customer', 'cus_1', 3), NO_KEYS);
        tx.putResource(resource('customer', 'cus_0', 4, {}, true), NO_KEYS);
      });
      const read = <T>(fn: (tx: StoreTx) => T | Promise<T>): Promise<T> =>
        store.transact(fn, { readOnly: true });
      expect(await read((tx) => tx.getResource('endpoint', 'we_a'))).toEqual(
        resource('endpoint', 'we_a', 2, { events: ['a', 'b'] }),
      );
      expect(await read((tx) => tx.getResource('endpoint', 'missing'))).toBeUndefined();
      expect((await read((tx) => tx.getResource('customer', 'cus_0')))?.deleted).toBe(true);
      expect((await read((tx) => tx.listResources('endpoint'))).map((r) => r.id)).toEqual([
        'we_a',
        'we_b',
      ]);
      expect((await read((tx) => tx.listResources('customer'))).map((r) => r.id)).toEqual([
        'cus_1',
      ]);
      expect((await read((tx) => tx.lookup('endpoint', 'byEvent', 'a'))).map((r) => r.id)).toEqual([
        'we_a',
        'we_b',
      ]);
      expect((await read((tx) => tx.lookup('endpoint', 'byEvent', 'b'))).map((r) => r.id)).toEqual([
        'we_a',
      ]);
      expect((await collect(store.liveResources())).map((r) => `${r.type}/${r.id}`)).toEqual([
        'customer/cus_1',
        'endpoint/we_a',
        'endpoint/we_b',
      ]);
      // an index delta moves only the keys it names
      await store.transact((tx) =>
        tx.putResource(resource('endpoint', 'we_a', 5, { events: ['b'] }), {
          remove: [{ name: 'byEvent', key: 'a' }],
          add: [],
        }),
      );
      expect((await read((tx) => tx.lookup('endpoint', 'byEvent', 'a'))).map((r) => r.id)).toEqual([
        'we_b',
      ]);
      expect((await read((tx) => tx.lookup('endpoint', 'byEvent', 'b'))).map((r) => r.id)).toEqual([
        'we_a',
      ]);
      // a tombstone keeps its keys but drops out of lookups
      await store.transact((tx) =>
        tx.putResource(resource('endpoint', 'we_b', 6, {}, true), NO_KEYS),
      );
      expect(await read((tx) => tx.lookup('endpoint', 'byEvent', 'a'))).toEqual([]);
      await store.transact((tx) => tx.clearIndex('endpoint', 'byEvent'));
      expect(await read((tx) => tx.lookup('endpoint', 'byEvent', 'b'))).toEqual([]);
      expect((await read((tx) => tx.allResources('customer'))).map((r) => r.id).sort()).toEqual([
        'cus_0',
        'cus_1',
      ]);
    });

    it('commits a section of 1,200 entries, resources and key moves at once (more rows than one statement takes), quotes and all', async () => {
      await fresh();
      const n = 1_200;
      // a value a backend spells into SQL must survive as it is: quotes, a backslash, "NULL"
      const text = (i: number) => `it's "${i}" \\ NULL, ARRAY['x']`;
      await store.transact((tx) => {
        for (let i = 1; i <= n; i++) {
          append(tx, { ...entry(i, 'job', `job_${i}`), fields: { note: text(i) } });
          tx.putResource(resource('job', `job_${i}`, i, { note: text(i) }), {
            remove: [],
            add: [{ name: DUE_INDEX, key: `a${String(i).padStart(5, '0')}` }],
          });
        }
      });
      // every key moves in one section: 1,200 removed and 1,200 added
      await store.transact((tx) => {
        for (let i = 1; i <= n; i++)
          tx.putResource(resource('job', `job_${i}`, n + i, { note: text(i), moved: true }), {
            remove: [{ name: DUE_INDEX, key: `a${String(i).padStart(5, '0')}` }],
            add: [{ name: DUE_INDEX, key: `b${String(i).padStart(5, '0')}` }],
          });
      });
      const read = await store.transact(
        async (tx) => ({
          old: await tx.lookupUpTo('job', DUE_INDEX, 'a\uffff', n),
          moved: await tx.lookupUpTo('job', DUE_INDEX, 'b\uffff', n + 1),
          last: await tx.getResource('job', `job_${n}`),
          entries: await tx.readEntries(0, n + 1),
        }),
        { readOnly: true },
      );
      expect(read.old).toEqual([]);
      expect(read.moved.map((r) => r.id)).toEqual(
        Array.from({ length: n }, (_, i) => `job_${i + 1}`),
      );
      expect(read.last).toEqual(resource('job', `job_${n}`, 2 * n, { note: text(n), moved: true }));
      expect(read.entries.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(read.entries[n - 1]!.fields).toEqual({ note: text(n) });
      expect(await store.head()).toBe(n);
    });

    it('keeps a large text field through rewrites of the small ones, a new value, its removal and a rollback', async () => {
      await fresh();
      const big = (c: string) => c.repeat(3_000);
      const read = <T>(fn: (tx: StoreTx) => T | Promise<T>): Promise<T> =>
        store.transact(fn, { readOnly: true });
      const kept = async () =>
        (await collect(store.liveResources())).map((r) => [r.id, r.version, r.fields]);
      const put = (version: number, fields: Record<string, unknown>, deleted = false) =>
        store.transact((tx) =>
          tx.putResource(resource('delivery', 'd1', version, fields, deleted), {
            remove: [],
            add: [{ name: DUE_INDEX, key: `k${version}` }],
          }),
        );
      await put(1, { state: 'queued', body: big('a'), url: 'u' });
      await put(2, { state: 'sending', body: big('a'), url: 'u' });
      expect(await kept()).toEqual([['d1', 2, { state: 'sending', body: big('a'), url: 'u' }]]);
      await put(3, { state: 'sent', body: big('b'), note: big('c') + 'c' });
      expect(await read((tx) => tx.lookup('delivery', DUE_INDEX, 'k3'))).toEqual([
        resource('delivery', 'd1', 3, { state: 'sent', body: big('b'), note: big('c') + 'c' }),
      ]);
      await expect(
        store.transact((tx) => {
          tx.putResource(resource('delivery', 'd1', 4, { body: big('d') }), NO_KEYS);
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await read((tx) => tx.getResource('delivery', 'd1'))).toEqual(
        resource('delivery', 'd1', 3, { state: 'sent', body: big('b'), note: big('c') + 'c' }),
      );
      await put(5, { state: 'done', body: null });
      expect(await kept()).toEqual([['d1', 5, { state: 'done', body: null }]]);
      await put(6, { body: big('e') }, true);
      expect(await read((tx) => tx.allResources('delivery'))).toEqual([
        resource('delivery', 'd1', 6, { body: big('e') }, true),
      ]);
    });

    it('rolls back everything a throwing section did', async () => {
      await fresh();
      await store.transact((tx) => {
        append(tx, entry(1));
        tx.putResource(resource('customer', 'cus_1', 1), NO_KEYS, 1);
      });
      await expect(
        store.transact((tx) => {
          append(tx, entry(2, 'customer', 'cus_1'));
          tx.putResource(resource('customer', 'cus_1', 2, { n: 2 }), NO_KEYS, 2);
          tx.putResource(resource('customer', 'cus_2', 2), {
            remove: [],
            add: [{ name: 'x', key: 'y' }],
          });
          tx.setMeta('k', 'v');
          throw new Error('decide failed');
        }),
      ).rejects.toThrow('decide failed');
      // and a section whose promise rejects after it wrote
      await expect(
        store.transact(async (tx) => {
          append(tx, entry((await tx.head()) + 1));
          tx.setMeta('k', 'w');
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error('late failure');
        }),
      ).rejects.toThrow('late failure');
      expect(await store.head()).toBe(1);
      const after = await store.transact(
        async (tx) => ({
          cus1: await tx.getResource('customer', 'cus_1'),
          cus2: await tx.getResource('customer', 'cus_2'),
          lookup: await tx.lookup('customer', 'x', 'y'),
          meta: await tx.getMeta('k'),
          entries: (await tx.readEntries(0, 10)).map((e) => e.seq),
        }),
        { readOnly: true },
      );
      expect(after).toEqual({
        cus1: resource('customer', 'cus_1', 1),
        cus2: undefined,
        lookup: [],
        meta: undefined,
        entries: [1],
      });
      expect((await store.entriesBySubject('customer', 'cus_1')).map((e) => e.seq)).toEqual([1]);
      expect(await collect(store.entryBodies(0))).toEqual([canonicalJson(entry(1))]);
      // the next section starts from the head the failed ones left
      await store.transact(async (tx) => append(tx, entry((await tx.head()) + 1)));
      expect(await store.head()).toBe(2);
    });

    it('a read-only section reads and refuses every write', async () => {
      await fresh();
      await store.transact((tx) => {
        append(tx, entry(1));
        tx.putResource(resource('customer', 'cus_1', 1), NO_KEYS, 1);
        tx.setMeta('k', 'v');
      });
      const writes: [string, (tx: StoreTx) => void][] = [
        ['append', (tx) => append(tx, entry(2))],
        [
          'putResource',
          (tx) =>
            tx.putResource(resource('customer', 'cus_2', 2), {
              remove: [],
              add: [{ name: 'x', key: 'y' }],
            }),
        ],
        ['setMeta', (tx) => tx.setMeta('k', 'changed')],
        ['clearIndex', (tx) => tx.clearIndex('customer', 'x')],
      ];
      for (const [name, write] of writes) {
        const refused = store.transact(
          async (tx) => {
            expect(await tx.head()).toBe(1);
            expect(await tx.getMeta('k')).toBe('v');
            write(tx);
          },
          { readOnly: true },
        );
        await expect(refused, name).rejects.toMatchObject({
          name: 'TwinError',
          code: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/read-only/),
        });
      }
      expect(await store.head()).toBe(1);
      const after = await store.transact(
        async (tx) => ({
          meta: await tx.getMeta('k'),
          cus2: await tx.getResource('customer', 'cus_2'),
          lookup: await tx.lookup('customer', 'x', 'y'),
        }),
        { readOnly: true },
      );
      expect(after).toEqual({ meta: 'v', cus2: undefined, lookup: [] });
      // the refusals left the store writable
      await store.transact((tx) => append(tx, entry(2)));
      expect(await store.head()).toBe(2);
    });

    it('runs two sections on one store from the same process one after the other', async () => {
      await fresh();
      const order: string[] = [];
      let openGate = (): void => {};
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      // Each section reads the head and appends after it: interleaved, both would take seq 1.
      const section = (name: string, wait: Promise<void>) => async (tx: StoreTx) => {
        order.push(`${name}:start`);
        const head = await tx.head();
        await wait;
        append(tx, entry(head + 1, 'customer', name));
        order.push(`${name}:end`);
        return head + 1;
      };
      const first = store.transact(section('a', gate));
      const second = store.transact(section('b', Promise.resolve()));
      // A network backend takes a connection first: wait for a to start, then give b time to barge in.
      for (let i = 0; i < 2_000 && order.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(order).toEqual(['a:start']);
      openGate();
      expect(await Promise.all([first, second])).toEqual([1, 2]);
      expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
      expect(
        (await store.transact((tx) => tx.readEntries(0, 10), { readOnly: true })).map(
          (e) => e.subjectId,
        ),
      ).toEqual(['a', 'b']);

      // a section that fails hands the store on to the one waiting behind it
      let failGate: (() => void) | undefined;
      const failing = store.transact(async () => {
        await new Promise<void>((resolve) => (failGate = resolve));
        throw new Error('first fails');
      });
      const next = store.transact(async (tx) => {
        append(tx, entry((await tx.head()) + 1));
        return 'next ran';
      });
      for (let i = 0; i < 2_000 && failGate === undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      failGate!();
      await expect(failing).rejects.toThrow('first fails');
      expect(await next).toBe('next ran');
      expect(await store.head()).toBe(3);
    });

    it('keeps meta values', async () => {
      await fresh();
      await store.transact((tx) => tx.setMeta('index:a', '1'));
      await store.transact((tx) => tx.setMeta('index:a', '2'));
      expect(await store.transact((tx) => tx.getMeta('index:a'), { readOnly: true })).toBe('2');
      expect(
        await store.transact((tx) => tx.getMeta('index:none'), { readOnly: true }),
      ).toBeUndefined();
    });

    it('lists and streams resources in UTF-8 byte order, non-BMP characters included', async () => {
      await fresh();
      const ids = ['a', 'Z', '\u00e9', '\uffee', '\u{1F600}', 'b\u{10000}', 'b\uff00', '_'];
      const types = ['x', '\u{1F600}', '\uffee'];
      await store.transact((tx) => {
        let v = 0;
        for (const type of types)
          for (const id of ids) tx.putResource(resource(type, id, ++v), NO_KEYS);
      });
      const listed = await store.transact((tx) => tx.listResources('x'), { readOnly: true });
      expect(listed.map((r) => r.id)).toEqual(
        [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      const streamed = (await collect(store.liveResources())).map((r) => ({
        type: r.type,
        id: r.id,
      }));
      expect(streamed).toEqual([...streamed].sort(byteOrder));
      expect(streamed).toHaveLength(types.length * ids.length);
    });

    it('streams entry bodies across page boundaries', async () => {
      await fresh();
      const total = 2 * PAGE + 500;
      await store.transact((tx) => {
        for (let seq = 1; seq <= total; seq++) append(tx, entry(seq));
      });
      const all = await collect(store.entryBodies(0));
      expect(all).toHaveLength(total);
      all.forEach((body, i) => expect(body).toBe(canonicalJson(entry(i + 1))));
      // starting on, just before and just after a page boundary; ending on one exactly
      for (const after of [PAGE - 1, PAGE, PAGE + 1, 500]) {
        const bodies = await collect(store.entryBodies(after));
        expect(bodies.map((b) => JSON.parse(b).seq)).toEqual(
          Array.from({ length: total - after }, (_, i) => after + i + 1),
        );
      }
      expect(await collect(store.entryBodies(total))).toEqual([]);
    });

    it('streams live resources across page boundaries, skipping tombstones', async () => {
      await fresh();
      // 2400 resources over three types, every sixth a tombstone: exactly two pages of live ones
      const types = ['order', 'customer', 'c\u00e9'];
      const all: Resource[] = [];
      for (let i = 0; i < 2400; i++) {
        const type = types[i % types.length]!;
        all.push(
          resource(type, `${i % 2 === 0 ? 'r' : '\u{1F600}'}${i}`, i + 1, { i }, i % 6 === 5),
        );
      }
      await store.transact((tx) => {
        for (const r of all) tx.putResource(r, NO_KEYS);
      });
      const live = all.filter((r) => !r.deleted).sort(byteOrder);
      expect(live).toHaveLength(2 * PAGE);
      expect(await collect(store.liveResources())).toEqual(live);

      // more, including one that sorts first and one that sorts last: a partial third page
      const more = [
        resource('a', 'first', 3000),
        resource('zz', 'last', 3001),
        ...Array.from({ length: 345 }, (_, i) => resource('order', `s${i}`, 3002 + i)),
      ];
      await store.transact((tx) => {
        for (const r of more) tx.putResource(r, NO_KEYS);
      });
      const streamed = await collect(store.liveResources());
      expect(streamed).toHaveLength(2 * PAGE + more.length);
      expect(streamed).toEqual([...live, ...more].sort(byteOrder));
      expect(new Set(streamed.map((r) => `${r.type}\u0000${r.id}`)).size).toBe(streamed.length);
    });

    it('answers a range of index keys up to a bound in (key, id) order, live keys only', async () => {
      await fresh();
      const due = (id: string, at: string | null) => ({
        resource: resource('job', id, 1, { dueAt: at }),
        key: at,
      });
      const jobs = [
        due('j3', '2026-01-01T00:00:03.000Z'),
        due('j1', '2026-01-01T00:00:01.000Z'),
        due('j2', '2026-01-01T00:00:01.000Z'),
        due('j4', '2026-01-01T00:00:09.000Z'),
        due('j5', null),
      ];
      await store.transact((tx) => {
        for (const j of jobs)
          tx.putResource(j.resource, {
            remove: [],
            add: j.key === null ? [] : [{ name: DUE_INDEX, key: j.key }],
          });
      });
      const upTo = (max: string, limit: number) =>
        store.transact(
          async (tx) => (await tx.lookupUpTo('job', DUE_INDEX, max, limit)).map((r) => r.id),
          { readOnly: true },
        );
      expect(await upTo('2026-01-01T00:00:05.000Z', 10)).toEqual(['j1', 'j2', 'j3']);
      expect(await upTo('2026-01-01T00:00:05.000Z', 2)).toEqual(['j1', 'j2']);
      expect(await upTo('2026-01-01T00:00:00.000Z', 10)).toEqual([]);
      expect(await upTo('\uffff', 1)).toEqual(['j1']);
      // a key moved on (claimed, rescheduled) or removed (done) leaves the range
      await store.transact((tx) => {
        tx.putResource(resource('job', 'j1', 2, { dueAt: '2026-01-01T00:00:07.000Z' }), {
          remove: [{ name: DUE_INDEX, key: '2026-01-01T00:00:01.000Z' }],
          add: [{ name: DUE_INDEX, key: '2026-01-01T00:00:07.000Z' }],
        });
        tx.putResource(resource('job', 'j2', 2, { dueAt: null }), {
          remove: [{ name: DUE_INDEX, key: '2026-01-01T00:00:01.000Z' }],
          add: [],
        });
      });
      expect(await upTo('2026-01-01T00:00:08.000Z', 10)).toEqual(['j3', 'j1']);
      expect(await upTo('\uffff', 10)).toEqual(['j3', 'j1', 'j4']);
    });

    it('finds a due key added below every key left after a churn, and the keys of an index rebuilt', async () => {
      await fresh();
      const key = (i: number) => `k${String(i).padStart(3, '0')}`;
      const put = (id: string, version: number, remove: string[], add: string[]) => (tx: StoreTx) =>
        tx.putResource(resource('job', id, version, {}), {
          remove: remove.map((k) => ({ name: DUE_INDEX, key: k })),
          add: add.map((k) => ({ name: DUE_INDEX, key: k })),
        });
      const upTo = (limit: number) =>
        store.transact(
          async (tx) => (await tx.lookupUpTo('job', DUE_INDEX, '\uffff', limit)).map((r) => r.id),
          { readOnly: true },
        );
      await store.transact((tx) => {
        for (let i = 100; i < 140; i++) put(`j${i}`, 1, [], [key(i)])(tx);
      });
      // claimed in commits of five, lowest first, as a queue takes them
      for (let i = 100; i < 135; i += 5)
        await store.transact((tx) => {
          for (let j = i; j < i + 5; j++) put(`j${j}`, 2, [key(j)], [])(tx);
        });
      expect(await upTo(3)).toEqual(['j135', 'j136', 'j137']);
      // a retry due before everything left, then one before it in a section that also removes
      await store.transact(put('j100', 3, [], [key(1)]));
      expect(await upTo(2)).toEqual(['j100', 'j135']);
      await store.transact((tx) => {
        put('j101', 3, [], [key(0)])(tx);
        put('j135', 3, [key(135)], [])(tx);
      });
      expect(await upTo(3)).toEqual(['j101', 'j100', 'j136']);
      // the index rebuilt: cleared, then its keys added again in the same section
      await store.transact((tx) => {
        tx.clearIndex('job', DUE_INDEX);
        put('j139', 4, [], [key(50)])(tx);
      });
      expect(await upTo(5)).toEqual(['j139']);
      await store.transact(put('j102', 3, [], [key(20)]));
      expect(await upTo(5)).toEqual(['j102', 'j139']);
    });

    it('survives reopening with everything intact', async () => {
      await fresh();
      await store.transact((tx) => {
        append(tx, entry(1));
        tx.putResource(
          resource('customer', 'cus_1', 1, { n: 1 }),
          { remove: [], add: [{ name: 'byN', key: '1' }] },
          1,
        );
        tx.setMeta('index:customer:byN', 'sig');
      });
      if (backendCase.durable) await backend.close();
      backend = reopen();
      expect(await backend.listTwins()).toEqual(['t']);
      const again = await backend.openTwin('t');
      expect(await again.head()).toBe(1);
      const read = await again.transact(
        async (tx) => ({
          resource: await tx.getResource('customer', 'cus_1'),
          lookup: (await tx.lookup('customer', 'byN', '1')).map((r) => r.id),
          meta: await tx.getMeta('index:customer:byN'),
        }),
        { readOnly: true },
      );
      expect(read).toEqual({
        resource: resource('customer', 'cus_1', 1, { n: 1 }),
        lookup: ['cus_1'],
        meta: 'sig',
      });
      expect(await collect(again.entryBodies(0))).toEqual([canonicalJson(entry(1))]);
      expect(await again.entriesBySubject('customer', 'cus_1')).toEqual([entry(1)]);
      // and it goes on from there
      await again.transact(async (tx) => append(tx, entry((await tx.head()) + 1)));
      expect(await again.head()).toBe(2);
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
      for (const id of ids)
        await twin.applyWrite({
          operation: 'x.put',
          subjectType: 'x',
          subjectId: id,
          occurredAt: '2026-01-01T00:00:00.000Z',
        });
      orders.push((await twin.list('x')).map((r) => r.id));
      hashes.push(await twin.hash());
      hashes.push((await replayLines(twin.exportLines())).hash);
      await world.close();
      made.cleanup();
    }
    expect(orders[0]).toEqual(orders[1]);
    expect(orders[0]).toEqual(
      [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
    expect(new Set(hashes).size).toBe(1);
  });
});

describe('key order', () => {
  it('compareKeys is UTF-8 byte order (SQLite BINARY) for any strings', async () => {
    const { compareKeys } = await import('../../src/state/state-hash.js');
    const alphabet = [
      'a',
      'z',
      'A',
      '_',
      '\u00e9',
      '\u07ff',
      '\u0800',
      '\ud7ff',
      '\ue000',
      '\uffff',
      '\u{10000}',
      '\u{1F600}',
      '\u{10FFFF}',
    ];
    const { SeededIds } = await import('../../src/world/ids.js');
    const { VirtualClock } = await import('../../src/world/clock.js');
    const rng = new SeededIds(new VirtualClock(0), 'keys');
    const word = () =>
      Array.from(
        { length: 1 + Math.floor(rng.random() * 4) },
        () => alphabet[Math.floor(rng.random() * alphabet.length)],
      ).join('');
    for (let i = 0; i < 3000; i++) {
      const a = word();
      const b = word();
      expect(Math.sign(compareKeys(a, b))).toBe(
        Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
    }
  });
});
