// What a pooled session keeps of the statements it prepared (connection.ts): one generic plan each,
// even for a commit of one row, which the server otherwise prices cheaper planned for its own values
// and plans again at every EXECUTE; and each statement's source no longer than its own PREPARE,
// since the server copies that source at every EXECUTE. All of it is set up in one round trip.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { commitQueries } from '../../src/storage/postgres/commit-queries.js';
import { Connection, parseEndpoint, setUpSession } from '../../src/storage/postgres/connection.js';
import { migratedDatabase } from './postgres-support.js';

describe('PostgreSQL: the statements a session prepared', () => {
  it('keep a generic plan through commits of one write, each prepared from its own text', async () => {
    const db = await migratedDatabase('sessionplans');
    const conn = new Connection(db.url, parseEndpoint(db.url), {});
    const session = await conn.acquire();
    try {
      // single writes, as an API call's section commits them
      for (let seq = 1; seq <= 8; seq++) {
        const [text] = commitQueries({
          world: 'w',
          twin: 't',
          resources: [
            {
              resource: {
                type: 'counter',
                id: 'c1',
                version: seq,
                deleted: false,
                fields: { seq },
              },
              tenant: null,
            },
          ],
          tenantOfResource: () => undefined,
          tenantScoped: false,
          entries: [{ seq, tenant: null, type: 'counter', id: 'c1', body: `{"seq":${seq}}` }],
          clears: [],
          keys: [],
          meta: [['chain.head', `${seq}`]],
          newHead: seq,
          wakes: false,
        });
        await session.query(`BEGIN; ${text!}`);
      }
      const { rows } = await session.query<{
        name: string;
        statement: string;
        generic_plans: string;
        custom_plans: string;
      }>('SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements');
      const byName = new Map(rows.map((r) => [r.name, r]));
      for (const name of [
        'twinworld_add_entries',
        'twinworld_put_resources',
        'twinworld_advance',
      ]) {
        expect(Number(byName.get(name)?.custom_plans), name).toBe(0);
        expect(Number(byName.get(name)?.generic_plans), name).toBe(8);
      }
      expect(rows.length).toBeGreaterThan(10);
      for (const r of rows) expect(r.statement.match(/\bPREPARE\b/g), r.name).toHaveLength(1);
      // the commits landed: the rows and the head they wrote
      const [head] = await conn.query<{ value: string }>({
        text: "SELECT value FROM twinworld.meta WHERE world = 'w' AND twin = 't' AND key = 'chain.head'",
      });
      expect(head?.value).toBe('8');
    } finally {
      conn.release(session);
      await conn.end();
    }
  });

  it('is set up in one round trip: the settings and every statement', async () => {
    const db = await migratedDatabase('sessionsetup');
    const client = new pg.Client(db.url);
    await client.connect();
    try {
      const sent: string[] = [];
      await setUpSession({ query: (text: string) => (sent.push(text), client.query(text)) });
      expect(sent).toHaveLength(1);
      const { rows } = await client.query<{ name: string; statement: string }>(
        'SELECT name, statement FROM pg_prepared_statements',
      );
      const names = rows.map((r) => r.name);
      for (const name of ['twinworld_lock', 'twinworld_add_entries', 'twinworld_absent'])
        expect(names, name).toContain(name);
      for (const r of rows) expect(r.statement, r.name).toMatch(/^PREPARE \S+ /);
      const role = await client.query<{ current_user: string; plan_cache_mode: string }>(
        "SELECT current_user, current_setting('plan_cache_mode') AS plan_cache_mode",
      );
      expect(role.rows[0]).toEqual({
        current_user: 'twinworld_app',
        plan_cache_mode: 'force_generic_plan',
      });
    } finally {
      await client.end();
    }
  });
});
