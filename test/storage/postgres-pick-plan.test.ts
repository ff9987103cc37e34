// The plan of a due-index pick on PostgreSQL: each index row's resource is found by its whole
// primary key, id included, even when the statistics do not know the world yet (a new world
// beside analysed ones, where a plain join let the planner test the id as a join filter and read
// every resource of the type once per index row) — and so in the generic plan a session may keep
// of the statement it prepared.
import { describe, expect, it } from 'vitest';
import { inline, PREPARE_READS, READS } from '../../src/storage/postgres/reads.js';
import { asSuperuser, migratedDatabase } from './postgres-support.js';

const lit = (s: string) => `'${s}'`;

describe('PostgreSQL: a due-index pick', () => {
  it('looks each resource up by its whole key, id included, for a world the statistics do not know', async () => {
    const db = await migratedDatabase('pick', 'w0');
    const plan = await asSuperuser(db.name, async (c) => {
      await c.query(`SET ROLE twinworld_owner; SELECT set_config('twinworld.tenant', '*', false)`);
      for (const world of ['old_1', 'old_2', 'new']) {
        await c.query(
          `INSERT INTO twinworld.resources SELECT $1, 'bench', t, t || g, NULL, 1, false, repeat('y', 300) ` +
            `FROM generate_series(1, 600) g, unnest(array['customer', 'delivery']) t`,
          [world],
        );
        await c.query(
          `INSERT INTO twinworld.lookups SELECT $1, 'bench', 'delivery', 'due', lpad(g::text, 4, '0'), 'delivery' || g, NULL ` +
            'FROM generate_series(1, 600) g',
          [world],
        );
        if (world === 'old_2') await c.query('ANALYZE');
      }
      const text = READS.lookupUpTo
        .replaceAll('$1', lit('new'))
        .replaceAll('$2', lit('bench'))
        .replaceAll('$3', lit('delivery'))
        .replaceAll('$4', lit('due'))
        .replaceAll('$5', lit('9999'))
        .replaceAll('$6', '16');
      const explain = async (statement: string): Promise<string> => {
        await c.query('BEGIN');
        const rows = (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`)).rows;
        await c.query('ROLLBACK');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      };
      // as sessions run it inside sections: prepared once, here with the plan made for any values
      for (const statement of PREPARE_READS) await c.query(statement);
      await c.query('SET plan_cache_mode = force_generic_plan');
      return {
        inline: await explain(text),
        generic: await explain(
          inline(READS.lookupUpTo, ['new', 'bench', 'delivery', 'due', '9999', 16]),
        ),
      };
    });
    for (const p of [plan.inline, plan.generic]) {
      // Below the limit, the walk; above it, at most a sort of the rows the limit let through.
      expect(p).toContain('->  Limit');
      const walk = p.slice(p.indexOf('->  Limit'));
      expect(walk).toMatch(/Index Cond: \(.*\(id = l\.id\)\)/);
      expect(walk).not.toMatch(/Join Filter|Seq Scan|Sort/);
      // the walk starts at the index's floor
      expect(walk).toMatch(/Index Cond: \(.*\(key >= \(COALESCE\(\(InitPlan 1\)\.col1/);
    }
  });
});
