// A storage backend that counts what read-only sections read, for the tests that hold a call's
// cost to what it answers rather than to what the twin holds (test/host/*-cost.test.ts): the rows
// each list, whole-type, lookup and range read answered, and the log entries read by subject.
// Write sections (the tests growing their twins) go uncounted.
import type { StorageBackend, StoreTx } from '../../src/storage/port.js';

export type ReadCounts = Record<'list' | 'all' | 'lookup' | 'range' | 'entries', number>;

export const noReads = (): ReadCounts => ({ list: 0, all: 0, lookup: 0, range: 0, entries: 0 });

export function countingBackend(inner: StorageBackend, counts: ReadCounts): StorageBackend {
  const count = <T extends readonly unknown[] | Promise<readonly unknown[]>>(
    what: keyof ReadCounts,
    rows: T,
  ): T => {
    void Promise.resolve(rows).then((r) => (counts[what] += r.length));
    return rows;
  };
  const wrap = (tx: StoreTx): StoreTx => ({
    ...tx,
    head: () => tx.head(),
    readEntries: (after, limit) => tx.readEntries(after, limit),
    readTouched: (after, limit) => tx.readTouched(after, limit),
    getResource: (type, id) => tx.getResource(type, id),
    listResources: (type) => count('list', tx.listResources(type)),
    allResources: (type) => count('all', tx.allResources(type)),
    lookup: (type, index, key) => count('lookup', tx.lookup(type, index, key)),
    lookupUpTo: (type, index, maxKey, limit) => tx.lookupUpTo(type, index, maxKey, limit),
    range: (type, index, query) => count('range', tx.range(type, index, query)),
    getMeta: (key) => tx.getMeta(key),
    setMeta: (key, value) => tx.setMeta(key, value),
    clearIndex: (type, index) => tx.clearIndex(type, index),
    append: (entry, body) => tx.append(entry, body),
    putResource: (resource, delta, subjectOf) => tx.putResource(resource, delta, subjectOf),
  });
  return {
    kind: inner.kind,
    listTwins: () => inner.listTwins(),
    close: () => inner.close(),
    async openTwin(name) {
      const store = await inner.openTwin(name);
      return {
        name: store.name,
        transact: (section, scope) =>
          store.transact((tx) => section(scope?.readOnly === true ? wrap(tx) : tx), scope),
        head: () => store.head(),
        entryBodies: (after) => store.entryBodies(after),
        liveResources: () => store.liveResources(),
        entriesBySubject: (type, id) => count('entries', store.entriesBySubject(type, id)),
        close: () => store.close(),
      };
    },
  };
}
