// A real backend seen through hooks on its store writes, so a test can fail one write of a
// section (a full disk, a lost connection) and watch what the kernel keeps and reports, and on its
// reads, so a test can tell what an operation read.
import type { Entry } from '../../src/log/write.js';
import type { Resource } from '../../src/state/resource.js';
import type { StorageBackend, StoreTx } from '../../src/storage/port.js';

export interface StoreWriteHooks {
  /** Called in place of each append: throw to fail the section there, or call `write`. */
  readonly append?: (entry: Entry, write: () => void) => void;
  /** Called in place of each resource put: throw to fail the section there, or call `write`. */
  readonly putResource?: (resource: Resource, write: () => void) => void;
  /** Awaited before each section starts: a networked store's latency, say. */
  readonly beforeSection?: () => Promise<void>;
  /** Told of each store read by its method's name, and of each row `liveResources` streams. */
  readonly read?: (method: string) => void;
}

export function interceptStoreWrites(
  inner: StorageBackend,
  hooks: StoreWriteHooks,
): StorageBackend {
  const seen = <T>(method: string, value: T): T => {
    hooks.read?.(method);
    return value;
  };
  const wrap = (tx: StoreTx): StoreTx => ({
    head: () => tx.head(),
    readEntries: (after, limit) => seen('readEntries', tx.readEntries(after, limit)),
    readTouched: (after, limit) => seen('readTouched', tx.readTouched(after, limit)),
    getResource: (type, id) => seen('getResource', tx.getResource(type, id)),
    listResources: (type) => seen('listResources', tx.listResources(type)),
    lookup: (type, index, key) => seen('lookup', tx.lookup(type, index, key)),
    lookupUpTo: (type, index, maxKey, limit) =>
      seen('lookupUpTo', tx.lookupUpTo(type, index, maxKey, limit)),
    range: (type, index, query) => seen('range', tx.range(type, index, query)),
    allResources: (type) => seen('allResources', tx.allResources(type)),
    getMeta: (key) => tx.getMeta(key),
    setMeta: (key, value) => tx.setMeta(key, value),
    clearIndex: (type, index) => tx.clearIndex(type, index),
    append: (entry, body) => {
      const write = (): void => tx.append(entry, body);
      if (hooks.append === undefined) write();
      else hooks.append(entry, write);
    },
    putResource: (resource, delta, subjectOf) => {
      const write = (): void => tx.putResource(resource, delta, subjectOf);
      if (hooks.putResource === undefined) write();
      else hooks.putResource(resource, write);
    },
  });
  return {
    kind: inner.kind,
    listTwins: () => inner.listTwins(),
    close: () => inner.close(),
    async openTwin(name) {
      const store = await inner.openTwin(name);
      return {
        name: store.name,
        transact: async (section, scope) => {
          await hooks.beforeSection?.();
          return store.transact((tx) => section(wrap(tx)), scope);
        },
        head: () => store.head(),
        entryBodies: (after) => store.entryBodies(after),
        async *liveResources(after) {
          for await (const r of store.liveResources(after)) yield seen('liveResources', r);
        },
        entriesBySubject: (type, id) => store.entriesBySubject(type, id),
        close: () => store.close(),
      };
    },
  };
}
