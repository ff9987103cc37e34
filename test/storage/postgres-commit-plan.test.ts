// The plans of a commit's prepared statements on PostgreSQL (commit-queries.ts). A session plans
// them once and may keep a generic plan, made without the rows' values and perhaps while the
// statistics held almost nothing: each row's own lookup (its resource's tenant, the key it removes)
// must still be an index probe by the whole key, not a scan of the twin's rows joined afterwards.
// A plain join here, planned generically over a world of 3,000 rows, hashed every resource of the
// twin for each commit (3.5 ms a commit instead of 0.3).
import { describe, expect, it } from 'vitest';
import { PREPARE_ABSENT } from '../../src/storage/postgres/head-guard.js';
import { PREPARE_WRITES } from '../../src/storage/postgres/prepare-writes.js';
import { asSuperuser, migratedDatabase, textArray } from './postgres-support.js';

const nulls = (n: number) => `ARRAY[${Array(n).fill('NULL').join(', ')}]::text[]`;

describe("PostgreSQL: a commit's prepared statements", () => {
  it('probe the resource or key of each row by its whole key, even in a generic plan made while the tables were empty', async () => {
    const db = await migratedDatabase('commitplan');
    const plans = await asSuperuser(db.name, async (c) => {
      await c.query(`SET ROLE twinworld_owner; SELECT set_config('twinworld.tenant', '*', false)`);
      await c.query('ANALYZE');
      for (const statement of [...PREPARE_WRITES, PREPARE_ABSENT]) await c.query(statement);
      await c.query(
        `INSERT INTO twinworld.resources SELECT 'w', 'bench', 'delivery', 'd' || g, NULL, 1, false, repeat('y', 300) ` +
          'FROM generate_series(1, 3000) g',
      );
      await c.query(
        `INSERT INTO twinworld.lookups SELECT 'w', 'bench', 'delivery', 'due', lpad(g::text, 4, '0'), 'd' || g, NULL ` +
          'FROM generate_series(1, 3000) g',
      );
      await c.query('SET plan_cache_mode = force_generic_plan');
      const ids = textArray(['d1', 'd2', 'd3']);
      const executes = {
        entries: `EXECUTE twinworld_add_entries('w', 'bench', ARRAY[1, 2, 3]::bigint[], ${nulls(3)}, ${textArray(['delivery', 'delivery', 'delivery'])}, ${ids}, ${textArray(['{}', '{}', '{}'])})`,
        removeKeys: `EXECUTE twinworld_remove_keys('w', 'bench', ${textArray(['delivery', 'delivery', 'delivery'])}, ${textArray(['due', 'due', 'due'])}, ${textArray(['0001', '0002', '0003'])}, ${ids})`,
        addKeys: `EXECUTE twinworld_add_keys('w', 'bench', ${textArray(['delivery', 'delivery', 'delivery'])}, ${textArray(['due', 'due', 'due'])}, ${textArray(['9001', '9002', '9003'])}, ${ids}, ${nulls(3)})`,
      };
      const out: Record<string, string> = {};
      await c.query('BEGIN');
      for (const [name, text] of Object.entries(executes))
        out[name] = (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE) ${text}`)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      // The condition that rows a section took for absent have none: one probe per row too.
      out.absent = (
        await c.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE) EXECUTE twinworld_absent('w', 'bench', ${textArray(['delivery', 'delivery', 'delivery'])}, ${textArray(['x1', 'x2', 'x3'])})`,
        )
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      await c.query('ROLLBACK');
      return out;
    });
    const { absent, ...writes } = plans;
    expect(absent).not.toMatch(/Hash|Join Filter|Seq Scan/);
    expect(absent).toMatch(/Index (Only )?Scan using resources_pkey[^\n]*loops=3\)/);
    expect(absent).toMatch(/Index Cond: \(.*\(id = a\.id\)\)/);
    for (const [name, plan] of Object.entries(writes)) {
      expect(plan, name).not.toMatch(/Hash|Join Filter|Seq Scan/);
      // one probe per row, the id in the index condition
      expect(plan, name).toMatch(/Index Scan using (resources|lookups)_pkey[^\n]*loops=3\)/);
      expect(plan, name).toMatch(/Index Cond: \(.*\(id = v\.id\)\)/);
    }
    // and the removal found the three keys it names
    expect(plans.removeKeys).toMatch(/Tid Scan on lookups l .*rows=1\.00 loops=3\)/);
  });
});
