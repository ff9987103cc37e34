// The atomic actions of one twin waiting in this process, run as groups: while one group's section
// is in flight (the lock, the round trips, the commit), actions that arrive wait here, and the next
// section takes every one of them that shares its scope. One lock, one catch-up and one commit are
// then shared by the group, which is what lets throughput grow with callers instead of queueing each
// behind the lock alone (docs/throughput.md).
import type { StoreScope } from '../storage/port.js';

/** One caller's action and how to answer it. */
export interface Waiting<A, R> {
  readonly action: A;
  readonly scope: StoreScope;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** How many actions one section takes at most: bounds a section's length and its commit's size. */
export const MAX_GROUP = 64;

export class ActionQueue<A, R> {
  private waiting: Waiting<A, R>[] = [];
  private draining = false;

  /** `runGroup` runs one section for the group and answers every member (it never rejects). */
  constructor(private readonly runGroup: (group: Waiting<A, R>[]) => Promise<void>) {}

  submit(action: A, scope: StoreScope): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ action, scope, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      // A microtask later, not at once: actions submitted back to back (a group commit's turn)
      // are all waiting by then and go in one section instead of the first going alone.
      queueMicrotask(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.runGroup(this.takeGroup());
    } finally {
      this.draining = false;
    }
  }

  /**
   * The oldest waiting actions that share the first one's scope, in arrival order: a section sees
   * one tenant's rows (or the kernel's), and an action never overtakes one that arrived before it.
   */
  private takeGroup(): Waiting<A, R>[] {
    return this.waiting.splice(0, this.sharing(this.waiting[0]!.scope, MAX_GROUP));
  }

  /**
   * Up to `room` actions that arrived while a section of `scope` was waiting for its lock and
   * reads: they join it (group-run.ts), so a section that had to wait carries what came meanwhile.
   */
  join(scope: StoreScope, room: number): Waiting<A, R>[] {
    return this.waiting.splice(0, this.sharing(scope, room));
  }

  /** Joiners a section could not take without another read: first in line for the next one. */
  putBack(members: readonly Waiting<A, R>[]): void {
    this.waiting.unshift(...members);
  }

  /** How many of the oldest waiting actions share `scope`, at most `max`. */
  private sharing(scope: StoreScope, max: number): number {
    let n = 0;
    while (n < this.waiting.length && n < max && sameScope(this.waiting[n]!.scope, scope)) n++;
    return n;
  }
}

function sameScope(a: StoreScope, b: StoreScope): boolean {
  return a.tenant === b.tenant && (a.readOnly === true) === (b.readOnly === true);
}
