// What `decide` answers inside an atomic action: commit these writes (with a result for the
// caller), or skip and append nothing.
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
  return { kind: 'commit', writes: Array.isArray(writes) ? writes : [writes as Write], result: result as T };
}

export function skip<T = undefined>(result?: T): Skip<T> {
  return { kind: 'skip', result: result as T };
}
