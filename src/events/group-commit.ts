// Group commit for the dispatcher's small atomic actions: claims and finishes that arrive in the
// same turn of the event loop are decided in one exclusive section and committed together. Each
// keeps its own decision; items on the same record wait for the next group, so no decision is
// ever made on a view another item of its group is about to change.
import type { ReadView } from '../state/read-view.js';
import { commit, normalizeDecision, type Decision } from '../world/decision.js';
import type { Write } from '../log/write.js';
import type { Twin } from '../world/twin.js';

interface Item {
  readonly key: string;
  readonly decide: (view: ReadView) => Decision<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Item[] = [];
  private scheduled = false;

  constructor(private readonly twin: Twin) {}

  /** Resolves with decide's result once the group holding it has committed. */
  run<T>(key: string, decide: (view: ReadView) => Decision<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ key, decide, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: it runs after every I/O callback of this loop turn, so
    // responses that arrived together finish together.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const group: Item[] = [];
    const later: Item[] = [];
    const keys = new Set<string>();
    for (const item of this.queue) {
      if (keys.has(item.key)) later.push(item);
      else {
        keys.add(item.key);
        group.push(item);
      }
    }
    this.queue = later;
    if (later.length > 0) this.schedule();
    if (group.length === 0) return;
    let results: unknown[];
    try {
      results = this.twin.applyAtomic((view) => {
        const writes: Write[] = [];
        const out: unknown[] = [];
        for (const item of group) {
          const d = normalizeDecision(item.decide(view));
          writes.push(...d.writes);
          out.push(d.result);
        }
        return commit(writes, out);
      }).result;
    } catch {
      // One bad item must not sink the others: decide each alone, each with its own error.
      for (const item of group) {
        try {
          item.resolve(this.twin.applyAtomic(item.decide).result);
        } catch (error) {
          item.reject(error);
        }
      }
      return;
    }
    group.forEach((item, i) => item.resolve(results[i]));
  }
}
