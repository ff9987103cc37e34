// Where a due index's live keys begin, on PostgreSQL (schema.ts, V6). A removed key stays in the
// lookups primary key until vacuum, and a queue removes its keys at the low end of the range a
// pick walks from: the pick starts at the floor the commits keep, so what it reads does not grow
// with the keys removed since the last vacuum. A section scoped to one tenant sees only that
// tenant's keys, so it never raises the floor; and any insert lowers it, whoever makes it.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DUE_INDEX } from '../../src/state/indexes.js';
import { setUpSession } from '../../src/storage/postgres/connection.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { twinLockKey } from '../../src/storage/postgres/lock-key.js';
import type { StoreTx } from '../../src/storage/port.js';
import { resource } from './port-conformance.js';
import { asSuperuser, createDatabase, uniqueName } from './postgres-support.js';

const key = (i: number) => `k${String(i).padStart(5, '0')}`;

const due = (id: string, version: number, remove: string[], add: string[], fields = {}) =>
  ((tx: StoreTx) =>
    tx.putResource(resource('job', id, version, fields), {
      remove: remove.map((k) => ({ name: DUE_INDEX, key: k })),
      add: add.map((k) => ({ name: DUE_INDEX, key: k })),
    })) satisfies (tx: StoreTx) => void;

describe('PostgreSQL: the floor of a due index', () => {
  it('a pick after thousands of keys were removed reads a few pages of the index, not every removed key', async () => {
    const db = await createDatabase('floor');
    const world = uniqueName('w');
    // Vacuum would take the removed keys out of the index, and with them what is measured here.
    await asSuperuser(db.name, async (c) => {
      const backend = await PostgresBackend.open(db.url, world);
      await backend.close();
      await c.query('ALTER TABLE twinworld.lookups SET (autovacuum_enabled = false)');
    });
    const backend = await PostgresBackend.open(db.url, world);
    const session = new pg.Client(db.url);
    await session.connect();
    try {
      const store = await backend.openTwin('t');
      const n = 3_000;
      await store.transact((tx) => {
        for (let i = 0; i < n; i++) due(`j${i}`, 1, [], [key(i)])(tx);
      });
      // claimed a hundred at a time, lowest first, as a queue takes them: ten are left
      for (let i = 0; i < n - 10; i += 100)
        await store.transact((tx) => {
          for (let j = i; j < Math.min(i + 100, n - 10); j++) due(`j${j}`, 2, [key(j)], [])(tx);
        });
      await setUpSession(session);
      /** The pages the pick's walk of the lookups index reads, and the ids it answers. */
      const pick = async (): Promise<{ pages: number; ids: string[] }> => {
        const args = `'${world}', 't', 'job', '${DUE_INDEX}', 'k99999', 5`;
        await session.query('BEGIN');
        const plan = (
          await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE twinworld_lookupUpTo(${args})`,
          )
        ).rows[0]!['QUERY PLAN'][0].Plan;
        const ids = (
          await session.query<{ id: string }>(`EXECUTE twinworld_lookupUpTo(${args})`)
        ).rows.map((r) => r.id);
        await session.query('ROLLBACK');
        const walk = nodes(plan).find((p) => p['Relation Name'] === 'lookups');
        expect(walk?.['Index Name']).toBe('lookups_pkey');
        return { pages: walk!['Shared Hit Blocks'] + walk!['Shared Read Blocks'], ids };
      };
      // the commit's own walk, to the first key left, starts at the floor it had
      await session.query('BEGIN');
      const floorPlan = (
        await session.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN EXECUTE twinworld_index_floor('${world}', 't', 'job', '${DUE_INDEX}')`,
        )
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      await session.query('ROLLBACK');
      expect(floorPlan).toMatch(/Index Cond: \(.*\(key >= low\.key\)\)/);
      const left = ['j2990', 'j2991', 'j2992', 'j2993', 'j2994'];
      await pick(); // the first walk marks the removed keys' index entries dead; measured after
      const fromFloor = await pick();
      expect(fromFloor.ids).toEqual(left);
      expect(fromFloor.pages).toBeLessThanOrEqual(4);
      // the same pick without the floor walks the index entries of every key removed
      await asSuperuser(db.name, (c) => c.query('DELETE FROM twinworld.index_floors'));
      const fromStart = await pick();
      expect(fromStart.ids).toEqual(left);
      expect(fromStart.pages).toBeGreaterThan(5 * fromFloor.pages);
    } finally {
      await session.end();
      await backend.close();
    }
  });

  it('a section scoped to a tenant never raises the floor past another tenant’s keys, and a key it adds lowers it', async () => {
    const db = await createDatabase('floor');
    const backend = await PostgresBackend.open(db.url, uniqueName('w'));
    try {
      const store = await backend.openTwin('t');
      const a = { tenantId: 'a' };
      const b = { tenantId: 'b' };
      await store.transact((tx) => {
        due('a1', 1, [], [key(10)], a)(tx);
        due('b1', 1, [], [key(20)], b)(tx);
        due('b2', 1, [], [key(30)], b)(tx);
      });
      const upTo = (scope: { tenant?: string } = {}) =>
        store.transact(
          async (tx) => (await tx.lookupUpTo('job', DUE_INDEX, '\uffff', 10)).map((r) => r.id),
          { ...scope, readOnly: true },
        );
      // tenant b takes its first key out: all b sees of the index now starts at k00030
      await store.transact(due('b1', 2, [key(20)], [], b), { tenant: 'b' });
      expect(await upTo({ tenant: 'b' })).toEqual(['b2']);
      expect(await upTo()).toEqual(['a1', 'b2']);
      // and a key tenant b adds below a's is found by everyone
      await store.transact(due('b1', 3, [], [key(5)], b), { tenant: 'b' });
      expect(await upTo()).toEqual(['b1', 'a1', 'b2']);
      expect(await upTo({ tenant: 'a' })).toEqual(['a1']);
    } finally {
      await backend.close();
    }
  });

  it('a key inserted by a writer that keeps no floor (a host of an earlier version) lowers it', async () => {
    const db = await createDatabase('floor');
    const world = uniqueName('w');
    const backend = await PostgresBackend.open(db.url, world);
    const older = new pg.Client(db.url);
    await older.connect();
    try {
      const store = await backend.openTwin('t');
      await store.transact((tx) => {
        for (let i = 10; i < 20; i++) due(`j${i}`, 1, [], [key(i)])(tx);
      });
      await store.transact((tx) => {
        for (let i = 10; i < 15; i++) due(`j${i}`, 2, [key(i)], [])(tx);
      });
      const upTo = () =>
        store.transact(
          async (tx) => (await tx.lookupUpTo('job', DUE_INDEX, '\uffff', 2)).map((r) => r.id),
          { readOnly: true },
        );
      expect(await upTo()).toEqual(['j15', 'j16']);
      // as the app's role, with its own statement: the twin's lock, then the key
      await setUpSession(older);
      await older.query('BEGIN');
      await older.query(`SELECT pg_advisory_xact_lock(${twinLockKey(world, 't')})`);
      await older.query(
        `INSERT INTO twinworld.lookups (world, twin, type, name, key, id) VALUES ($1, 't', 'job', $2, $3, 'j10')`,
        [world, DUE_INDEX, key(3)],
      );
      await older.query('COMMIT');
      expect(await upTo()).toEqual(['j10', 'j15']);
    } finally {
      await older.end();
      await backend.close();
    }
  });
});

interface PlanNode {
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Shared Hit Blocks': number;
  readonly 'Shared Read Blocks': number;
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}
