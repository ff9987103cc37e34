// The PostgreSQL backend on a real throwaway server: the port's conformance suite, then what only
// PostgreSQL has — migrations, the advisory lock across pools, typed connection refusals, tenant
// row-level security.
import pg from 'pg';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { compareResources, stateHash } from '../../src/state/state-hash.js';
import { PostgresBackend, SCHEMA_VERSION, twinLockKey } from '../../src/storage/postgres/index.js';
import { MIGRATIONS } from '../../src/storage/postgres/schema.js';
import { openWorld } from '../../src/world/world.js';
import { checkServerVersion, OLDEST_SERVER } from '../../src/storage/postgres/migrate.js';
import { startPostgresServer } from '../support/postgres-server.js';
import type { JsonObject } from '../../src/log/json-value.js';
import { describePortConformance, entry, increment, resource } from './port-conformance.js';
import {
  asSuperuser,
  createDatabase,
  createLogin,
  uniqueName,
  urlFor,
} from './postgres-support.js';

let shared: Promise<string> | undefined;
/** One database for the conformance suite; every case is a world of its own in it. */
function sharedDatabase(): Promise<string> {
  shared ??= createDatabase('conf').then((db) => db.url);
  return shared;
}

describePortConformance('postgres', async () => {
  const url = await sharedDatabase();
  const world = uniqueName('w');
  return {
    backend: await PostgresBackend.open(url, world),
    reopen: () => PostgresBackend.open(url, world),
    cleanup: async () => {},
  };
});

/** A free loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
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

describe('PostgreSQL: migrations', () => {
  it('creates the schema owned by twinworld_owner, with forced row-level security, and records each version once', async () => {
    const db = await createDatabase('mig');
    const first = await PostgresBackend.open(db.url, 'w');
    const second = new PostgresBackend(db.url, 'w');
    try {
      expect(await first.ready()).toEqual({ from: 0, to: SCHEMA_VERSION });
      expect(await second.ready()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
      await asSuperuser(db.name, async (c) => {
        expect(
          (await c.query('SELECT version FROM twinworld.migrations ORDER BY version')).rows.map(
            (r) => r.version,
          ),
        ).toEqual(MIGRATIONS.map((m) => m.version));
        const tables = await c.query(
          `SELECT c.relname, pg_get_userbyid(c.relowner) AS owner, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'twinworld' AND c.relkind = 'r' ORDER BY c.relname`,
        );
        expect(tables.rows).toEqual([
          { relname: 'entries', owner: 'twinworld_owner', rls: true, forced: true },
          { relname: 'idempotency', owner: 'twinworld_owner', rls: false, forced: false },
          { relname: 'index_floors', owner: 'twinworld_owner', rls: false, forced: false },
          { relname: 'lookups', owner: 'twinworld_owner', rls: true, forced: true },
          { relname: 'meta', owner: 'twinworld_owner', rls: false, forced: false },
          { relname: 'migrations', owner: 'twinworld_owner', rls: false, forced: false },
          { relname: 'resources', owner: 'twinworld_owner', rls: true, forced: true },
          { relname: 'retired_secrets', owner: 'twinworld_owner', rls: false, forced: false },
          { relname: 'secrets', owner: 'twinworld_owner', rls: false, forced: false },
          { relname: 'twins', owner: 'twinworld_owner', rls: false, forced: false },
        ]);
        // Resources are rewritten at every entry that touches them: their pages keep room for it.
        const fill = await c.query(
          `SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'twinworld' AND c.relkind = 'r' AND c.reloptions IS NOT NULL`,
        );
        expect(fill.rows).toEqual([{ relname: 'resources', reloptions: ['fillfactor=70'] }]);
      });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('migrates once when several hosts start on one fresh database at the same moment', async () => {
    const db = await createDatabase('race');
    const backends = await Promise.all(
      Array.from({ length: 4 }, () => PostgresBackend.open(db.url, 'w')),
    );
    try {
      const reports = await Promise.all(backends.map((b) => b.ready()));
      expect(reports.filter((r) => r.from === 0)).toHaveLength(1);
      expect(
        await asSuperuser(
          db.name,
          async (c) =>
            (await c.query('SELECT count(*)::int AS n FROM twinworld.migrations')).rows[0].n,
        ),
      ).toBe(MIGRATIONS.length);
      // and they work on the same twin afterwards
      await Promise.all(backends.map(async (b) => increment(await b.openTwin('t'))));
      expect(await (await backends[0]!.openTwin('t')).head()).toBe(4);
    } finally {
      for (const b of backends) await b.close();
    }
  });

  it('on a fresh server, hosts migrating two databases at once create the cluster-wide roles once', async () => {
    const server = await startPostgresServer();
    try {
      const admin = new pg.Client(server.url);
      await admin.connect();
      await admin.query('CREATE DATABASE one');
      await admin.query('CREATE DATABASE two');
      await admin.end();
      const url = (name: string): string => server.url.replace(/\/postgres$/, `/${name}`);
      const backends = await Promise.all([
        PostgresBackend.open(url('one'), 'w'),
        PostgresBackend.open(url('two'), 'w'),
        PostgresBackend.open(url('one'), 'w'),
        PostgresBackend.open(url('two'), 'w'),
      ]);
      for (const b of backends) {
        await increment(await b.openTwin('t'));
        await b.close();
      }
      const check = new pg.Client(server.url);
      await check.connect();
      const roles = await check.query(
        `SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname LIKE 'twinworld%' ORDER BY rolname`,
      );
      await check.end();
      expect(roles.rows).toEqual([
        { rolname: 'twinworld_app', rolcanlogin: false },
        { rolname: 'twinworld_owner', rolcanlogin: false },
      ]);
    } finally {
      await server.stop();
    }
  });

  it('refuses a server older than PostgreSQL 12 by its version, before it migrates', async () => {
    // No server older than 12 runs here, so the check is held by its inputs: the version numbers
    // that server_version_num reports (11.22 is 110022; 12.0 is 120000).
    const at = { host: '127.0.0.1', port: 5999, database: 'd', user: 'u' };
    const old = (() => {
      try {
        checkServerVersion('110022', '11.22', at);
      } catch (error) {
        return error as TwinError;
      }
      throw new Error('11.22 was not refused');
    })();
    expect(old).toBeInstanceOf(TwinError);
    expect(old.code).toBe('STORE_SERVER_TOO_OLD');
    expect(old.message).toContain('127.0.0.1:5999 is version 11.22');
    expect(old.message).toContain('PostgreSQL 12 or later');
    expect(old.details).toMatchObject({ serverVersion: '11.22', serverVersionNum: 110022 });
    expect(() => checkServerVersion('119999', '11.99', at)).toThrow(/version 11\.99/);
    expect(OLDEST_SERVER).toBe(120_000);
    for (const [num, version] of [
      ['120000', '12.0'],
      ['180001', '18.1'],
    ])
      expect(() => checkServerVersion(num!, version!, at)).not.toThrow();
    // The server the tests run on answers what the check reads, and is let through.
    const db = await createDatabase('version');
    const backend = await PostgresBackend.open(db.url, 'w');
    const num = await asSuperuser(
      db.name,
      async (c) => (await c.query("SELECT current_setting('server_version_num') AS n")).rows[0].n,
    );
    expect(Number(num)).toBeGreaterThanOrEqual(OLDEST_SERVER);
    await backend.close();
  });

  it('refuses a schema newer than it knows, and leaves it untouched', async () => {
    const db = await createDatabase('newer');
    await (await PostgresBackend.open(db.url, 'w')).close();
    const future = SCHEMA_VERSION + 5;
    await asSuperuser(db.name, (c) =>
      c.query(
        `INSERT INTO twinworld.migrations (version, name) VALUES (${future}, 'from a later twinworld')`,
      ),
    );
    const error = await refusal(PostgresBackend.open(db.url, 'w'));
    expect(error.code).toBe('STORE_SCHEMA_TOO_NEW');
    expect(error.message).toContain(`version ${future}`);
    expect(error.message).toContain(`up to ${SCHEMA_VERSION}`);
    expect(error.details).toMatchObject({
      schemaVersion: future,
      knownVersion: SCHEMA_VERSION,
      database: db.name,
    });
    // every use of a lazily opened backend is refused the same way
    const lazy = new PostgresBackend(db.url, 'w');
    expect((await refusal(lazy.openTwin('t'))).code).toBe('STORE_SCHEMA_TOO_NEW');
    await lazy.close();
    expect(
      await asSuperuser(
        db.name,
        async (c) =>
          (await c.query('SELECT max(version) AS v FROM twinworld.migrations')).rows[0].v,
      ),
    ).toBe(future);
  });
});

describe('PostgreSQL: opening a database already at this version', () => {
  it('costs one connection, and one query before the session is set up', async () => {
    const db = await createDatabase('quickopen');
    await (await PostgresBackend.open(db.url, 'w')).close();
    const connects = vi.spyOn(pg.Client.prototype, 'connect');
    const queries = vi.spyOn(pg.Client.prototype, 'query');
    try {
      // a short-lived process: open the world, read the twin (its open), one write, close
      const world = openWorld({
        root: `postgres://test/${db.name}`,
        backend: new PostgresBackend(db.url, 'w'),
      });
      await world.twin('t').applyWrite({
        operation: 'thing.create',
        subjectType: 'thing',
        subjectId: 't1',
        fields: {},
      });
      await world.close();
      const sent = queries.mock.calls.map(([q]) =>
        typeof q === 'string' ? q : String((q as { text?: unknown }).text),
      );
      // the write took the session the twin's open read with, its COMMIT queued ahead
      expect(connects).toHaveBeenCalledTimes(1);
      // the schema's version, without the migration's transaction and lock; then the setup
      expect(sent[0]).toMatch(/^SELECT current_setting\('server_version_num'\).*max\(version\)/);
      expect(sent[1]).toMatch(/^SET ROLE twinworld_app;.* DO \$setup\$/);
      expect(
        sent.filter((q) => q === 'BEGIN' || q.startsWith('SELECT pg_advisory_xact_lock')),
      ).toEqual([]);
    } finally {
      connects.mockRestore();
      queries.mockRestore();
    }
  });
});

describe('PostgreSQL: refusals when connecting', () => {
  let db: { name: string; url: string };
  beforeAll(async () => {
    db = await createDatabase('conn');
    await (await PostgresBackend.open(db.url, 'w')).close();
  });

  it('refuses options that would fail every session or timer later, naming the option', () => {
    for (const [option, value] of [
      ['lockTimeoutMs', Number.NaN],
      ['lockTimeoutMs', 2 ** 31],
      ['slowSectionMs', 0],
      ['poolSize', 1.5],
      ['connectTimeoutMs', -1],
    ] as const)
      expect(() => new PostgresBackend(db.url, 'w', { [option]: value })).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          path: option,
          message: expect.stringContaining(`option ${option} must be`),
        }),
      );
  });

  it("names host, port and the driver's reason when nothing listens there", async () => {
    const port = await closedPort();
    const error = await refusal(
      PostgresBackend.open(`postgres://someone:secret-pw@127.0.0.1:${port}/db`, 'w'),
    );
    expect(error.code).toBe('STORE_UNREACHABLE');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toMatch(/connection refused/);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.details).toMatchObject({ host: '127.0.0.1', port, driverCode: 'ECONNREFUSED' });
    expect(JSON.stringify(error.toJSON())).not.toContain('secret-pw');
  });

  it('names the host and port given as ?host= and ?port=, where the driver connects', async () => {
    const port = await closedPort();
    // Was: "localhost:5432", the URL's empty host part, though the driver tried 127.0.0.1:port.
    const error = await refusal(
      PostgresBackend.open(`postgres:///db?host=127.0.0.1&port=${port}&user=someone`, 'w'),
    );
    expect(error.code).toBe('STORE_UNREACHABLE');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.details).toMatchObject({ host: '127.0.0.1', port });
  });

  it('says authentication failed for a wrong password, without the password', async () => {
    const url = new URL(db.url);
    url.password = 'not-the-password';
    const error = await refusal(PostgresBackend.open(url.toString(), 'w'));
    expect(error.code).toBe('STORE_AUTH_FAILED');
    expect(error.message).toContain('"postgres"');
    expect(error.message).toMatch(/password authentication failed/);
    expect(JSON.stringify(error.toJSON())).not.toContain('not-the-password');
    expect(error.details).toMatchObject({ driverCode: '28P01' });
  });

  it('says authentication failed for a user that does not exist', async () => {
    const url = new URL(db.url);
    url.username = uniqueName('nobody_here');
    expect((await refusal(PostgresBackend.open(url.toString(), 'w'))).code).toBe(
      'STORE_AUTH_FAILED',
    );
  });

  it('names a database that does not exist', async () => {
    const missing = uniqueName('missing');
    const error = await refusal(PostgresBackend.open(urlFor(missing), 'w'));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain(`no database "${missing}"`);
    expect(error.path).toBe('store');
  });

  it('refuses what is not a PostgreSQL URL, and bad world and twin names, before connecting', async () => {
    expect(() => new PostgresBackend('not a url', 'w')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', path: 'store' }),
    );
    expect(() => new PostgresBackend('mysql://h/db', 'w')).toThrow(/postgres:\/\//);
    expect(() => new PostgresBackend(db.url, '')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'world' }),
    );
    const backend = new PostgresBackend(db.url, 'w');
    await expect(backend.openTwin('bad name')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      path: 'twin',
    });
    await backend.close();
  });

  it('says which permission is missing for a login that is no member of twinworld_app', async () => {
    const login = await createLogin([]);
    const error = await refusal(PostgresBackend.open(urlFor(db.name, login), 'w'));
    expect(error.code).toBe('STORE_PERMISSION_DENIED');
    expect(error.message).toContain(`"${login.user}"`);
    expect(error.message).toMatch(/permission denied/);
    expect(error.message).toContain(`GRANT twinworld_app TO "${login.user}"`);
  });

  it('an app login works on a migrated database but may not migrate a fresh one', async () => {
    const login = await createLogin();
    const app = await PostgresBackend.open(urlFor(db.name, login), 'w');
    try {
      const store = await app.openTwin('t');
      expect(await increment(store)).toBe(1);
      expect(await store.head()).toBe(1);
    } finally {
      await app.close();
    }
    const fresh = await createDatabase('fresh');
    const error = await refusal(PostgresBackend.open(urlFor(fresh.name, login), 'w'));
    expect(error.code).toBe('STORE_PERMISSION_DENIED');
    expect(error.message).toContain('needs version');
    expect(error.message).toContain('twinworld_owner');
  });
});

/** Waits until some session of `database` waits on an advisory lock (what a blocked section does). */
async function someoneWaitsOnAdvisoryLock(database: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const waiting = await asSuperuser(
      'postgres',
      async (c) =>
        (
          await c.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
            [database],
          )
        ).rows[0].n,
    );
    if (waiting > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no session ever waited on the advisory lock');
}

describe('PostgreSQL: the advisory lock', () => {
  it('keys (world, twin) the same way on every host and version', () => {
    expect(twinLockKey('w', 't')).toBe(-6791866212930336807n);
    expect(twinLockKey('w', 't')).not.toBe(twinLockKey('w', 'u'));
    expect(twinLockKey('w1', 't')).not.toBe(twinLockKey('w', '1t'));
  });

  it('holds a twin against a section from another pool until commit, while other twins go on', async () => {
    const db = await createDatabase('lock');
    const one = await PostgresBackend.open(db.url, 'w');
    const two = await PostgresBackend.open(db.url, 'w');
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const hasLock = new Promise<void>((r) => (locked = r));
      const holding = (await one.openTwin('t')).transact(async (tx) => {
        // the transaction (and its lock) starts with the section's first read
        expect(await tx.head()).toBe(0);
        locked();
        await gate;
        const e = entry(1, 'counter', 'c', { value: 1 });
        tx.append(e, canonicalJson(e));
        tx.putResource(resource('counter', 'c', 1, { value: 1 }), { remove: [], add: [] }, 1);
      });
      await hasLock;
      const waiting = increment(await two.openTwin('t'));
      await someoneWaitsOnAdvisoryLock(db.name);
      expect(await increment(await two.openTwin('u'))).toBe(1);
      release();
      await holding;
      expect(await waiting).toBe(2);
      expect(
        (
          await (
            await one.openTwin('t')
          ).transact((tx) => tx.readEntries(0, 10), { readOnly: true })
        ).map((e) => e.fields?.value),
      ).toEqual([1, 2]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('gives up after lockTimeoutMs with STORE_BUSY, writing nothing', async () => {
    const db = await createDatabase('busy');
    const one = await PostgresBackend.open(db.url, 'w');
    const two = await PostgresBackend.open(db.url, 'w', { lockTimeoutMs: 300 });
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const hasLock = new Promise<void>((r) => (locked = r));
      const holding = (await one.openTwin('t')).transact(async (tx) => {
        await tx.head();
        locked();
        await gate;
      });
      await hasLock;
      const error = await refusal(increment(await two.openTwin('t')));
      release();
      await holding;
      expect(error.code).toBe('STORE_BUSY');
      expect(error.message).toContain('twin "t"');
      expect(await (await two.openTwin('t')).head()).toBe(0);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('PostgreSQL: text it cannot hold, and byte order whatever the database collation', () => {
  it('refuses a NUL in an id or a tenant before anything is sent, and keeps index keys PostgreSQL cannot hold distinct', async () => {
    const db = await sharedDatabase();
    const backend = await PostgresBackend.open(db, uniqueName('w'));
    try {
      const store = await backend.openTwin('t');
      const error = await refusal(
        store.transact((tx) =>
          tx.putResource(resource('customer', 'cus\u0000x', 1), { remove: [], add: [] }),
        ),
      );
      expect(error).toMatchObject({ code: 'INVALID_WRITE', path: 'resource.id' });
      // the tenant a row is stored under is text too, named in the fields or in their envelope
      const named: JsonObject[] = [
        { tenantId: 'a\u0000b' },
        { envelope: { tenantId: 'a\u0000b' } },
      ];
      for (const fields of named)
        expect(
          await refusal(
            store.transact((tx) =>
              tx.putResource(resource('customer', 'cus_t', 1, fields), { remove: [], add: [] }),
            ),
          ),
        ).toMatchObject({ code: 'INVALID_WRITE', path: 'fields.tenantId' });
      const keys = [
        'plain',
        'back\\slash',
        'nul\u0000',
        JSON.stringify('nul\u0000'),
        `\\${JSON.stringify('nul\u0000')}`,
        'lone\ud800',
        'lone\ufffd',
      ];
      await store.transact((tx) =>
        keys.forEach((key, i) =>
          tx.putResource(resource('x', `r${i}`, 1), { remove: [], add: [{ name: 'k', key }] }),
        ),
      );
      for (const [i, key] of keys.entries())
        expect(
          (await store.transact((tx) => tx.lookup('x', 'k', key), { readOnly: true })).map(
            (r) => r.id,
          ),
        ).toEqual([`r${i}`]);
      expect(await store.head()).toBe(0);
      // a write section right after a read: the read's session, its COMMIT queued ahead
      expect(await store.transact((tx) => tx.head())).toBe(0);
    } finally {
      await backend.close();
    }
  });

  it('orders by UTF-8 bytes on a database whose default collation is ICU English', async () => {
    const db = await createDatabase(
      'icu',
      `TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`,
    );
    const sorted = await asSuperuser(db.name, async (c) =>
      (await c.query(`SELECT x FROM unnest(ARRAY['a', 'B', 'Z', 'b']) AS x ORDER BY x`)).rows.map(
        (r) => r.x,
      ),
    );
    expect(sorted).toEqual(['a', 'b', 'B', 'Z']); // the database's own order is not byte order…
    const backend = await PostgresBackend.open(db.url, 'w');
    try {
      const store = await backend.openTwin('t');
      const ids = ['a', 'B', 'Z', 'b', '\u00e9', 'e', 'E', '\u{1F600}', '\uffee'];
      await store.transact((tx) =>
        ids.forEach((id, i) =>
          tx.putResource(resource(i % 2 === 0 ? 'T' : 't', id, i + 1), { remove: [], add: [] }),
        ),
      );
      const live = [];
      for await (const r of store.liveResources()) live.push(`${r.type}/${r.id}`);
      const bytes = (s: string): Buffer => Buffer.from(s);
      expect(live).toEqual(
        ids
          .map((id, i) => `${i % 2 === 0 ? 'T' : 't'}/${id}`)
          .sort((p, q) => Buffer.compare(bytes(p), bytes(q))),
      );
      expect(await twinHashOrder(store)).toEqual(live); // …but the backend's is
      // and so the state hash is the one memory and SQLite compute from the same resources
      const resources = [];
      for await (const r of store.liveResources()) resources.push(r);
      const expected = ids
        .map((id, i) => resource(i % 2 === 0 ? 'T' : 't', id, i + 1))
        .sort(compareResources);
      expect(stateHash(resources)).toBe(stateHash(expected));
    } finally {
      await backend.close();
    }
  });
});

async function twinHashOrder(
  store: Awaited<ReturnType<PostgresBackend['openTwin']>>,
): Promise<string[]> {
  const types = ['T', 't'];
  const out: string[] = [];
  for (const t of types)
    for (const r of await store.transact((tx) => tx.listResources(t), { readOnly: true }))
      out.push(`${r.type}/${r.id}`);
  return out;
}

describe('PostgreSQL: round trips', () => {
  it('a section whose reads go out together costs two queries; one that does nothing, none; blind writes, one', async () => {
    const backend = await PostgresBackend.open(await sharedDatabase(), uniqueName('w'), {
      poolSize: 1,
    });
    try {
      const store = await backend.openTwin('t');
      await increment(store); // the pooled session is set up
      const queries = vi.spyOn(pg.Client.prototype, 'query');
      try {
        const value = await store.transact(async (tx) => {
          // BEGIN, the lock, the head and all three reads: one multi-statement query
          const [head, counter, meta] = await Promise.all([
            tx.head(),
            tx.getResource('counter', 'c'),
            tx.getMeta('m'),
          ]);
          const next = Number(counter?.fields.value) + 1;
          const e = entry(head + 1, 'counter', 'c', { value: next });
          tx.append(e, canonicalJson(e));
          tx.putResource(
            resource('counter', 'c', head + 1, { value: next }),
            { remove: [], add: [{ name: 'byValue', key: String(next) }] },
            head + 1,
          );
          tx.setMeta('m', `${meta ?? ''}x`);
          return next; // the writes and COMMIT: one more
        });
        expect(value).toBe(2);
        expect(queries).toHaveBeenCalledTimes(2);
        queries.mockClear();
        expect(await store.transact(() => 'nothing')).toBe('nothing');
        expect(queries).toHaveBeenCalledTimes(0);
        await store.transact((tx) => tx.setMeta('blind', '1'));
        expect(queries).toHaveBeenCalledTimes(1);
      } finally {
        queries.mockRestore();
      }
      expect(await store.transact((tx) => tx.getMeta('blind'), { readOnly: true })).toBe('1');
      expect(await store.transact((tx) => tx.getMeta('m'), { readOnly: true })).toBe('x');
      expect(
        (
          await store.transact((tx) => tx.lookup('counter', 'byValue', '2'), { readOnly: true })
        ).map((r) => r.id),
      ).toEqual(['c']);
      expect(await store.head()).toBe(2);
    } finally {
      await backend.close();
    }
  });

  it('a section that appends without reading first still checks its entries against the head', async () => {
    const backend = await PostgresBackend.open(await sharedDatabase(), uniqueName('w'));
    try {
      const store = await backend.openTwin('t');
      await store.transact((tx) => tx.append(entry(1), canonicalJson(entry(1))));
      const error = await refusal(
        store.transact((tx) => tx.append(entry(5), canonicalJson(entry(5)))),
      );
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', path: 'entry.seq' });
      expect(error.message).toContain('does not follow head 1');
      expect(await store.head()).toBe(1);
    } finally {
      await backend.close();
    }
  });
});
