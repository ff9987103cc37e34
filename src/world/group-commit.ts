// Group commit per event-loop turn: the decisions submitted in one turn (the claims and finishes a
// dispatcher's sends end with, the receipts an ingress read in one poll phase) are handed to the
// twin together, so its action queue runs them as one group — one section, one commit, each decide
// in arrival order against the view the ones before it left, each caller answered with its own
// result or refusal (world/group-run.ts). Waiting for the turn to end is what gathers them: the
// first action of a burst would otherwise start a section alone.
import type { ReadView } from '../state/read-view.js';
import type { Decision } from './decision.js';
import type { Twin } from './twin.js';

/** A pure, synchronous decision over the twin's latest state (and earlier decisions of its group). */
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

  /** Decides and commits with the turn's other decisions; resolves once its commit is durable. */
  submit<T>(decide: DecideFn<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        decide: decide as DecideFn<unknown>,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: requests read in the same poll phase join one group.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const items = this.queue;
    this.queue = [];
    // Submitted back to back, so they queue at the twin in this order before its next group
    // forms, and behind every group submitted before: a refused or failed member is answered
    // alone, and nothing submitted later decides before it.
    for (const item of items) {
      this.twin
        .applyAtomic((view) => item.decide(view, this.nowIso()))
        .then((r) => item.resolve(r.result), item.reject);
    }
  }
}
