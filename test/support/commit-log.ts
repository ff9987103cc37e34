// The operations of each commit a twin makes, as its afterCommit hooks see them. The hook runs once
// per atomic action, and the actions that shared a commit are observed in one synchronous pass:
// calls in one pass belong to one commit.
import type { Twin } from '../../src/world/twin.js';

export function logCommits(twin: Twin): string[][] {
  const commits: string[][] = [];
  let inPass = false;
  twin.use({
    name: 'commit-log',
    afterCommit: (entries) => {
      if (!inPass) {
        inPass = true;
        commits.push([]);
        queueMicrotask(() => (inPass = false));
      }
      commits.at(-1)!.push(...entries.map((e) => e.operation));
    },
  });
  return commits;
}
