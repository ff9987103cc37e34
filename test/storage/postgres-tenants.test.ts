// Tenant isolation enforced by PostgreSQL: the backend logs in as an application role that owns nothing,
// every row of a tenant carries it, and a session scoped to tenant A can neither read nor change tenant
// B's rows — through the port, and with SQL written by hand on such a session.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { JsonObject } from '../../src/log/json-value.js';
import type { IndexKey } from '../../src/state/indexes.js';
import type { StoreScope, TwinStore } from '../../src/storage/port.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { entry, resource } from './port-conformance.js';
import { asSuperuser, createDatabase, createLogin, rawClient, urlFor } from './postgres-support.js';

let db: { name: string; url: string };
let appUrl: string;
let backend: PostgresBackend;
let store: TwinStore;

/** One write as the kernel makes it: append the entry, put its subject (fields merged) with its keys. */
async function write(
  scope: StoreScope | undefined,
  type: string,
  id: string,
  fields: JsonObject,
  keys: IndexKey[] = [],
): Promise<number> {
  return store.transact(async (tx) => {
    const seq = (await tx.head()) + 1;
    const prev = (await tx.getResource(type, id))?.fields ?? {};
    const e = entry(seq, type, id, fields);
    tx.append(e, canonicalJson(e));
    tx.putResource(resource(type, id, seq, { ...prev, ...fields }), { remove: [], add: keys }, seq);
    return seq;
  }, scope);
}

async function refusal(promise: Promise<unknown>): Promise<TwinError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TwinError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

beforeAll(async () => {
  db = await createDatabase('tenants');
  await (await PostgresBackend.open(db.url, 'w')).close();
  // As production should: a login that is a member of twinworld_app and nothing else.
  appUrl = urlFor(db.name, await createLogin());
  backend = await PostgresBackend.open(appUrl, 'w');
  store = await backend.openTwin('t');
  await write({ tenant: 'A' }, 'record', 'r_a1', { tenantId: 'A', secret: 'a1' }, [
    { name: 'bySecret', key: 'k-a1' },
  ]); // seq 1
  await write({ tenant: 'B' }, 'record', 'r_b1', { tenantId: 'B', secret: 'b1' }, [
    { name: 'bySecret', key: 'k-b1' },
  ]); // seq 2
  await write(undefined, 'config', 'shared', { v: 1 }, [{ name: 'byV', key: '1' }]); // seq 3
  // an update that does not repeat tenantId: the entry still belongs to its subject's tenant
  await write({ tenant: 'A' }, 'record', 'r_a1', { status: 'done' }); // seq 4
  await store.transact((tx) => tx.setMeta('shared-meta', 'm'));
});

afterAll(async () => {
  await backend?.close();
});

describe('tenant isolation through the port', () => {
  it("a section scoped to tenant A sees its rows and the shared ones, never B's; the head is the twin's", async () => {
    const seen = await store.transact(
      async (tx) => ({
        head: await tx.head(),
        mine: (await tx.getResource('record', 'r_a1'))?.fields,
        theirs: await tx.getResource('record', 'r_b1'),
        list: (await tx.listResources('record')).map((r) => r.id),
        lookupTheirs: await tx.lookup('record', 'bySecret', 'k-b1'),
        lookupMine: (await tx.lookup('record', 'bySecret', 'k-a1')).map((r) => r.id),
        shared: (await tx.lookup('config', 'byV', '1')).map((r) => r.id),
        all: (await tx.allResources('record')).map((r) => r.id),
        entries: (await tx.readEntries(0, 100)).map((e) => e.seq),
        meta: await tx.getMeta('shared-meta'),
      }),
      { tenant: 'A' },
    );
    expect(seen).toEqual({
      head: 4,
      mine: { tenantId: 'A', secret: 'a1', status: 'done' },
      theirs: undefined,
      list: ['r_a1'],
      lookupTheirs: [],
      lookupMine: ['r_a1'],
      shared: ['shared'],
      all: ['r_a1'],
      entries: [1, 3, 4],
      meta: 'm',
    });
  });

  it('kernel-wide reads (outside sections, or a section without a tenant) see every tenant', async () => {
    expect(
      (await store.transact((tx) => tx.listResources('record'), { readOnly: true })).map(
        (r) => r.id,
      ),
    ).toEqual(['r_a1', 'r_b1']);
    expect((await all(store.liveResources())).map((r) => r.id)).toEqual(['shared', 'r_a1', 'r_b1']);
    expect((await all(store.entryBodies(0))).map((b) => JSON.parse(b).seq)).toEqual([1, 2, 3, 4]);
    expect((await store.entriesBySubject('record', 'r_b1')).map((e) => e.seq)).toEqual([2]);
    expect(
      await store.transact(async (tx) => (await tx.readEntries(0, 100)).map((e) => e.seq)),
    ).toEqual([1, 2, 3, 4]);
  });

  it('rows carry the tenant of their resource; entries the tenant of their subject', async () => {
    await asSuperuser(db.name, async (c) => {
      expect(
        (await c.query('SELECT seq, tenant FROM twinworld.entries ORDER BY seq')).rows,
      ).toEqual([
        { seq: '1', tenant: 'A' },
        { seq: '2', tenant: 'B' },
        { seq: '3', tenant: null },
        { seq: '4', tenant: 'A' },
      ]);
      expect(
        (await c.query('SELECT id, tenant FROM twinworld.resources ORDER BY id')).rows,
      ).toEqual([
        { id: 'r_a1', tenant: 'A' },
        { id: 'r_b1', tenant: 'B' },
        { id: 'shared', tenant: null },
      ]);
      expect(
        (await c.query('SELECT key, tenant FROM twinworld.lookups ORDER BY key')).rows,
      ).toEqual([
        { key: '1', tenant: null },
        { key: 'k-a1', tenant: 'A' },
        { key: 'k-b1', tenant: 'B' },
      ]);
    });
  });

  it("a section scoped to A cannot write B's rows, nor give a row to B; nothing of it commits", async () => {
    const labelled = await refusal(write({ tenant: 'A' }, 'record', 'r_new', { tenantId: 'B' }));
    expect(labelled).toMatchObject({ code: 'TENANT_MISMATCH', path: 'resource.fields.tenantId' });
    expect(labelled.message).toContain('tenant "B"');
    // r_b1 is invisible to A, so A's section folds it as new: the database refuses the overwrite at commit.
    const overwrite = await refusal(write({ tenant: 'A' }, 'record', 'r_b1', { secret: 'stolen' }));
    expect(overwrite.code).toBe('TENANT_MISMATCH');
    expect(overwrite.message).toContain(
      'a section scoped to tenant "A" tried to write a row of another tenant',
    );
    expect(overwrite.details).toMatchObject({ driverCode: '42501' });
    expect(overwrite.message).not.toContain('stolen');
    expect(await store.head()).toBe(4);
    expect(
      (await store.transact((tx) => tx.getResource('record', 'r_b1'), { readOnly: true }))?.fields,
    ).toEqual({ tenantId: 'B', secret: 'b1' });
  });

  it('a scope must name a tenant: not empty, not "*", a string', async () => {
    for (const tenant of ['', '*', 42, 'x'.repeat(300), 'a\u0000b']) {
      const error = await refusal(store.transact(() => 1, { tenant } as unknown as StoreScope));
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', path: 'scope.tenant' });
    }
  });

  it('a resource that moves from shared to a tenant takes its index keys along', async () => {
    await write(undefined, 'config', 'moving', { v: 2 }, [{ name: 'byV', key: '2' }]);
    await write(undefined, 'config', 'moving', { tenantId: 'A' });
    expect(
      await asSuperuser(
        db.name,
        async (c) =>
          (await c.query(`SELECT tenant FROM twinworld.lookups WHERE id = 'moving'`)).rows,
      ),
    ).toEqual([{ tenant: 'A' }]);
    expect(await store.transact((tx) => tx.lookup('config', 'byV', '2'), { tenant: 'B' })).toEqual(
      [],
    );
    expect(
      (await store.transact((tx) => tx.lookup('config', 'byV', '2'), { tenant: 'A' })).map(
        (r) => r.id,
      ),
    ).toEqual(['moving']);
  });
});

/** Runs `sql` in a savepoint: its rows and count, or the SQLSTATE it was refused with. */
async function attempt(
  c: pg.Client,
  sql: string,
): Promise<{ rows?: unknown[]; count?: number | null; code?: string }> {
  await c.query('SAVEPOINT attempt');
  try {
    const result = await c.query(sql);
    await c.query('RELEASE SAVEPOINT attempt');
    return { rows: result.rows, count: result.rowCount };
  } catch (error) {
    await c.query('ROLLBACK TO SAVEPOINT attempt');
    return { code: (error as { code?: string }).code };
  }
}

describe('tenant isolation against SQL written by hand on a session scoped to tenant A', () => {
  let c: pg.Client;
  beforeAll(async () => {
    // The session exactly as the backend sets one up, then a transaction scoped to A.
    c = await rawClient(appUrl);
    await c.query(
      `SET ROLE twinworld_app; SET standard_conforming_strings = on; SELECT set_config('twinworld.tenant', '*', false)`,
    );
    await c.query(`BEGIN; SELECT set_config('twinworld.tenant', 'A', true)`);
  });
  afterAll(async () => {
    await c?.query('ROLLBACK');
    await c?.end();
  });

  it('reads nothing of B, however the query is written', async () => {
    for (const table of ['entries', 'resources', 'lookups']) {
      const tenants = await attempt(
        c,
        `SELECT DISTINCT tenant FROM twinworld.${table} ORDER BY tenant`,
      );
      expect(tenants.rows).toEqual([{ tenant: 'A' }, { tenant: null }]);
      expect(
        (
          await attempt(
            c,
            `SELECT * FROM twinworld.${table} WHERE tenant = 'B' OR tenant IS DISTINCT FROM 'A'`,
          )
        ).rows?.some((r) => (r as { tenant: unknown }).tenant === 'B'),
      ).toBe(false);
    }
    expect(
      (await attempt(c, `SELECT count(*)::int AS n FROM twinworld.entries WHERE body LIKE '%b1%'`))
        .rows,
    ).toEqual([{ n: 0 }]);
  });

  it('changes nothing of B: updates and deletes find no row, inserts and re-labelling are refused', async () => {
    expect(
      await attempt(c, `UPDATE twinworld.resources SET fields = '{}' WHERE tenant = 'B'`),
    ).toEqual({ rows: [], count: 0 });
    expect(
      await attempt(c, `UPDATE twinworld.resources SET fields = '{}' WHERE id = 'r_b1'`),
    ).toEqual({ rows: [], count: 0 });
    expect(await attempt(c, `DELETE FROM twinworld.lookups WHERE tenant = 'B'`)).toEqual({
      rows: [],
      count: 0,
    });
    expect(
      await attempt(
        c,
        `INSERT INTO twinworld.resources (world, twin, type, id, tenant, version, deleted, fields) VALUES ('w', 't', 'record', 'planted', 'B', 9, false, '{}')`,
      ),
    ).toEqual({ code: '42501' });
    expect(
      await attempt(
        c,
        `INSERT INTO twinworld.entries (world, twin, seq, tenant, subject_type, subject_id, body) VALUES ('w', 't', 99, 'B', 'record', 'r_b1', '{}')`,
      ),
    ).toEqual({
      code: '42501',
    });
    expect(
      await attempt(c, `UPDATE twinworld.resources SET tenant = 'B' WHERE id = 'r_a1'`),
    ).toEqual({ code: '42501' });
    expect(
      await attempt(c, `UPDATE twinworld.lookups SET tenant = 'B' WHERE key = 'k-a1'`),
    ).toEqual({ code: '42501' });
  });

  it('cannot step around the policy: no truncate, no log rewrite, no owner role, no disabling row security', async () => {
    for (const sql of [
      'TRUNCATE twinworld.resources',
      `DELETE FROM twinworld.entries WHERE tenant = 'A'`,
      `UPDATE twinworld.entries SET body = '{}' WHERE tenant = 'A'`,
      'ALTER TABLE twinworld.resources DISABLE ROW LEVEL SECURITY',
      'ALTER TABLE twinworld.resources NO FORCE ROW LEVEL SECURITY',
      'DROP POLICY tenant_rows ON twinworld.resources',
      'SET LOCAL ROLE twinworld_owner',
    ]) {
      expect({ sql, ...(await attempt(c, sql)) }).toEqual({ sql, code: '42501' });
    }
    // row_security = off does not bypass: a query the policy would filter is refused outright
    await c.query('SAVEPOINT rs');
    await c.query('SET LOCAL row_security = off');
    expect(await attempt(c, 'SELECT id FROM twinworld.resources')).toEqual({ code: '42501' });
    await c.query('ROLLBACK TO SAVEPOINT rs');
    // dropping the app role leaves the login itself, which is just as bound
    await c.query('SAVEPOINT rr');
    await c.query('RESET ROLE');
    expect(
      (await attempt(c, `SELECT id FROM twinworld.resources WHERE tenant = 'B'`)).rows,
    ).toEqual([]);
    await c.query('ROLLBACK TO SAVEPOINT rr');
  });

  it("left B's rows exactly as they were", async () => {
    await asSuperuser(db.name, async (su) => {
      expect(
        (await su.query(`SELECT fields FROM twinworld.resources WHERE id = 'r_b1'`)).rows,
      ).toEqual([{ fields: JSON.stringify({ tenantId: 'B', secret: 'b1' }) }]);
      expect(
        (await su.query(`SELECT count(*)::int AS n FROM twinworld.entries WHERE tenant = 'B'`))
          .rows,
      ).toEqual([{ n: 1 }]);
      expect(
        (await su.query(`SELECT count(*)::int AS n FROM twinworld.lookups WHERE tenant = 'B'`))
          .rows,
      ).toEqual([{ n: 1 }]);
    });
  });

  it('a session that never set a tenant sees only the shared rows (closed by default)', async () => {
    const bare = await rawClient(appUrl);
    try {
      expect((await bare.query('SELECT DISTINCT tenant FROM twinworld.resources')).rows).toEqual([
        { tenant: null },
      ]);
      expect((await bare.query('SELECT DISTINCT tenant FROM twinworld.entries')).rows).toEqual([
        { tenant: null },
      ]);
      expect((await bare.query('SELECT DISTINCT tenant FROM twinworld.lookups')).rows).toEqual([
        { tenant: null },
      ]);
    } finally {
      await bare.end();
    }
  });
});
