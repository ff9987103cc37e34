// A read view plus writes staged on it but not yet appended: what one decide that makes several
// decisions in a row (a claim batch) reads between them, folded exactly as the log will fold them.
import type { JsonObject } from '../log/json-value.js';
import type { Entry, Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { foldEntry, resourceKey, type Resource } from '../state/resource.js';

/**
 * Folding is lazy: only a resource a later decision actually reads is folded, so a batch of
 * unrelated keys costs no extra fold. Lists and lookups answer from the view beneath, without the
 * staged writes: a decide that needs them after staging must not rely on an overlay.
 */
export class Overlay implements ReadView {
  private readonly staged = new Map<string, { writes: Entry[]; folded: Resource | undefined }>();
  private seq: number;

  constructor(private readonly base: ReadView) {
    this.seq = base.head;
  }

  get head(): number {
    return this.seq;
  }

  get(type: string, id: string): Resource | undefined {
    const key = resourceKey(type, id);
    const pending = this.staged.get(key);
    if (pending === undefined) return this.base.get(type, id);
    if (pending.writes.length > 0) {
      const writes = pending.writes.splice(0);
      let current = pending.folded ?? this.base.get(type, id);
      for (const entry of writes) {
        // One resource's next value depends only on its own previous value and the entry.
        for (const next of foldEntry(entry, (t, i) =>
          t === type && i === id ? current : undefined,
        )) {
          if (next.type === type && next.id === id) current = next;
        }
      }
      pending.folded = current;
    }
    return pending.folded;
  }

  list(type: string): Resource[] {
    return this.base.list(type);
  }

  lookup(type: string, index: string, key: string): Resource[] {
    return this.base.lookup(type, index, key);
  }

  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Resource[] {
    return this.base.lookupUpTo(type, index, maxKey, limit);
  }

  pickUpTo(type: string, index: string, maxKey: string, limit: number): Resource[] {
    return this.base.pickUpTo === undefined
      ? this.base.lookupUpTo(type, index, maxKey, limit)
      : this.base.pickUpTo(type, index, maxKey, limit);
  }

  stage(writes: readonly Write[]): void {
    for (const write of writes) {
      this.seq++;
      // Only what the fold reads (subject, fields, projection, seq): the staged view folds it and
      // never stores it, so the entry's other keys (writeId, prev, …) are not made up here.
      const entry = {
        ...write,
        fields: (write.fields ?? {}) as JsonObject,
        seq: this.seq,
      } as unknown as Entry;
      const touched = [resourceKey(write.subjectType, write.subjectId)];
      const p = write.projection;
      if (p !== undefined)
        for (const r of [...(p.creates ?? []), ...(p.updates ?? []), ...(p.deletes ?? [])])
          touched.push(resourceKey(r.type, r.id));
      for (const key of new Set(touched)) {
        const pending = this.staged.get(key);
        if (pending === undefined) this.staged.set(key, { writes: [entry], folded: undefined });
        else pending.writes.push(entry);
      }
    }
  }
}
