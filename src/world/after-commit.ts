// What a twin's hooks observe once a commit is durable (CommitHooks.afterCommit): each observer in
// turn, and one that throws is reported, not turned into an error for the writer.
import type { Entry } from '../log/write.js';

interface Observer<T> {
  readonly name: string;
  afterCommit?(entries: readonly Entry[], twin: T): void;
}

export function observeCommit<T>(
  hooks: readonly Observer<T>[],
  entries: readonly Entry[],
  twin: T & { readonly name: string },
  report: (error: unknown, where: string) => void,
): void {
  for (const hook of hooks) {
    if (hook.afterCommit === undefined) continue;
    try {
      hook.afterCommit(entries, twin);
    } catch (error) {
      report(error, `afterCommit hook "${hook.name}" of twin "${twin.name}"`);
    }
  }
}
