// Brings a database's `twinworld` schema up to this version: one transaction, under an advisory lock,
// so hosts that start at once migrate one after the other and the later ones find nothing to do. A
// database already at this version is told in one round trip, with no lock and no transaction. A
// schema newer than this code knows is refused, never touched, and so is a server older than the
// sessions' setup can run on.
import type pg from 'pg';
import { MIGRATION_LOCK_KEY } from './lock-key.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import { connectError, storeError, type Endpoint } from './store-error.js';
import { int, lit } from './sql-text.js';

export interface MigrationReport {
  readonly from: number;
  readonly to: number;
}

async function currentVersion(client: pg.Client): Promise<number> {
  const present = await client.query<{ present: boolean }>(
    `SELECT to_regclass('twinworld.migrations') IS NOT NULL AS present`,
  );
  if (present.rows[0]?.present !== true) return 0;
  const row = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM twinworld.migrations',
  );
  return row.rows[0]?.version ?? 0;
}

/**
 * The oldest server a pooled session can be set up on: `plan_cache_mode` (connection.ts) is new in
 * PostgreSQL 12, and older servers refuse the whole setup with an unknown-parameter error.
 */
export const OLDEST_SERVER = 120_000;

/**
 * Refuses a server older than OLDEST_SERVER, by its `server_version_num` (e.g. `110022` for 11.22),
 * before anything is migrated: the refusal names the version, not a setting the user never chose.
 */
export function checkServerVersion(versionNum: string, version: string, at: Endpoint): void {
  const num = Number(versionNum);
  if (!Number.isSafeInteger(num) || num >= OLDEST_SERVER) return;
  throw storeError(
    'STORE_SERVER_TOO_OLD',
    `the PostgreSQL server at ${at.host}:${at.port} is version ${version}; twinworld needs PostgreSQL 12 or later ` +
      '(its sessions keep one generic plan per statement, plan_cache_mode) — upgrade the server, or use a SQLite root',
    {
      details: { host: at.host, port: at.port, serverVersion: version, serverVersionNum: num },
    },
  );
}

/**
 * The server's version and the schema's, in one round trip, without the migration lock: what every
 * open of a database already at this version needs to know. Undefined where the schema's version
 * cannot be read (a fresh database, a user who may not see it): the locked path finds out.
 */
async function quickLook(
  client: pg.Client,
): Promise<{ num: string; version: string; schema: number | null } | undefined> {
  try {
    const { rows } = await client.query<{ num: string; version: string; schema: number | null }>(
      "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version, " +
        '(SELECT max(version) FROM twinworld.migrations) AS schema',
    );
    return rows[0];
  } catch {
    return undefined;
  }
}

export async function migrate(client: pg.Client, at: Endpoint): Promise<MigrationReport> {
  let from = 0;
  let applying = false;
  try {
    const quick = await quickLook(client);
    if (quick?.schema === SCHEMA_VERSION) {
      checkServerVersion(quick.num, quick.version, at);
      return { from: SCHEMA_VERSION, to: SCHEMA_VERSION };
    }
    const server = await client.query<{ num: string; version: string }>(
      "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version",
    );
    checkServerVersion(server.rows[0]!.num, server.rows[0]!.version, at);
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    from = await currentVersion(client);
    if (from > SCHEMA_VERSION) {
      throw storeError(
        'STORE_SCHEMA_TOO_NEW',
        `the twinworld schema in database "${at.database}" at ${at.host}:${at.port} is at version ${from}, newer than this twinworld knows (up to ${SCHEMA_VERSION}); upgrade twinworld, or use another database`,
        {
          details: {
            host: at.host,
            port: at.port,
            database: at.database,
            schemaVersion: from,
            knownVersion: SCHEMA_VERSION,
          },
        },
      );
    }
    applying = true;
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      if (m.asConnectingUser !== undefined) await client.query(m.asConnectingUser);
      await client.query('SET LOCAL ROLE twinworld_owner');
      await client.query(m.asOwner);
      await client.query(
        `INSERT INTO twinworld.migrations (version, name) VALUES (${int(m.version)}, ${lit(m.name)})`,
      );
      await client.query('RESET ROLE');
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, SCHEMA_VERSION) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    const mapped = connectError(error, at);
    if (applying && mapped.code === ('STORE_PERMISSION_DENIED' as typeof mapped.code)) {
      throw storeError(
        'STORE_PERMISSION_DENIED',
        `the twinworld schema in database "${at.database}" at ${at.host}:${at.port} is at version ${from} and needs version ${SCHEMA_VERSION}, but user "${at.user}" may not migrate it ` +
          `(${String(mapped.details?.reason)}); connect once as a user that is a member of twinworld_owner and may create in the database ` +
          '(and may create roles, if twinworld_owner and twinworld_app do not exist yet); see src/storage/postgres/README.md',
        {
          details: { ...mapped.details, schemaVersion: from, knownVersion: SCHEMA_VERSION },
          cause: error,
        },
      );
    }
    throw mapped;
  }
}
