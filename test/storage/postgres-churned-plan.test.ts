// The plans a twinworld session makes once a queue has churned its due index: thousands of keys
// added and removed, a few left, and ANALYZE run then (as autovacuum does between two bursts).
// The statistics then count three rows in a table and an index of hundreds of pages, and an
// unguarded planner scans the whole table for each key a commit removes and for each due pick.
// The session's setup (connection.ts) keeps both to index walks: by the whole key, and in key order
// with no sort.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { setUpSession } from '../../src/storage/postgres/connection.js';
import { asSuperuser, migratedDatabase, textArray } from './postgres-support.js';

describe('PostgreSQL: a session after its due index churned', () => {
  it('removes keys and picks due rows by walking the index, not by scanning the table', async () => {
    const db = await migratedDatabase('churned');
    await asSuperuser(db.name, async (c) => {
      const keys = (n: number) =>
        `INSERT INTO twinworld.lookups SELECT 'w', 'bench', 'delivery', 'due', lpad(g::text, 6, '0'), 'd' || g, NULL FROM generate_series(1, ${n}) g`;
      await c.query(
        `INSERT INTO twinworld.resources SELECT 'w', 'bench', 'delivery', 'd' || g, NULL, 1, false, '{}' FROM generate_series(1, 3) g`,
      );
      await c.query(keys(20_000));
      await c.query(`DELETE FROM twinworld.lookups WHERE world = 'w'`);
      await c.query(keys(3));
      await c.query('ANALYZE twinworld.lookups');
    });
    // a session of the app, set up as the pool sets up each of its own
    const client = new pg.Client(db.url);
    await client.connect();
    try {
      await setUpSession(client);
      const explain = async (statement: string): Promise<string> => {
        await client.query('BEGIN');
        const rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`)).rows;
        await client.query('ROLLBACK');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      };
      const removeKeys = await explain(
        `EXECUTE twinworld_remove_keys('w', 'bench', ${textArray(['delivery', 'delivery'])}, ${textArray(['due', 'due'])}, ${textArray(['000001', '000002'])}, ${textArray(['d1', 'd2'])})`,
      );
      const pick = await explain(
        `EXECUTE twinworld_lookupUpTo('w', 'bench', 'delivery', 'due', '999999', 16)`,
      );
      // the pick's walk, below its limit (above it, the rows the limit let through are put in order)
      expect(pick).toContain('->  Limit');
      const walk = pick.slice(pick.indexOf('->  Limit'));
      for (const [name, plan] of Object.entries({ removeKeys, walk })) {
        expect(plan, name).not.toMatch(/Seq Scan|Bitmap|Sort/);
        expect(plan, name).toMatch(/Index Scan using lookups_pkey on lookups/);
      }
      expect(removeKeys).toMatch(/Index Cond: \(.*\(key = v\.key\) AND \(id = v\.id\)\)/);
      // sessions keep one generic plan per statement: the bound is the parameter
      expect(walk).toMatch(/Index Cond: \(.*\(key <= \$5\)\)/);
    } finally {
      await client.end();
    }
  });
});
