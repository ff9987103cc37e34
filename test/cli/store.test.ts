// `--store URL` and TWINWORLD_STORE through the built binary, against the throwaway PostgreSQL server
// and real SQLite roots: which store a command runs on, the usage errors, the refusals a database can
// give (each named, none leaking the password), three processes writing at once, and export/import
// across backends keeping the state hash.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { SCHEMA_VERSION } from '../../src/storage/postgres/index.js';
import { tempDir } from '../support/backends.js';
import { startReceiver } from '../support/receiver.js';
import {
  asSuperuser,
  createDatabase,
  createLogin,
  uniqueName,
  urlFor,
} from '../storage/postgres-support.js';

const BIN = resolve('dist/src/cli/main.js');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function tw(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  return new Promise<Run>((done, fail) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    if (options.env?.TWINWORLD_STORE === undefined) delete env.TWINWORLD_STORE;
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', fail);
    child.on('exit', (status) => done({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

const customer = (id: string, fields: Record<string, unknown> = {}): string =>
  JSON.stringify({ operation: 'customer.create', subjectType: 'customer', subjectId: id, fields });

/** A world of its own in `url`'s database. */
function inWorld(url: string, world = uniqueName('w')): string {
  const u = new URL(url);
  u.searchParams.set('world', world);
  return u.toString();
}

/** A free loopback port with nothing listening on it. */
function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => done(port));
    });
  });
}

let db: { name: string; url: string };
let dir: string;
beforeAll(async () => {
  db = await createDatabase('cli');
  dir = tempDir('twinworld-cli-store-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('choosing the store', () => {
  it('--store postgres:// keeps the world in the database; ?world= picks one of several', async () => {
    const store = inWorld(db.url);
    const w = await tw(['write', 'stripe', '--store', store, '--data', customer('cus_1')]);
    expect(w.stderr).toBe('');
    expect(w.status).toBe(0);
    expect((await tw(['log', 'stripe', '--store', store])).stdout).toContain('customer/cus_1');
    const world = new URL(store).searchParams.get('world')!;
    const rows = await asSuperuser(db.name, (c) =>
      c.query('SELECT twin, seq::int AS seq FROM twinworld.entries WHERE world = $1', [world]),
    );
    expect(rows.rows).toEqual([{ twin: 'stripe', seq: 1 }]);
    // another world in the same database holds nothing
    const other = await tw(['log', 'stripe', '--store', inWorld(db.url)]);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/^error UNKNOWN_TWIN: no twin "stripe" in the world at postgres:/);
    // the label names the world but never the password
    expect(other.stderr).not.toContain(new URL(db.url).password);
    expect(other.stderr).toContain(`@${new URL(db.url).host}/${db.name}?world=`);
  });

  it('a folder, sqlite:DIR and --root DIR are the same SQLite root', async () => {
    const root = join(dir, 'same');
    expect((await tw(['write', 'stripe', '--store', root, '-d', customer('a')])).status).toBe(0);
    expect(
      (await tw(['write', 'stripe', '--store', `sqlite:${root}`, '-d', customer('b')])).status,
    ).toBe(0);
    expect((await tw(['write', 'stripe', '--root', root, '-d', customer('c')])).status).toBe(0);
    expect(existsSync(join(root, 'twins'))).toBe(true);
    const log = await tw(['log', 'stripe', '--root', root, '--json']);
    expect(JSON.parse(log.stdout).map((e: { subjectId: string }) => e.subjectId)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('TWINWORLD_STORE is used when neither --root nor --store is given, and either flag wins over it', async () => {
    const store = inWorld(db.url);
    const env = { TWINWORLD_STORE: store };
    expect((await tw(['write', 'github', '-d', customer('x')], { env })).status).toBe(0);
    expect((await tw(['hash', 'github', '--store', store])).status).toBe(0);
    const root = join(dir, 'flag-wins');
    expect(
      (await tw(['write', 'github', '--root', root, '-d', customer('y')], { env })).status,
    ).toBe(0);
    const fromRoot = await tw(['log', 'github', '--root', root, '--json'], { env });
    expect(JSON.parse(fromRoot.stdout)).toHaveLength(1);
    const fromEnv = await tw(['log', 'github', '--json'], { env });
    expect(JSON.parse(fromEnv.stdout).map((e: { subjectId: string }) => e.subjectId)).toEqual([
      'x',
    ]);
    // sqlite:DIR in the variable too
    const viaEnv = join(dir, 'via-env');
    const w = await tw(['write', 'slack', '-d', customer('z')], {
      env: { TWINWORLD_STORE: `sqlite:${viaEnv}` },
    });
    expect(w.status).toBe(0);
    expect(existsSync(join(viaEnv, 'twins'))).toBe(true);
  });

  it('--root and --store together are a usage error naming both, without the password', async () => {
    const r = await tw(['log', 'stripe', '--root', join(dir, 'x'), '--store', db.url]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--root');
    expect(r.stderr).toContain('--store');
    expect(r.stderr).toMatch(/give either --root DIR or --store URL, not both/);
    expect(r.stderr).not.toContain(new URL(db.url).password);
    const json = await tw(['log', 'stripe', '--root', 'x', '--store', 'y', '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'USAGE' });
  });

  it('refuses a store it cannot read as one: another scheme, an empty value, a bad world name', async () => {
    const mysql = await tw(['log', 'stripe', '--store', 'mysql://h/db']);
    expect(mysql.status).toBe(2);
    expect(mysql.stderr).toMatch(/--store must be a postgres:\/\/… URL, sqlite:DIR or a folder/);
    expect((await tw(['log', 'stripe', '--store', ''])).stderr).toMatch(
      /--store must not be empty/,
    );
    const env = await tw(['log', 'stripe'], { env: { TWINWORLD_STORE: 'redis://h' } });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/TWINWORLD_STORE must be a postgres:\/\/… URL/);
    const world = await tw(['log', 'stripe', '--store', `${db.url}?world=no%20spaces`]);
    expect(world.status).toBe(2);
    expect(world.stderr).toMatch(/\?world=no spaces is not a world name/);
  });

  it('refuses a query parameter nothing reads (it wrote to the world "default"), and ?world= twice', async () => {
    const world = uniqueName('typo');
    const typo = await tw([
      'write',
      'stripe',
      '--store',
      `${db.url}?wrld=${world}`,
      '-d',
      customer('t'),
    ]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(
      /^error USAGE: --store: \?wrld= is not a parameter a store URL takes \(did you mean "world"\?\); \?world=NAME picks the world, and the PostgreSQL driver reads host, port, /,
    );
    const fromEnv = await tw(['log', 'stripe'], {
      env: { TWINWORLD_STORE: `${db.url}?wrold=${world}&pasword=hunter2` },
    });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toMatch(/TWINWORLD_STORE: \?wrold= is not a parameter/);
    expect(fromEnv.stderr).not.toContain('hunter2');
    const twice = await tw(['log', 'stripe', '--store', `${db.url}?world=a&world=b`]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/--store: \?world= is given more than once/);
    const written = await asSuperuser(db.name, (c) =>
      c.query("SELECT count(*)::int AS n FROM twinworld.entries WHERE world = 'default'"),
    );
    expect(written.rows).toEqual([{ n: 0 }]);
    // a parameter the driver reads still passes through
    const named = `${inWorld(db.url, world)}&application_name=twinworld-test`;
    const w = await tw(['write', 'stripe', '--store', named, '-d', customer('t')]);
    expect(w.stderr).toBe('');
    expect(w.status).toBe(0);
  });

  it('a password with an unescaped # or / is refused with how to write it, never printed', async () => {
    const hash = await tw([
      'log',
      'stripe',
      '--store',
      'postgres://app:s3cr#t99@127.0.0.1:5432/twins',
    ]);
    expect(hash.status).toBe(2);
    expect(hash.stderr).toMatch(
      /^error USAGE: --store holds a "#", which ends a URL, so what follows it would not be read; in the user and password, write # as %23, \//,
    );
    expect(hash.stderr).not.toContain('s3cr');
    // a # that still leaves a URL (here after the database) is refused too, before any connection
    const port = await closedPort();
    const cut = await tw([
      'log',
      'stripe',
      '--store',
      `postgres://app:pw@127.0.0.1:${port}/twins#x`,
    ]);
    expect(cut.status).toBe(2);
    expect(cut.stderr).toMatch(/--store holds a "#"/);
    const slash = await tw([
      'log',
      'stripe',
      '--store',
      'postgres://app:pa/ss99@127.0.0.1:5432/twins',
    ]);
    expect(slash.status).toBe(2);
    expect(slash.stderr).toMatch(/--store is not a valid URL; .* write # as %23, \/ as %2F, /);
    expect(slash.stderr).not.toContain('ss99');
  });

  it('every command lists --store in its help, and the main help names TWINWORLD_STORE', async () => {
    const main = await tw(['help']);
    expect(main.stdout).toContain('--store URL');
    expect(main.stdout).toContain('TWINWORLD_STORE');
    for (const command of ['write', 'export', 'import', 'deliveries', 'serve', 'tick', 'walk']) {
      const help = await tw([command, '--help']);
      expect(help.stdout).toMatch(/--store URL\s+where the world is kept: postgres:\/\//);
    }
  });
});

describe('what the database says, named through the CLI', () => {
  it("cannot connect: host, port and the driver's reason (exit 1)", async () => {
    const port = await closedPort();
    const url = new URL(db.url);
    url.port = String(port);
    const r = await tw(['log', 'stripe', '--store', url.toString()]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error STORE_UNREACHABLE: cannot connect to PostgreSQL at /);
    expect(r.stderr).toContain(`127.0.0.1:${port}`);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).not.toContain(url.password);
    const json = await tw(['write', 'stripe', '--store', url.toString(), '-d', customer('a')]);
    expect(json.status).toBe(1);
    expect(json.stderr).toContain('STORE_UNREACHABLE');
  });

  it('a wrong password is an authentication failure, and the password is not shown', async () => {
    const url = new URL(db.url);
    url.password = 'wrong-password-123';
    const r = await tw(['log', 'stripe', '--store', url.toString(), '--json']);
    expect(r.status).toBe(1);
    const error = JSON.parse(r.stderr);
    expect(error).toMatchObject({ error: 'STORE_AUTH_FAILED' });
    expect(error.message).toMatch(/refused user "postgres": password authentication failed/);
    expect(r.stderr).not.toContain('wrong-password-123');
  });

  it('a login without rights is told which permission is missing and what to grant', async () => {
    // the database is migrated by an earlier test's writes; this login is a member of nothing
    const login = await createLogin([]);
    const r = await tw(['log', 'stripe', '--store', urlFor(db.name, login)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error STORE_PERMISSION_DENIED: user "/);
    expect(r.stderr).toContain(`GRANT twinworld_app TO "${login.user}"`);
    expect(r.stderr).not.toContain(login.password);
  });

  it('an app login (member of twinworld_app) writes and reads on a migrated database', async () => {
    const login = await createLogin();
    const store = inWorld(urlFor(db.name, login));
    expect((await tw(['write', 'stripe', '--store', store, '-d', customer('a')])).status).toBe(0);
    expect((await tw(['state', 'stripe', '--store', store])).stdout).toContain('customer');
  });

  it('a schema newer than this twinworld is refused, naming both versions, and left as it is', async () => {
    const newer = await createDatabase('newer');
    const store = inWorld(newer.url);
    expect((await tw(['write', 'stripe', '--store', store, '-d', customer('a')])).status).toBe(0);
    const future = SCHEMA_VERSION + 1;
    await asSuperuser(newer.name, (c) =>
      c.query(`INSERT INTO twinworld.migrations (version, name) VALUES ($1, 'by hand')`, [future]),
    );
    const r = await tw(['log', 'stripe', '--store', store]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error STORE_SCHEMA_TOO_NEW: /);
    expect(r.stderr).toContain(`version ${future}`);
    expect(r.stderr).toContain(`up to ${SCHEMA_VERSION}`);
    expect((await tw(['write', 'stripe', '--store', store, '-d', customer('b')])).status).toBe(1);
    const versions = await asSuperuser(newer.name, (c) =>
      c.query('SELECT max(version) AS v FROM twinworld.migrations'),
    );
    expect(versions.rows[0].v).toBe(future);
  });

  it('a database that does not exist is named', async () => {
    const missing = uniqueName('missing');
    const r = await tw(['log', 'stripe', '--store', urlFor(missing)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error INVALID_CONFIG: PostgreSQL at`);
    expect(r.stderr).toContain(`no database "${missing}"`);
  });
});

describe('three processes writing at once', () => {
  it('`twinworld write --store postgres://…` from three processes leaves a dense log, each write whole', async () => {
    const store = inWorld(db.url);
    const ROUNDS = 6;
    const PER_WRITE = 3;
    const writer = async (label: string): Promise<number[]> => {
      const statuses: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const writes = Array.from({ length: PER_WRITE }, (_, k) =>
          JSON.parse(customer(`${label}_${round}_${k}`, { by: label, round })),
        );
        const r = await tw(['write', 'counter', '--store', store], {
          input: JSON.stringify(writes),
        });
        if (r.status !== 0) throw new Error(`writer ${label}: ${r.stderr}`);
        statuses.push(r.status);
      }
      return statuses;
    };
    await Promise.all(['a', 'b', 'c'].map(writer));
    const log = await tw(['log', 'counter', '--store', store, '--json']);
    const entries = JSON.parse(log.stdout) as {
      seq: number;
      fields: { by: string; round: number };
    }[];
    const total = 3 * ROUNDS * PER_WRITE;
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // each invocation's writes are one atomic action: consecutive, never interleaved with another's
    for (let i = 0; i < total; i += PER_WRITE) {
      const group = entries.slice(i, i + PER_WRITE);
      expect(new Set(group.map((e) => `${e.fields.by}/${e.fields.round}`)).size).toBe(1);
    }
    const byWriter = new Map<string, number>();
    for (const e of entries) byWriter.set(e.fields.by, (byWriter.get(e.fields.by) ?? 0) + 1);
    expect([...byWriter.entries()].sort()).toEqual([
      ['a', ROUNDS * PER_WRITE],
      ['b', ROUNDS * PER_WRITE],
      ['c', ROUNDS * PER_WRITE],
    ]);
  });
});

describe('export from one backend, import into the other', () => {
  async function fill(where: string[]): Promise<void> {
    const writes = [
      customer('cus_1', { name: 'Ada', tags: ['a', 'é', '😀'] }),
      customer('cus_2', { name: 'Grace' }),
      JSON.stringify({
        operation: 'customer.update',
        subjectType: 'customer',
        subjectId: 'cus_1',
        fields: { email: 'ada@example.com' },
      }),
      JSON.stringify({
        operation: 'customer.delete',
        subjectType: 'customer',
        subjectId: 'cus_2',
        delete: true,
      }),
    ];
    for (const w of writes) {
      const r = await tw(['write', 'stripe', ...where, '-d', w]);
      expect(r.stderr).toBe('');
    }
  }

  async function hashOf(where: string[]): Promise<string> {
    const r = await tw(['hash', 'stripe', ...where]);
    expect(r.status).toBe(0);
    return r.stdout.trim();
  }

  it('SQLite → PostgreSQL keeps the state hash and the log byte for byte', async () => {
    const root = ['--root', join(dir, 'export-sqlite')];
    await fill(root);
    const file = join(dir, 'from-sqlite.jsonl');
    expect((await tw(['export', 'stripe', ...root, '--out', file])).status).toBe(0);
    const pg = ['--store', inWorld(db.url)];
    const imported = await tw(['import', 'stripe', file, ...pg, '--json']);
    expect(imported.status).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ appended: 4, head: 4 });
    expect(await hashOf(pg)).toBe(await hashOf(root));
    expect(JSON.parse(imported.stdout).hash).toBe(await hashOf(root));
    const back = await tw(['export', 'stripe', ...pg]);
    expect(back.stdout).toBe(readFileSync(file, 'utf8'));
  });

  it('PostgreSQL → SQLite keeps the state hash and the log byte for byte', async () => {
    const pg = ['--store', inWorld(db.url)];
    await fill(pg);
    const exported = await tw(['export', 'stripe', ...pg]);
    expect(exported.status).toBe(0);
    const file = join(dir, 'from-pg.jsonl');
    writeFileSync(file, exported.stdout);
    const root = ['--store', `sqlite:${join(dir, 'import-sqlite')}`];
    const imported = await tw(['import', 'stripe', file, ...root]);
    expect(imported.status).toBe(0);
    expect(await hashOf(root)).toBe(await hashOf(pg));
    expect((await tw(['export', 'stripe', ...root])).stdout).toBe(exported.stdout);
  });
});

describe('import racing a writer on PostgreSQL', () => {
  // Four CLI processes and a 6k-entry import: on a loaded 2-core machine (two test files at once,
  // each process's start-up seconds long) this needs more than the suite's default minute.
  it(
    'is IMPORT_CONFLICT with how much was kept, never the store’s own words',
    { timeout: 180_000 },
    async () => {
      // a 6k-entry log, written by one process and exported from a SQLite root (twelve writer
      // processes of 500 entries each spent most of the minute starting up under load)
      const source = join(dir, 'race-source');
      const entries = Array.from({ length: 6_000 }, (_, k) => JSON.parse(customer(`c${k}`)));
      expect(
        (await tw(['write', 'stripe', '--root', source], { input: JSON.stringify(entries) }))
          .status,
      ).toBe(0);
      const file = join(dir, 'race.jsonl');
      expect((await tw(['export', 'stripe', '--root', source, '--out', file])).status).toBe(0);
      const store = inWorld(db.url);
      const world = new URL(store).searchParams.get('world')!;
      const importing = tw(['import', 'stripe', file, '--store', store]);
      // the writer starts once the import has committed its first batch, so they race mid-import
      for (let waited = 0; waited < 120_000; waited += 20) {
        // (before the import's first connection, the schema may not exist yet)
        const head = await asSuperuser(db.name, (c) =>
          c.query('SELECT head::int AS head FROM twinworld.twins WHERE world = $1', [world]),
        ).catch(() => ({ rows: [] as { head: number }[] }));
        if ((head.rows[0]?.head ?? 0) >= 1000) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const writer = spawn(
        process.execPath,
        [resolve('dist/test/support/append-worker.js'), store, 'stripe'],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const imported = await importing;
      writer.kill('SIGKILL');
      expect(imported.status).toBe(1);
      expect(imported.stderr).toMatch(/^error IMPORT_CONFLICT: /);
      expect(imported.stderr).toMatch(
        /another process appended to it while the import ran.*; \d+ entries were kept/,
      );
    },
  );
});

describe('secrets on PostgreSQL', () => {
  it('send keeps the endpoint secret in the database, not in a file, and the packet verifies', async () => {
    const receiver = await startReceiver(() => 200);
    const store = inWorld(db.url);
    const secret = 'whsec_pg_cli_secret_0123456789';
    try {
      const r = await tw([
        'send',
        'stripe',
        'customer.created',
        '--to',
        `${receiver.url}/stripe`,
        '--secret',
        secret,
        '--store',
        store,
        '--json',
      ]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const req = receiver.requests.at(-1)!;
      new Stripe('sk_test_x').webhooks.constructEvent(
        req.body,
        String(req.headers['stripe-signature']),
        secret,
      );
      const world = new URL(store).searchParams.get('world')!;
      const rows = await asSuperuser(db.name, (c) =>
        c.query('SELECT secret FROM twinworld.secrets WHERE world = $1', [world]),
      );
      expect(rows.rows).toEqual([{ secret }]);
      // and the delivery commands read it back from the same store
      const deliveries = await tw(['deliveries', '--store', store, '--json']);
      expect(JSON.parse(deliveries.stdout)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('walks kept in a store', () => {
  it('demo --store postgres:// writes the same hashes as on a temporary SQLite root, and refuses a world that holds twins', async () => {
    const onSqlite = await tw(['demo', '--json']);
    expect(onSqlite.status).toBe(0);
    const store = inWorld(db.url);
    const onPg = await tw(['demo', '--store', store, '--json']);
    expect(onPg.stderr).toBe('');
    expect(onPg.status).toBe(0);
    const report = JSON.parse(onPg.stdout);
    expect(report.hashes).toEqual(JSON.parse(onSqlite.stdout).hashes);
    expect(report.root).toMatch(/^postgres:\/\/postgres@.*\?world=/);
    expect(onPg.stdout).not.toContain(new URL(db.url).password);
    // the world stays, for the delivery commands
    const deliveries = await tw(['deliveries', '--store', store, '--json']);
    expect(JSON.parse(deliveries.stdout).length).toBeGreaterThan(0);
    const again = await tw(['demo', '--store', store]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already holds twins .*a walk starts from an empty world/);
  });
});
