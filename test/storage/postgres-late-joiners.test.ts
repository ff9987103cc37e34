// Late joiners (issue 29, several processes): a section that had to wait for the twin's lock —
// another host held it — carries the actions of its process that arrived while it waited, in the
// same commit, instead of leaving them for one more turn at the lock. An action that would need
// another read under the lock does not join: it goes first in the next section. Which entries
// shared a commit is read from PostgreSQL itself (the transaction id that wrote each row).
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { twinLockKey } from '../../src/storage/postgres/lock-key.js';
import { MAX_GROUP } from '../../src/world/action-queue.js';
import type { ReadView } from '../../src/state/read-view.js';
import { commit } from '../../src/world/decision.js';
import type { World } from '../../src/world/world.js';
import { counterHost, increment } from './postgres-counter-hosts.js';
import { createDatabase, uniqueName } from './postgres-support.js';

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await w.close();
});

/** Until a session of the database waits on an advisory lock (the one `locker` holds). */
async function someoneWaits(locker: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await locker.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
    );
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

it('actions that arrive while a section waits for the lock join its commit; one that must read waits for the next', async () => {
  const db = await createDatabase('joiners');
  const name = uniqueName('w');
  const host = () => counterHost(db.url, name, worlds);
  const other = host();
  const a = host();
  expect((await other.applyAtomic(increment)).result).toBe(1);
  await a.head(); // opened: what waits at the lock below is a's first write section

  // Another host holds the twin's lock: a's section waits for it in its first round trip.
  const locker = new pg.Client(db.url);
  await locker.connect();
  try {
    await locker.query(`BEGIN; SELECT pg_advisory_xact_lock(${twinLockKey(name, 'counter')})`);
    const first = a.applyAtomic(increment);
    await someoneWaits(locker);
    // Arrive while it waits: two that read only what the section has, one that reads a resource
    // nobody loaded yet.
    const second = a.applyAtomic(increment);
    const third = a.applyAtomic(increment);
    const reader = a.applyAtomic((view) => {
      const seen = view.get('note', 'n') === undefined ? 'none' : 'some';
      return commit(
        { operation: 'note.set', subjectType: 'note', subjectId: 'n', fields: { seen } },
        seen,
      );
    });
    await locker.query('COMMIT');
    expect((await first).result).toBe(2);
    expect((await second).result).toBe(3);
    expect((await third).result).toBe(4);
    expect((await reader).result).toBe('none');
    const { rows } = await locker.query<{ seq: number; xid: string }>(
      "SELECT seq::int AS seq, xmin::text AS xid FROM twinworld.entries WHERE world = $1 AND twin = 'counter' ORDER BY seq",
      [name],
    );
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    const xid = rows.map((r) => r.xid);
    // 2, 3 and 4 in one commit; the reader's entry (5) in a commit of its own after it.
    expect(new Set(xid.slice(1, 4)).size).toBe(1);
    expect(xid[4]).not.toBe(xid[1]);
    expect(xid[0]).not.toBe(xid[1]);
  } finally {
    await locker.end();
  }
  const entries = await a.entries();
  expect(entries.map((e) => e.fields?.value ?? e.fields?.seen)).toEqual([1, 2, 3, 4, 'none']);
  expect((await other.get('counter', 'c'))?.fields.value).toBe(4);
});

it('after a group fails in the store, its members go again alone and in order, before actions that came later', async () => {
  const db = await createDatabase('joiners');
  const name = uniqueName('w');
  const host = () => counterHost(db.url, name, worlds);
  const other = host();
  const a = host();
  a.declareIndex({ type: 'note', name: 'by-text', field: 'text' });
  expect((await other.applyAtomic(increment)).result).toBe(1);
  // the note the bad write will replace is in a's cache: that write joins without a read
  await a.applyAtomic(() =>
    commit(
      { operation: 'note.set', subjectType: 'note', subjectId: 'n', fields: { text: 'short' } },
      'ok',
    ),
  );
  // A key PostgreSQL's index cannot hold (incompressible, far over a B-tree row's limit): its
  // group's commit fails, and no one learns which member caused it.
  let text = '';
  for (let i = 0; text.length < 12_000; i++)
    text += createHash('sha256').update(String(i)).digest('base64');
  const locker = new pg.Client(db.url);
  await locker.connect();
  try {
    await locker.query(`BEGIN; SELECT pg_advisory_xact_lock(${twinLockKey(name, 'counter')})`);
    const first = a.applyAtomic(increment);
    await someoneWaits(locker);
    // A full group joins the waiting section (the bad write among them); one more waits behind it.
    const joiners = Array.from({ length: MAX_GROUP - 2 }, () => a.applyAtomic(increment));
    const bad = a.applyAtomic(() =>
      commit(
        { operation: 'note.set', subjectType: 'note', subjectId: 'n', fields: { text } },
        'bad',
      ),
    );
    const after = [a.applyAtomic(increment), a.applyAtomic(increment)];
    void bad.catch(() => undefined);
    await locker.query('COMMIT');
    expect((await first).result).toBe(2);
    const values = [];
    for (const j of joiners) values.push((await j).result);
    expect(values).toEqual(Array.from({ length: MAX_GROUP - 2 }, (_, i) => i + 3));
    await expect(bad).rejects.toMatchObject({ name: 'TwinError' });
    // the actions that came after the group decide after all of its members
    expect((await Promise.all(after)).map((r) => r.result)).toEqual([MAX_GROUP + 1, MAX_GROUP + 2]);
  } finally {
    await locker.end();
  }
  const entries = await a.entries();
  expect(entries.filter((e) => e.subjectType === 'counter').map((e) => e.fields?.value)).toEqual(
    Array.from({ length: MAX_GROUP + 2 }, (_, i) => i + 1),
  );
});
