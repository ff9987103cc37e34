// In-memory backend: one process, no file. Used by tests and `:memory:` worlds. Rollback is an
// undo journal, so a throwing section leaves no trace, as on SQLite.
import { TwinError } from '../../errors.js';
import type { Resource } from '../../state/resource.js';
import { resourceKey } from '../../state/resource.js';
import { compareKeys, compareResources } from '../../state/state-hash.js';
import type {
  IndexDelta,
  RangeQuery,
  RangeRow,
  StorageBackend,
  TouchedEntry,
  TwinStore,
} from '../port.js';
import { readOnlyError, SyncTwinStore, type SyncEngine, type SyncTx } from '../sync-store.js';
import { touchedOf } from '../touched.js';
import type { Entry } from '../../log/write.js';

class MemoryTwin implements SyncEngine, SyncTx {
  private readonly entries: { entry: Entry; body: string }[] = [];
  private readonly resources = new Map<string, Resource>();
  private readonly byType = new Map<string, Set<string>>();
  private readonly bySubject = new Map<string, number[]>();
  /** (type, index) → key → ids; a key whose set empties is dropped, so ranges see only live keys. */
  private readonly lookups = new Map<string, Map<string, Set<string>>>();
  private readonly meta = new Map<string, string>();
  private undo: (() => void)[] | undefined;
  private reading = false;

  constructor(readonly name: string) {}

  get tx(): SyncTx {
    return this;
  }

  begin(readOnly: boolean): void {
    if (this.undo !== undefined || this.reading)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `twin "${this.name}": a section is already open; sections do not nest`,
      );
    if (readOnly) this.reading = true;
    else this.undo = [];
  }

  commit(): void {
    this.undo = undefined;
    this.reading = false;
  }

  rollback(): void {
    const journal = this.undo ?? [];
    this.undo = undefined;
    this.reading = false;
    for (let i = journal.length - 1; i >= 0; i--) journal[i]!();
  }

  private journal(): (() => void)[] {
    if (this.reading) throw readOnlyError(this.name);
    if (this.undo === undefined)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `twin "${this.name}": writes must happen inside a section`,
      );
    return this.undo;
  }

  head(): number {
    return this.entries.length;
  }

  append(entry: Entry, body: string): void {
    const undo = this.journal();
    if (entry.seq !== this.entries.length + 1)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `twin "${this.name}": entry seq ${entry.seq} does not follow head ${this.entries.length}`,
      );
    this.entries.push({ entry, body });
    const key = resourceKey(entry.subjectType, entry.subjectId);
    let seqs = this.bySubject.get(key);
    if (seqs === undefined) this.bySubject.set(key, (seqs = []));
    seqs.push(entry.seq);
    const list = seqs;
    undo.push(() => {
      this.entries.pop();
      list.pop();
    });
  }

  putResource(resource: Resource, delta: IndexDelta): void {
    const undo = this.journal();
    const key = resourceKey(resource.type, resource.id);
    const prev = this.resources.get(key);
    this.resources.set(key, resource);
    let ids = this.byType.get(resource.type);
    if (ids === undefined) this.byType.set(resource.type, (ids = new Set()));
    const hadId = ids.has(resource.id);
    ids.add(resource.id);
    const typeIds = ids;
    for (const k of delta.remove) this.unkey(resource.type, k.name, k.key, resource.id);
    for (const k of delta.add) this.keySet(resource.type, k.name, k.key).add(resource.id);
    undo.push(() => {
      if (prev === undefined) this.resources.delete(key);
      else this.resources.set(key, prev);
      if (!hadId) typeIds.delete(resource.id);
      for (const k of delta.add) this.unkey(resource.type, k.name, k.key, resource.id);
      for (const k of delta.remove) this.keySet(resource.type, k.name, k.key).add(resource.id);
    });
  }

  private keySet(type: string, index: string, key: string): Set<string> {
    const k = `${type}\u0000${index}`;
    let keys = this.lookups.get(k);
    if (keys === undefined) this.lookups.set(k, (keys = new Map()));
    let set = keys.get(key);
    if (set === undefined) keys.set(key, (set = new Set()));
    return set;
  }

  private unkey(type: string, index: string, key: string, id: string): void {
    const keys = this.lookups.get(`${type}\u0000${index}`);
    const set = keys?.get(key);
    if (set === undefined) return;
    set.delete(id);
    if (set.size === 0) keys!.delete(key);
  }

  getResource(type: string, id: string): Resource | undefined {
    return this.resources.get(resourceKey(type, id));
  }

  listResources(type: string): Resource[] {
    const out: Resource[] = [];
    for (const id of this.byType.get(type) ?? []) {
      const r = this.resources.get(resourceKey(type, id));
      if (r !== undefined && !r.deleted) out.push(r);
    }
    return out.sort(compareResources);
  }

  lookup(type: string, index: string, key: string): Resource[] {
    const out: Resource[] = [];
    for (const id of this.lookups.get(`${type}\u0000${index}`)?.get(key) ?? []) {
      const r = this.resources.get(resourceKey(type, id));
      if (r !== undefined && !r.deleted) out.push(r);
    }
    return out.sort(compareResources);
  }

  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Resource[] {
    const keys = this.lookups.get(`${type}\u0000${index}`);
    if (keys === undefined) return [];
    const out: Resource[] = [];
    for (const key of [...keys.keys()]
      .filter((k) => compareKeys(k, maxKey) <= 0)
      .sort(compareKeys)) {
      for (const id of [...keys.get(key)!].sort(compareKeys)) {
        if (out.length >= limit) return out;
        const r = this.resources.get(resourceKey(type, id));
        if (r !== undefined && !r.deleted) out.push(r);
      }
    }
    return out;
  }

  range(type: string, index: string, query: RangeQuery): RangeRow[] {
    const keys = this.lookups.get(`${type}\u0000${index}`);
    if (keys === undefined) return [];
    // Memory keeps no sorted index: this sorts what is under the prefix (the durable backends
    // read the page alone, from their ordered primary keys).
    const rows: { key: string; id: string }[] = [];
    for (const [key, ids] of keys)
      if (key.startsWith(query.prefix)) for (const id of ids) rows.push({ key, id });
    const order = query.descending === true ? -1 : 1;
    rows.sort((a, b) => order * (compareKeys(a.key, b.key) || compareKeys(a.id, b.id)));
    let start = 0;
    if (query.after !== undefined) {
      const { id, within } = query.after;
      const at = rows.findIndex((r) => r.id === id && r.key.startsWith(within));
      if (at < 0) return [];
      start = at + 1;
    }
    const out: RangeRow[] = [];
    for (const row of rows.slice(start)) {
      if (out.length >= query.limit) break;
      const r = this.resources.get(resourceKey(type, row.id));
      if (r !== undefined && !r.deleted) out.push({ key: row.key, resource: r });
    }
    return out;
  }

  livePage(after: { type: string; id: string } | undefined, limit: number): Resource[] {
    const out: Resource[] = [];
    for (const type of [...this.byType.keys()].sort(compareKeys)) {
      if (after !== undefined && compareKeys(type, after.type) < 0) continue;
      for (const r of this.listResources(type)) {
        if (after !== undefined && type === after.type && compareKeys(r.id, after.id) <= 0)
          continue;
        out.push(r);
        if (out.length === limit) return out;
      }
    }
    return out;
  }

  readEntries(afterSeq: number, limit: number): Entry[] {
    return this.entries
      .slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit)
      .map((e) => e.entry);
  }

  readTouched(afterSeq: number, limit: number): TouchedEntry[] {
    return touchedOf(this.readEntries(afterSeq, limit));
  }

  bodyPage(afterSeq: number, limit: number): string[] {
    return this.entries
      .slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit)
      .map((e) => e.body);
  }

  entriesBySubject(type: string, id: string): Entry[] {
    return (this.bySubject.get(resourceKey(type, id)) ?? []).map(
      (seq) => this.entries[seq - 1]!.entry,
    );
  }

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }

  setMeta(key: string, value: string): void {
    const undo = this.journal();
    const prev = this.meta.get(key);
    this.meta.set(key, value);
    undo.push(() => (prev === undefined ? this.meta.delete(key) : this.meta.set(key, prev)));
  }

  clearIndex(type: string, index: string): void {
    const undo = this.journal();
    const k = `${type}\u0000${index}`;
    const keys = this.lookups.get(k);
    if (keys === undefined) return;
    this.lookups.delete(k);
    undo.push(() => this.lookups.set(k, keys));
  }

  allResources(type: string): Resource[] {
    return [...(this.byType.get(type) ?? [])].map((id) =>
      this.resources.get(resourceKey(type, id))!,
    );
  }

  close(): void {}
}

export class MemoryBackend implements StorageBackend {
  readonly kind = 'memory';
  private readonly twins = new Map<string, TwinStore>();

  async openTwin(name: string): Promise<TwinStore> {
    let store = this.twins.get(name);
    if (store === undefined)
      this.twins.set(name, (store = new SyncTwinStore(new MemoryTwin(name))));
    return store;
  }

  async listTwins(): Promise<string[]> {
    return [...this.twins.keys()].sort();
  }

  async close(): Promise<void> {}
}
