// Batched claims on PostgreSQL (issue 29): a pick of due rows is read under the twin's lock, so a
// section waiting at the lock holds no row and one holding it never waits on a waiter (no
// deadlock); two hosts' batches claim disjoint deliveries that each go out once, and a resolve
// with a stamp is answered from the secret rows read under the same stamp.
import { describe, expect, it } from 'vitest';
import { DUE_INDEX } from '../../src/state/indexes.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { twinLockKey } from '../../src/storage/postgres/lock-key.js';
import { VirtualClock } from '../../src/world/clock.js';
import { openWorld } from '../../src/world/world.js';
import { DISPATCH_T0, dispatchHarness } from '../support/dispatch-harness.js';
import { resource } from './port-conformance.js';
import { asSuperuser, createDatabase, uniqueName } from './postgres-support.js';

const KEY = '2026-01-01T00:00:00.000Z';

describe('PostgreSQL: picks of due work', () => {
  it('a pick waits at the twin’s lock, holding nothing, and reads what the section before it left', async () => {
    const db = await createDatabase('pick');
    const world = uniqueName('w');
    const a = await PostgresBackend.open(db.url, world);
    const b = await PostgresBackend.open(db.url, world);
    try {
      const storeA = await a.openTwin('t');
      const storeB = await b.openTwin('t');
      await storeA.transact((tx) => {
        for (let i = 1; i <= 6; i++)
          tx.putResource(resource('job', `j${i}`, 1, { n: i }), {
            remove: [],
            add: [{ name: DUE_INDEX, key: KEY }],
          });
      });
      const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let signal!: () => void;
      const pickedByA = new Promise<void>((resolve) => (signal = resolve));
      // A claims the first three: picks them, and takes them out of the due range at its commit.
      const sectionA = storeA.transact(async (tx) => {
        const picked = await tx.lookupUpTo('job', DUE_INDEX, KEY, 3);
        signal();
        await held;
        for (const r of picked)
          tx.putResource(resource('job', r.id, 2, { claimed: true }), {
            remove: [{ name: DUE_INDEX, key: KEY }],
            add: [],
          });
        return ids(picked);
      });
      await pickedByA;
      const sectionB = storeB.transact(async (tx) =>
        ids(await tx.lookupUpTo('job', DUE_INDEX, KEY, 3)),
      );
      let waiter: number | undefined;
      while (waiter === undefined) {
        const waiting = await asSuperuser(db.name, (c) =>
          c.query<{ pid: number }>(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          ),
        );
        waiter = waiting.rows[0]?.pid;
        if (waiter === undefined) await new Promise((r) => setTimeout(r, 10));
      }
      // B waits at the lock holding no row: it has no transaction id yet (locking a row takes
      // one), so nothing a section with the lock writes can wait on it.
      const xid = await asSuperuser(db.name, (c) =>
        c.query<{ backend_xid: string | null }>(
          'SELECT backend_xid FROM pg_stat_activity WHERE pid = $1',
          [waiter],
        ),
      );
      expect(xid.rows).toEqual([{ backend_xid: null }]);
      release();
      expect(await sectionA).toEqual(['j1', 'j2', 'j3']);
      expect(await sectionB).toEqual(['j4', 'j5', 'j6']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('two hosts claiming batches at once take disjoint deliveries, each sent once', async () => {
    const db = await createDatabase('pick');
    const name = uniqueName('w');
    const host = () =>
      openWorld({
        root: `postgres://test/${name}`,
        backend: new PostgresBackend(db.url, name),
        clock: new VirtualClock(DISPATCH_T0),
      });
    const a = await dispatchHarness(() => 200, { world: host(), autoDispatch: false });
    const b = await dispatchHarness(() => 200, { world: host(), autoDispatch: false });
    try {
      for (let i = 0; i < 8; i++) await a.create(`cus_${i}`);
      const batches = await Promise.all([
        a.dispatcher.claimDue('acme', 4),
        b.dispatcher.claimDue('acme', 4),
      ]);
      const results = await Promise.all(batches.flat().map((t) => t.done));
      const claimed = batches.flat().map((t) => t.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(results.every((r) => typeof r === 'object' && r.state === 'succeeded')).toBe(true);
      // whatever the first batches left, later ones take; nothing goes out twice
      const more = await a.dispatcher.claimDue('acme', 8);
      await Promise.all(more.map((t) => t.done));
      const sent = [...a.received, ...b.received].map((r) => r.headers['webhook-id'] ?? r.body);
      expect(sent).toHaveLength(8);
      expect(new Set(sent).size).toBe(8);
      const states = (await a.twin.list('delivery')).map((d) => d.fields.state);
      expect(states).toEqual(Array.from({ length: 8 }, () => 'succeeded'));
    } finally {
      await a.world.close();
      await b.world.close();
    }
  });
});

describe('PostgreSQL: a pick and the lock', () => {
  it('a section holding the lock writes a due row while another waits to pick it: no deadlock, no wait', async () => {
    const db = await createDatabase('pick');
    const world = uniqueName('w');
    const backend = await PostgresBackend.open(db.url, world);
    try {
      const store = await backend.openTwin('t');
      await store.transact((tx) =>
        tx.putResource(resource('job', 'j1', 1, { n: 1 }), {
          remove: [],
          add: [{ name: DUE_INDEX, key: KEY }],
        }),
      );
      // Another host's section holds the twin's lock; this one waits at the lock to pick the due
      // row; then the other writes that row. When picks went ahead of the lock (FOR UPDATE SKIP
      // LOCKED), the picker held the row, the writer waited on it, and PostgreSQL broke the
      // deadlock after deadlock_timeout (a second with the twin stopped, 205 times in one run of
      // the endpoint-health process test).
      await asSuperuser(db.name, async (other) => {
        await other.query('BEGIN');
        await other.query(`SELECT pg_advisory_xact_lock(${twinLockKey(world, 't')})`);
        const section = store.transact(async (tx) => {
          const rows = await tx.lookupUpTo('job', DUE_INDEX, KEY, 1);
          return rows.map((r) => r.id);
        });
        const outcome = section.then(
          (ids) => ids,
          (error: unknown) => error,
        );
        for (;;) {
          const waiting = await other.query(
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          if (waiting.rowCount! > 0) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        const started = performance.now();
        await other.query('UPDATE twinworld.lookups SET key = key WHERE world = $1 AND twin = $2', [
          world,
          't',
        ]);
        // Not a wait for deadlock detection (a second): the row was free.
        expect(performance.now() - started).toBeLessThan(500);
        await other.query('COMMIT');
        expect(await outcome).toEqual(['j1']);
      });
    } finally {
      await backend.close();
    }
  });
});

describe('PostgreSQL: secrets cached under a stamp', () => {
  it('answers from the rows read under the same stamp; its own changes and a new stamp read again', async () => {
    const db = await createDatabase('sec');
    const world = uniqueName('w');
    const backend = new PostgresBackend(db.url, world);
    try {
      const store = backend.secretStore();
      await store.set('ep', 'first-secret');
      expect(await store.resolve('ep', 0, 'v1')).toEqual(['first-secret']);
      // another host changes the row without writing to the endpoint: the same stamp keeps what was read
      await asSuperuser(db.name, (c) =>
        c.query("UPDATE twinworld.secrets SET secret = 'changed-elsewhere' WHERE world = $1", [
          world,
        ]),
      );
      expect(await store.resolve('ep', 0, 'v1')).toEqual(['first-secret']);
      expect(await store.resolve('ep', 0)).toEqual(['changed-elsewhere']);
      expect(await store.resolve('ep', 0, 'v2')).toEqual(['changed-elsewhere']);
      // a rotation through this store is seen at once, under the old stamp too; expiry still applies
      await store.rotate('ep', 'rotated-secret', 1_000, 60_000);
      expect(await store.resolve('ep', 1_000, 'v2')).toEqual([
        'rotated-secret',
        'changed-elsewhere',
      ]);
      expect(await store.resolve('ep', 61_000, 'v2')).toEqual(['rotated-secret']);
      await store.delete('ep');
      expect(await store.resolve('ep', 61_000, 'v2')).toEqual([]);
    } finally {
      await backend.close();
    }
  });
});
