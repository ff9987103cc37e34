// Group commit: every decision submitted in the same turn of the event loop is decided and
// committed in ONE atomic action (one SQLite transaction), because on a busy ingress or
// dispatcher the commit, not the decision, is what costs. Each decision still sees the writes of
// the decisions before it in the batch, so the outcome is the same as one by one.
import type { JsonObject } from '../log/json-value.js';
import type { Write } from '../log/write.js';
import type { ReadView } from '../state/read-view.js';
import { foldEntry, resourceKey, type Resource } from '../state/resource.js';
import { commit, normalizeDecision, type Decision } from './decision.js';
import type { Entry } from '../log/write.js';
import type { Twin } from './twin.js';

/** A pure, synchronous decision over the twin's latest state (and earlier decisions of its batch). */
export type DecideFn<T> = (view: ReadView, nowIso: string) => Decision<T>;

interface Item {
  readonly decide: DecideFn<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Item[] = [];
  private scheduled = false;

  constructor(
    private readonly twin: Twin,
    private readonly nowIso: () => string,
  ) {}

  /** Decides and commits with the next batch; resolves once the batch is durable. */
  submit<T>(decide: DecideFn<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        decide: decide as DecideFn<unknown>,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: requests read in the same poll phase join one batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const items = this.queue;
    this.queue = [];
    if (items.length === 0) return;
    try {
      await this.commitBatch(items);
    } catch {
      // One bad batch (a write refused by validation, a busy store) must not fail its
      // neighbours: each decision is tried again in an action of its own.
      for (const item of items) await this.commitBatch([item], true);
    }
  }

  /** Decides every item inside one atomic action; with `settleErrors`, a failed commit rejects instead of throwing. */
  private async commitBatch(items: readonly Item[], settleErrors = false): Promise<void> {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await this.twin.applyAtomic((view) => {
        outcomes.length = 0;
        const overlay = new Overlay(view);
        const writes: Write[] = [];
        const now = this.nowIso();
        for (const item of items) {
          try {
            const decided = normalizeDecision(item.decide(overlay, now));
            overlay.stage(decided.writes);
            writes.push(...decided.writes);
            outcomes.push({ ok: true, value: decided.result });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        return commit(writes, undefined);
      });
    } catch (error) {
      if (!settleErrors) throw error;
      for (const item of items) item.reject(error);
      return;
    }
    items.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  }
}

/**
 * The twin's view plus the writes staged earlier in the batch, folded exactly as the log will
 * fold them. Folding is lazy: only a resource a later decision actually reads is folded, so a
 * batch of unrelated keys costs no extra fold.
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
