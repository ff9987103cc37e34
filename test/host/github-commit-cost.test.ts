// Whether a sha names a commit of a repository costs a few lookups by key, not the twin: counted as
// the rows the store answers (on SQLite) and the log entries read, checks.create's, listForRef's
// and createCommitStatus's questions (commitExists, resolveCommit), getBranch's
// (findPushedCommit) and listing one commit's statuses (statusesOf) read the same rows whether the
// repository has had 60 pushes and statuses or 400, never a whole type, and never the log — the
// log is read only for a commit older than its branch's last push that no status, suite or pull
// request names (known-commits.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as github from '../../packs/github/index.js';
import { githubPack } from '../../packs/github/pack.js';
import { commitExists, findPushedCommit, resolveCommit } from '../../packs/github/known-commits.js';
import type { GitHubRepository } from '../../packs/github/repositories.js';
import { statusesOf } from '../../packs/github/refs.js';
import { registerPack } from '../../src/events/pack-registry.js';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';
import { VirtualClock } from '../../src/world/clock.js';
import type { Twin } from '../../src/world/twin.js';
import { openWorld, type World } from '../../src/world/world.js';
import { tempDir } from '../support/backends.js';
import { countingBackend, noReads } from '../support/counting-backend.js';

describe('knowing a commit costs lookups, not the twin (SQLite)', () => {
  const dir = tempDir();
  const counts = noReads();
  let world: World;
  let twin: Twin;
  let repo: GitHubRepository;
  const at = { repository: 'octocat/costed', sender: 'octocat' };
  let first = ''; // the first push's tip: a status on it each round, and many pushes ago
  let pushes = 0;

  beforeAll(async () => {
    mkdirSync(join(dir, 'root'));
    world = openWorld({
      root: join(dir, 'root'),
      clock: new VirtualClock('2026-04-01T00:00:00Z'),
      seed: 'commit-cost',
      backend: countingBackend(new SqliteBackend(join(dir, 'db')), counts),
    });
    twin = registerPack(world, githubPack);
    await github.createUser(twin, { login: 'octocat' });
    repo = await github.createRepository(twin, { owner: 'octocat', name: 'costed' });
    // other branches of the twin (another repository's) are none of this one's business
    await github.createRepository(twin, { owner: 'octocat', name: 'other' });
  });
  afterAll(async () => {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pushes (each reported on, and the first commit reported on again) until there are `to`. */
  const grow = async (to: number): Promise<void> => {
    for (; pushes < to; pushes++) {
      const made = await github.push(twin, { ...at, branch: 'main', messages: ['a', 'b'] });
      if (first === '') first = made.after;
      await github.push(twin, { repository: 'octocat/other', branch: 'main', sender: 'octocat' });
      for (const sha of [made.after, first])
        await github.createCommitStatus(twin, { ...at, sha, state: 'success', commitKnown: true });
    }
  };

  /** The answer and the rows the store answered for it; no whole type, no log. */
  const cost = async <T>(ask: () => Promise<T>): Promise<{ answer: T; rows: number }> => {
    Object.assign(counts, noReads());
    const answer = await ask();
    await new Promise((r) => setImmediate(r)); // the counts settle after the rows are answered
    expect(counts.list + counts.all).toBe(0);
    expect(counts.entries).toBe(0);
    return { answer, rows: counts.lookup + counts.range };
  };

  it('reads the same rows at 60 pushes and statuses as at 400', async () => {
    const costs: number[][] = [];
    for (const n of [60, 400]) {
      await grow(n);
      const main = await twin.read((view) => github.findBranch(view, repo, 'main')!);
      const pushed = main.last_push!.commits[0]!.id; // in the last push, not the tip
      const asked = [
        await cost(() => commitExists(twin, repo, main.sha)),
        await cost(() => commitExists(twin, repo, pushed)),
        await cost(() => commitExists(twin, repo, first)), // many pushes old, with statuses
        await cost(() => resolveCommit(twin, repo, 'main')),
        await cost(() => resolveCommit(twin, repo, first)),
        await cost(() => resolveCommit(twin, repo, main.sha.slice(0, 7))),
        await cost(() => findPushedCommit(twin, repo, main.sha)),
        // repos.listCommitStatusesForRef: the tip's own statuses, not every status of the twin
        await cost(() => twin.read((view) => statusesOf(view, repo, main.sha).length)),
      ];
      expect(asked.map((a) => a.answer)).toEqual([
        true,
        true,
        true,
        main.sha,
        first,
        main.sha,
        expect.objectContaining({ parent: pushed }),
        1,
      ]);
      costs.push(asked.map((a) => a.rows));
    }
    expect(costs[1]).toEqual(costs[0]);
  });

  it('a sha naming no commit, the one question lookups cannot settle, reads only this repository’s branch logs', async () => {
    const logged = (await twin.entriesFor('branch', `${repo.id}:main`)).length;
    Object.assign(counts, noReads());
    expect(await commitExists(twin, repo, 'f'.repeat(40))).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(counts.list + counts.all).toBe(0);
    // the trade-off known-commits.ts names: older pushes are only in the log (not `other`'s)
    expect(counts.entries).toBe(logged);
  });
});
