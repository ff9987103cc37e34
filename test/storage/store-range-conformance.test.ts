// The store port's range read (StoreTx.range), run unchanged against every backend: one key's rows in
// (key, id) order or its reverse, past a cursor found in its narrow slice, at most a page, live only.
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { Entry } from '../../src/log/write.js';
import type { RangeQuery, StorageBackend, TwinStore } from '../../src/storage/port.js';
import { backends } from '../support/backends.js';

function entry(seq: number, id: string): Entry {
  return {
    seq,
    writeId: `w${seq}`,
    twin: 't',
    recordedAt: '2026-01-01T00:00:00.000Z',
    occurredAt: '2026-01-01T00:00:00.000Z',
    actor: 'api',
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: id,
    fields: { n: seq },
  };
}

/** Keys as an ordered index writes them: group \x01 order \x01 stamp. */
function key(group: string, created: number, seq: number): string {
  return `${group}\u0001${String(created).padStart(16, '0')}\u0001${String(seq).padStart(16, '0')}`;
}

for (const backendCase of backends) {
  describe(`storage port range reads: ${backendCase.name}`, () => {
    let backend: StorageBackend;
    let cleanup = (): void => {};
    let store: TwinStore;

    /** 12 customers under group `a` (created in pairs: ties broken by seq), 3 under `b`. */
    const seeded = async (): Promise<void> => {
      const made = backendCase.create();
      backend = made.backend;
      cleanup = made.cleanup;
      store = await backend.openTwin('t');
      await store.transact((tx) => {
        for (let seq = 1; seq <= 15; seq++) {
          const id = `cus_${String.fromCharCode(110 - seq)}`; // ids run against creation order
          const e = entry(seq, id);
          tx.append(e, canonicalJson(e));
          const group = seq <= 12 ? 'a' : 'b';
          tx.putResource(
            { type: 'customer', id, version: seq, deleted: false, fields: { n: seq } },
            { remove: [], add: [{ name: 'byCreated', key: key(group, Math.ceil(seq / 2), seq) }] },
            seq,
          );
        }
      });
    };
    afterEach(async () => {
      await backend.close();
      cleanup();
    });

    const read = (query: RangeQuery, readOnly = true): Promise<string[]> =>
      store.transact(
        async (tx) => (await tx.range('customer', 'byCreated', query)).map((r) => r.resource.id),
        { readOnly },
      );
    const ids = (seqs: number[]): string[] =>
      seqs.map((s) => `cus_${String.fromCharCode(110 - s)}`);

    it('reads one key newest first and oldest first, a page at a time, with the keys it found', async () => {
      await seeded();
      const prefix = 'a\u0001';
      expect(await read({ prefix, limit: 4, descending: true })).toEqual(ids([12, 11, 10, 9]));
      expect(await read({ prefix, limit: 3 })).toEqual(ids([1, 2, 3]));
      expect(await read({ prefix: 'b\u0001', limit: 10, descending: true })).toEqual(
        ids([15, 14, 13]),
      );
      expect(await read({ prefix: 'c\u0001', limit: 10 })).toEqual([]);
      expect(await read({ prefix, limit: 0 })).toEqual([]);
      const rows = await store.transact((tx) =>
        tx.range('customer', 'byCreated', { prefix, limit: 1, descending: true }),
      );
      expect(rows[0]!.key).toBe(key('a', 6, 12));
      expect(rows[0]!.resource).toEqual({
        type: 'customer',
        id: ids([12])[0],
        version: 12,
        deleted: false,
        fields: { n: 12 },
      });
    });

    it('starts past a cursor in either direction; a cursor not under the slice gives nothing', async () => {
      await seeded();
      const prefix = 'a\u0001';
      const at = (seq: number) => ({
        id: ids([seq])[0]!,
        within: `a\u0001${String(Math.ceil(seq / 2)).padStart(16, '0')}\u0001`,
      });
      expect(await read({ prefix, after: at(9), limit: 3, descending: true })).toEqual(
        ids([8, 7, 6]),
      );
      // a tie on the order value: the cursor's twin in the same second comes next
      expect(await read({ prefix, after: at(8), limit: 2, descending: true })).toEqual(ids([7, 6]));
      expect(await read({ prefix, after: at(8), limit: 2 })).toEqual(ids([9, 10]));
      expect(await read({ prefix, after: at(1), limit: 5, descending: true })).toEqual([]);
      expect(await read({ prefix, after: at(12), limit: 5 })).toEqual([]);
      // the cursor must be found in its slice: elsewhere (or under another key) it is no cursor
      expect(
        await read({ prefix, after: { id: ids([9])[0]!, within: at(3).within }, limit: 3 }),
      ).toEqual([]);
      expect(await read({ prefix, after: at(14), limit: 3 })).toEqual([]);
      // inside a write section too
      expect(await read({ prefix, after: at(5), limit: 2, descending: true }, false)).toEqual(
        ids([4, 3]),
      );
    });

    it('skips tombstones and follows key removals and additions', async () => {
      await seeded();
      const prefix = 'a\u0001';
      const [eleven, ten] = ids([11, 10]) as [string, string];
      await store.transact((tx) => {
        const e = entry(16, eleven);
        tx.append(e, canonicalJson(e));
        tx.putResource(
          { type: 'customer', id: eleven, version: 16, deleted: true, fields: {} },
          { remove: [{ name: 'byCreated', key: key('a', 6, 11) }], add: [] },
          16,
        );
        // a tombstone whose key was left behind is still never answered
        tx.putResource(
          { type: 'customer', id: ten, version: 16, deleted: true, fields: {} },
          { remove: [], add: [] },
        );
      });
      expect(await read({ prefix, limit: 3, descending: true })).toEqual(ids([12, 9, 8]));
      await store.transact((tx) => {
        const e = entry(17, ten);
        tx.append(e, canonicalJson(e));
        tx.putResource(
          { type: 'customer', id: ten, version: 17, deleted: false, fields: { n: 17 } },
          {
            remove: [{ name: 'byCreated', key: key('a', 5, 10) }],
            add: [{ name: 'byCreated', key: key('a', 9, 17) }],
          },
          17,
        );
      });
      // live again under a new key: first, and no longer in its old place
      expect(await read({ prefix, limit: 3, descending: true })).toEqual(ids([10, 12, 9]));
    });
  });
}
