// pg-drivers: the two well-kept PostgreSQL drivers (`pg`, `postgres`) on the atomic-write shape —
// BEGIN; pg_advisory_xact_lock; read a row; insert an entry row + upsert a resource row; COMMIT —
// each written both the plain way (await every statement) and its fastest way (fewest round trips),
// against a throwaway local server, rounds interleaved in one process.
//   npm run build && node dist/bench/run.js pg-drivers
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import postgres from 'postgres';
import type { Entry } from '../src/log/write.js';
import type { TwinStore } from '../src/storage/port.js';
import { PostgresBackend } from '../src/storage/postgres/index.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { entryLine } from './fixtures.js';
import { fmt, median, method, note, nowNs, settle, sinceNs, type Benchmark } from './measure.js';

const OPS = 1_000;
const WARMUP = 200;
const ROUNDS = 7;
const LOCK_KEY = 7_171_717n;

const SCHEMA = `
CREATE TABLE entries (world text NOT NULL, twin text NOT NULL, seq bigint NOT NULL, body text NOT NULL, PRIMARY KEY (world, twin, seq));
CREATE TABLE resources (world text NOT NULL, twin text NOT NULL, type text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL,
  version bigint NOT NULL, fields text NOT NULL, PRIMARY KEY (world, twin, type, id));
`;
const READ = `SELECT version FROM resources WHERE world = $1 AND twin = $2 AND type = 'counter' AND id = 'c1'`;
const INSERT = 'INSERT INTO entries (world, twin, seq, body) VALUES ($1, $2, $3, $4)';
const UPSERT =
  `INSERT INTO resources (world, twin, type, id, version, fields) VALUES ($1, $2, 'counter', 'c1', $3, $4) ` +
  'ON CONFLICT (world, twin, type, id) DO UPDATE SET version = excluded.version, fields = excluded.fields';

interface Variant {
  readonly name: string;
  one(): Promise<void>;
  close(): Promise<void>;
}

function nextWrite(
  twin: string,
  version: number | undefined,
): { seq: number; body: string; fields: string } {
  const seq = (version ?? 0) + 1;
  return {
    seq,
    body: entryLine(seq, twin, 'counter.increment', 'counter', 'c1', { value: seq }),
    fields: JSON.stringify({ value: seq }),
  };
}

/** pg, one awaited statement per round trip (6 per action). */
function pgSequential(url: string, twin: string): Variant {
  const client = new pg.Client(url);
  let connected: Promise<unknown> | undefined;
  return {
    name: 'pg, statement by statement',
    async one() {
      await (connected ??= client.connect());
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY.toString()]);
        const row = (await client.query<{ version: string }>(READ, ['w', twin])).rows[0];
        const w = nextWrite(twin, row === undefined ? undefined : Number(row.version));
        await client.query(INSERT, ['w', twin, w.seq, w.body]);
        await client.query(UPSERT, ['w', twin, w.seq, w.fields]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    close: () => client.end(),
  };
}

/** pg, two round trips: multi-statement simple queries with the values as escaped literals. */
function pgBatched(url: string, twin: string): Variant {
  const client = new pg.Client(url);
  let connected: Promise<unknown> | undefined;
  const lit = (s: string): string => client.escapeLiteral(s);
  return {
    name: 'pg, 2 round trips (multi-statement)',
    async one() {
      await (connected ??= client.connect());
      const results = (await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${LOCK_KEY}); SELECT version FROM resources WHERE world = 'w' AND twin = ${lit(twin)} AND type = 'counter' AND id = 'c1'`,
      )) as unknown as pg.QueryResult<{ version: string }>[];
      const row = results[2]!.rows[0];
      const w = nextWrite(twin, row === undefined ? undefined : Number(row.version));
      await client.query(
        `INSERT INTO entries (world, twin, seq, body) VALUES ('w', ${lit(twin)}, ${w.seq}, ${lit(w.body)}); ` +
          `INSERT INTO resources (world, twin, type, id, version, fields) VALUES ('w', ${lit(twin)}, 'counter', 'c1', ${w.seq}, ${lit(w.fields)}) ` +
          'ON CONFLICT (world, twin, type, id) DO UPDATE SET version = excluded.version, fields = excluded.fields; COMMIT',
      );
    },
    close: () => client.end(),
  };
}

/** pg in pipeline mode (8.23+): parameterized statements sent without waiting share round trips. */
function pgPipelined(url: string, twin: string): Variant {
  const client = new pg.Client({ connectionString: url, pipeline: true });
  let connected: Promise<unknown> | undefined;
  return {
    name: 'pg, 2 round trips (pipeline mode)',
    async one() {
      await (connected ??= client.connect());
      const [, , read] = await Promise.all([
        client.query('BEGIN'),
        client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY.toString()]),
        client.query<{ version: string }>(READ, ['w', twin]),
      ]);
      const row = read.rows[0];
      const w = nextWrite(twin, row === undefined ? undefined : Number(row.version));
      try {
        await Promise.all([
          client.query(INSERT, ['w', twin, w.seq, w.body]),
          client.query(UPSERT, ['w', twin, w.seq, w.fields]),
          client.query('COMMIT'),
        ]);
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    close: () => client.end(),
  };
}

/** The backend itself: transact, head + getResource together, append + putResource, commit. */
function backendSection(url: string, twin: string): Variant {
  const backend = new PostgresBackend(url, 'w');
  let store: Promise<TwinStore> | undefined;
  return {
    name: 'twinworld PostgresBackend section (2 round trips)',
    async one() {
      const s = await (store ??= backend.openTwin(twin));
      await s.transact(async (tx) => {
        // issued together: BEGIN, the lock, the head and the read share one round trip
        const [head, counter] = await Promise.all([tx.head(), tx.getResource('counter', 'c1')]);
        const seq = head + 1;
        const value = Number(counter?.fields.value ?? 0) + 1;
        const body = entryLine(seq, twin, 'counter.increment', 'counter', 'c1', { value });
        tx.append(JSON.parse(body) as Entry, body);
        tx.putResource(
          { type: 'counter', id: 'c1', version: seq, deleted: false, fields: { value } },
          { remove: [], add: [] },
          seq,
        );
      });
    },
    close: () => backend.close(),
  };
}

/** postgres, sql.begin with every statement awaited. */
function pjsSequential(url: string, twin: string): Variant {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  return {
    name: 'postgres, statement by statement',
    async one() {
      await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${LOCK_KEY.toString()})`;
        const [row] = await tx.unsafe<{ version: string }[]>(READ, ['w', twin]);
        const w = nextWrite(twin, row === undefined ? undefined : Number(row.version));
        await tx.unsafe(INSERT, ['w', twin, w.seq, w.body]);
        await tx.unsafe(UPSERT, ['w', twin, w.seq, w.fields]);
      });
    },
    close: () => sql.end(),
  };
}

/** postgres, two round trips: statements sent without waiting are pipelined on one connection. */
function pjsPipelined(url: string, twin: string): Variant {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let reserved: Promise<postgres.ReservedSql> | undefined;
  return {
    name: 'postgres, 2 round trips (pipelined)',
    async one() {
      const conn = await (reserved ??= sql.reserve());
      const [, , rows] = await Promise.all([
        conn.unsafe('BEGIN'),
        conn`SELECT pg_advisory_xact_lock(${LOCK_KEY.toString()})`,
        conn.unsafe<{ version: string }[]>(READ, ['w', twin]),
      ]);
      const row = rows[0];
      const w = nextWrite(twin, row === undefined ? undefined : Number(row.version));
      try {
        await Promise.all([
          conn.unsafe(INSERT, ['w', twin, w.seq, w.body]),
          conn.unsafe(UPSERT, ['w', twin, w.seq, w.fields]),
          conn.unsafe('COMMIT'),
        ]);
      } catch (error) {
        await conn.unsafe('ROLLBACK');
        throw error;
      }
    },
    async close() {
      if (reserved !== undefined) (await reserved).release();
      await sql.end();
    },
  };
}

async function rate(variant: Variant): Promise<number> {
  const start = nowNs();
  for (let i = 0; i < OPS; i++) await variant.one();
  return OPS / (sinceNs(start) / 1e9);
}

export const bench: Benchmark = {
  name: 'pg-drivers',
  async run() {
    method(
      `${OPS} actions per round, median of ${ROUNDS} rounds, rounds interleaved, one connection per variant, throwaway local server (fsync off). ` +
        'action: BEGIN; pg_advisory_xact_lock; read the counter row; insert an entry row (canonical entry line); upsert the counter row; COMMIT. ' +
        'baseline: pg with every statement awaited in turn. Last line: the backend itself on the same shape (as twinworld_app, row-level security on).',
    );
    const server = await startPostgresServer();
    try {
      const admin = new pg.Client(server.url);
      await admin.connect();
      await admin.query(SCHEMA);
      await admin.end();
      note(
        `server: ${server.binaries}, running as ${server.runAs}; pg ${pgVersion()}, postgres ${pjsVersion()}`,
      );
      // Each variant writes its own twin, so all share the tables and the lock key fairly.
      const variants = [
        pgSequential(server.url, 'pg-seq'),
        pgBatched(server.url, 'pg-batch'),
        pgPipelined(server.url, 'pg-pipe'),
        pjsSequential(server.url, 'pjs-seq'),
        pjsPipelined(server.url, 'pjs-pipe'),
        backendSection(server.url, 'twinworld'),
      ];
      try {
        for (const v of variants) for (let i = 0; i < WARMUP; i++) await v.one();
        const rates = variants.map(() => [] as number[]);
        for (let round = 0; round < ROUNDS; round++) {
          for (let i = 0; i < variants.length; i++) {
            await settle();
            rates[i]!.push(await rate(variants[i]!));
          }
        }
        const medians = rates.map(median);
        const baseline = medians[0]!;
        variants.forEach((v, i) => {
          const m = medians[i]!;
          console.log(
            `${v.name}  ${fmt(m)} actions/s  (${(m / baseline).toFixed(2)}x vs pg statement by statement)`,
          );
        });
      } finally {
        for (const v of variants) await v.close();
      }
    } finally {
      await server.stop();
    }
  },
};

function pgVersion(): string {
  return readVersion('pg');
}

function pjsVersion(): string {
  return readVersion('postgres');
}

function readVersion(pkg: string): string {
  try {
    return (
      JSON.parse(
        readFileSync(
          join(dirname(fileURLToPath(import.meta.resolve(pkg))), '..', 'package.json'),
          'utf8',
        ),
      ) as { version: string }
    ).version;
  } catch {
    return '?';
  }
}
