// A write that creates a resource under an id its own section drew (issue 29): an optimistic section
// takes that row for absent instead of asking PostgreSQL under the twin's lock, and its one round
// trip's condition checks that no such row exists. A seeded source drawing its ids again on the same
// store meets rows that do exist: the condition fails, nothing is written, and the section runs
// again reading them, so the decide sees the stored row exactly as it would have without the guess.
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import * as github from '../../packs/github/index.js';
import { registerPack } from '../../src/index.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { commit } from '../../src/world/decision.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { createDatabase, uniqueName } from './postgres-support.js';

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
});

function host(url: string, name: string, seed?: string): World {
  const world = openWorld({
    root: `postgres://test/${name}`,
    backend: new PostgresBackend(url, name),
    clock: new VirtualClock(Date.UTC(2026, 0, 1)),
    ...(seed === undefined ? {} : { seed }),
  });
  worlds.push(world);
  return world;
}

/** Creates an item under a fresh id, answering the id and whether the item was there already. */
function createItem(world: World) {
  return world.twin('items').applyAtomic((view) => {
    const id = world.ids.vendorId('item', 14);
    const before = view.get('item', id);
    return commit(
      {
        operation: 'item.create',
        subjectType: 'item',
        subjectId: id,
        fields: { n: Number(before?.fields.n ?? 0) + 1 },
      },
      { id, existed: before !== undefined },
    );
  });
}

/** Round trips of sections: a pooled session's one-time setup is not one of them. */
function countQueries() {
  const spy = vi.spyOn(pg.Client.prototype, 'query');
  const texts = () =>
    spy.mock.calls
      .map((c) => String(c[0] as unknown))
      .filter((text) => !text.startsWith('SET ROLE') && !text.startsWith('PREPARE'));
  return { texts, restore: () => spy.mockRestore() };
}

describe('PostgreSQL: creating a resource under an id the section minted', () => {
  it('is one round trip, its condition checking that no row has the id', async () => {
    const db = await createDatabase('mint');
    const world = host(db.url, uniqueName('w'));
    // The process goes optimistically once it has seen no other writer a few times.
    for (let i = 0; i < 4; i++) await createItem(world);
    const queries = countQueries();
    try {
      for (let i = 0; i < 3; i++) {
        const before = queries.texts().length;
        const { result } = await createItem(world);
        expect(result.existed).toBe(false);
        const sent = queries.texts().slice(before);
        expect(sent).toHaveLength(1);
        expect(sent[0]).toContain('EXECUTE twinworld_absent(');
        expect(sent[0]).toContain(result.id);
      }
    } finally {
      queries.restore();
    }
    const items = await world.twin('items').list('item');
    expect(items).toHaveLength(7);
    expect(items.every((r) => r.fields.n === 1)).toBe(true);
  });

  it('runs again reading the row when a seeded source drew an id that exists', async () => {
    const db = await createDatabase('mint');
    const name = uniqueName('w');
    const first = host(db.url, name, 'same-seed');
    const made: string[] = [];
    for (let i = 0; i < 6; i++) made.push((await createItem(first)).result.id);
    await first.close();
    // Same seed, same store: the second host draws the same ids. Its process goes optimistically
    // after the writes below, which name their subject and draw no id.
    const second = host(db.url, name, 'same-seed');
    const twin = second.twin('items');
    for (let i = 0; i < 4; i++)
      await twin.applyWrite({
        operation: 'x.set',
        subjectType: 'x',
        subjectId: 'x',
        fields: { i },
      });
    const queries = countQueries();
    let result;
    let sent: string[];
    try {
      result = (await createItem(second)).result;
      sent = queries.texts();
    } finally {
      queries.restore();
    }
    // The same id as the first host's first, as without the guess: the run after the failed
    // condition drew it again and read the stored row.
    expect(result.id).toBe(made[0]);
    expect(result.existed).toBe(true);
    // One round trip for the guess, refused and rolled back; then the ordinary section's two.
    expect(sent[0]).toContain(`EXECUTE twinworld_absent(`);
    expect(sent[0]).toContain(result.id);
    expect(sent[1]).toBe('ROLLBACK');
    expect(sent.slice(2)).toHaveLength(2);
    expect(sent[2]).toContain('EXECUTE twinworld_head(');
    expect((await twin.get('item', result.id))?.fields.n).toBe(2);
    // Nothing of the failed guess was written: one entry more for the item, on top of its first.
    const entries = await twin.entries();
    expect(entries.filter((e) => e.subjectId === result.id)).toHaveLength(2);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
  });

  it('takes minted rows for absent under the lock too, after a read, and reads them when wrong', async () => {
    const db = await createDatabase('mint');
    const name = uniqueName('w');
    /** Reads a row it names (so the run goes the ordinary way, under the lock), then creates. */
    const createAfterRead = (world: World) =>
      world.twin('items').applyAtomic((view) => {
        const named = view.get('x', 'x');
        const id = world.ids.vendorId('item', 14);
        const before = view.get('item', id);
        return commit(
          { operation: 'item.create', subjectType: 'item', subjectId: id, fields: { n: 1 } },
          { id, existed: before !== undefined, named: named !== undefined },
        );
      });
    const first = host(db.url, name, 'same-seed');
    const made = (await createAfterRead(first)).result;
    await first.close();
    // a fresh process is not optimistic: its section reads x with the lock, then creates
    const fresh = host(db.url, uniqueName('w'));
    await fresh.twin('items').get('x', 'y'); // opened: the schema checked, the twin's row made
    const queries = countQueries();
    let sent: string[];
    let result;
    try {
      result = (await createAfterRead(fresh)).result;
      sent = queries.texts();
    } finally {
      queries.restore();
    }
    expect(result.existed).toBe(false);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain("EXECUTE twinworld_get('");
    expect(sent.join('\n')).not.toContain(`'item', '${result.id}')`);
    expect(sent[1]).toContain(`EXECUTE twinworld_absent(`);
    expect(sent[1]).toContain(result.id);
    // the same seed on the same store draws an id that exists: the guess fails and the run after
    // it reads the row, as if it had never guessed
    const again = host(db.url, name, 'same-seed');
    const second = (await createAfterRead(again)).result;
    expect(second.id).toBe(made.id);
    expect(second.existed).toBe(true);
    const entries = await again.twin('items').entries();
    expect(entries.map((e) => e.seq)).toEqual([1, 2]);
  });

  it("takes a GitHub issue's key from the repository's counter for new: one round trip", async () => {
    const db = await createDatabase('mint');
    const world = host(db.url, uniqueName('w'));
    const twin = registerPack(world, github.pack);
    await github.createUser(twin, { login: 'octocat' });
    const repo = await github.createRepository(twin, { owner: 'octocat', name: 'hello' });
    const open = (title: string) =>
      github.openIssue(twin, { repository: 'OctoCat/Hello', title, sender: 'octocat' });
    for (let i = 0; i < 3; i++) await open(`warm ${i}`);
    const queries = countQueries();
    try {
      for (const n of [4, 5]) {
        const before = queries.texts().length;
        const issue = await open(`issue ${n}`);
        expect(issue.number).toBe(n);
        // the repository found by its name, its counter and the new issue's row: none read
        const sent = queries.texts().slice(before);
        expect(sent).toHaveLength(1);
        expect(sent[0]).toContain('EXECUTE twinworld_absent(');
        expect(sent[0]).toContain(`${repo.id}#${n}`);
      }
    } finally {
      queries.restore();
    }
  });

  it("a pull request's webhooks: every hook lookup of a cold process in one round trip", async () => {
    const db = await createDatabase('mint');
    const name = uniqueName('w');
    const first = host(db.url, name);
    const setup = registerPack(first, github.pack);
    await github.createUser(setup, { login: 'octocat' });
    await github.createRepository(setup, { owner: 'octocat', name: 'hello' });
    await first.close();
    // a fresh process (a CLI command): nothing cached
    const twin = registerPack(host(db.url, name), github.pack);
    await twin.get('user', 'none'); // opened: the schema checked, the twin's row made
    const queries = countQueries();
    let sent: string[];
    try {
      await github.openPullRequest(twin, {
        repository: 'octocat/hello',
        title: 'cold',
        head: 'feature',
        sender: 'octocat',
      });
      sent = queries.texts();
    } finally {
      queries.restore();
    }
    const hookLookups = sent.map(
      (q) =>
        q.match(/EXECUTE twinworld_lookup\('[^']*', 'github', '\w+_?\w*', 'twinworld:events'/g)
          ?.length ?? 0,
    );
    // repository, organization and app hooks, each under *, pull_request.opened and pull_request.*
    expect(hookLookups.filter((n) => n > 0)).toEqual([9]);
  });
});
