// What `decide` answers inside an atomic action: commit these writes (with a result for the
// caller), or skip and append nothing.
import { describeValue, TwinError } from '../errors.js';
import type { Write } from '../log/write.js';

export interface Commit<T> {
  readonly kind: 'commit';
  readonly writes: readonly Write[];
  readonly result: T;
}

export interface Skip<T> {
  readonly kind: 'skip';
  readonly result: T;
}

export type Decision<T> = Commit<T> | Skip<T> | Write | readonly Write[];

export function commit<T = undefined>(writes: Write | readonly Write[], result?: T): Commit<T> {
  // commit() wrapped nothing as [undefined], refused later as a write that is no object with no
  // word of the call that made it; skip() is the decision that appends nothing.
  if (typeof writes !== 'object' || writes === null)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `commit(writes, result): writes must be a write or an array of writes, got ${describeValue(writes)}; to append nothing, return skip(result)`,
      { path: 'writes' },
    );
  return {
    kind: 'commit',
    writes: Array.isArray(writes) ? writes : [writes as Write],
    result: result as T,
  };
}

export function skip<T = undefined>(result?: T): Skip<T> {
  return { kind: 'skip', result: result as T };
}

/** Any decision in its plain form: the writes to append, the caller's result, and whether it skipped. */
export function normalizeDecision<T>(decision: Decision<T>): {
  writes: readonly Write[];
  result: T;
  skipped: boolean;
} {
  if (Array.isArray(decision))
    return { writes: decision as readonly Write[], result: undefined as T, skipped: false };
  const d = decision as { kind?: unknown };
  if (d !== null && typeof d === 'object' && d.kind === 'skip')
    return { writes: [], result: (decision as Skip<T>).result, skipped: true };
  if (d !== null && typeof d === 'object' && d.kind === 'commit') {
    const c = decision as Commit<T>;
    return { writes: c.writes, result: c.result, skipped: false };
  }
  if (d !== null && typeof d === 'object' && 'operation' in d)
    return { writes: [decision as Write], result: undefined as T, skipped: false };
  throw new TwinError(
    'INVALID_ARGUMENT',
    'decide must return a write, an array of writes, commit(writes, result) or skip(result)',
    { path: 'decide' },
  );
}
