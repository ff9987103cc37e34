// Tampering with a twin's storage behind its back, the way a stray tool, a bad restore or an attacker
// would: a byte flipped in a real SQLite file, an entry deleted, a resource rewritten, the database
// emptied or swapped for another copy. verify names the first entry that does not match; a database
// holding fewer entries than its root recorded is refused on open (SQLite and PostgreSQL).
import Database from 'better-sqlite3';
import {
  copyFileSync,
  existsSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { VirtualClock } from '../../src/world/clock.js';
import { verifyTwin } from '../../src/world/verify.js';
import { openWorld, type World, type WorldOptions } from '../../src/world/world.js';
import { collect, tempDir } from '../support/backends.js';
import { postgresUrl } from '../storage/postgres-url.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function root(): string {
  const d = tempDir('twinworld-tamper-');
  dirs.push(d);
  return d;
}

function open(at: string, extra: Partial<WorldOptions> = {}): World {
  return openWorld({
    root: at,
    seed: `tamper-${at}`,
    clock: new VirtualClock('2026-06-01T00:00:00.000Z'),
    ...extra,
  });
}

/** `count` entries in twin "shop" (items i1…), then the world is closed; answers the lines. */
async function written(at: string, count: number, from = 1): Promise<string[]> {
  const world = open(at);
  const twin = world.twin('shop');
  for (let i = from; i < from + count; i++)
    await twin.applyWrite({
      operation: 'item.put',
      subjectType: 'item',
      subjectId: `i${i}`,
      fields: { n: i, note: `item number ${i}` },
    });
  const lines = await collect(twin.exportLines());
  await world.close();
  return lines;
}

function dbFile(at: string): string {
  return join(at, 'twins', 'shop.db');
}

/** Runs SQL on the twin's file directly, then folds the WAL back so the file holds everything. */
function sql(at: string, fn: (db: Database.Database) => void): void {
  const db = new Database(dbFile(at));
  try {
    fn(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

async function verify(at: string) {
  const world = open(at, { create: false });
  try {
    return await verifyTwin(world.twin('shop'));
  } finally {
    await world.close();
  }
}

async function refusal(run: () => Promise<unknown>): Promise<TwinError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(TwinError);
    return error as TwinError;
  }
  return expect.unreachable('expected a refusal') as never;
}

describe('verify finds what was changed in a real SQLite file', () => {
  /** Flips one byte of entry `seq`'s writeId in the file on disk (it occurs nowhere else). */
  function flipByte(at: string, lines: string[], seq: number): void {
    sql(at, () => {});
    const writeId = (JSON.parse(lines[seq - 1]!) as { writeId: string }).writeId;
    const file = readFileSync(dbFile(at));
    const at0 = file.indexOf(writeId);
    expect(at0).toBeGreaterThan(0);
    expect(file.indexOf(writeId, at0 + 1)).toBe(-1);
    file[at0 + 5] = file[at0 + 5]! ^ 0x01;
    writeFileSync(dbFile(at), file);
  }

  it('one byte flipped in entry 5 of 8: verify names entry 5, broken in the chain', async () => {
    const at = root();
    const lines = await written(at, 8);
    expect((await verify(at)).ok).toBe(true);
    flipByte(at, lines, 5);
    const report = await verify(at);
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({ seq: 5, check: 'chain' });
    expect(report.problem!.message).toMatch(
      /^entry 5 was changed after it was written: its stored line hashes to [0-9a-f]{12}…, but entry 6, which the chain after it vouches for, recorded [0-9a-f]{12}… as its prev$/,
    );
    expect(report.problem!.investigate).toContain('twinworld log shop --after 3 --limit 3');
  });

  it('one byte flipped in the newest entry: verify names it against the root’s mark', async () => {
    const at = root();
    const lines = await written(at, 8);
    flipByte(at, lines, 8);
    const report = await verify(at);
    expect(report.problem).toMatchObject({ seq: 8, check: 'mark' });
    expect(report.problem!.message).toMatch(
      /^entry 8 hashes to [0-9a-f]{12}…, but the root recorded [0-9a-f]{12}… for it \(.*shop\.head\)/,
    );
  });

  it('a middle entry deleted: verify names the missing seq', async () => {
    const at = root();
    await written(at, 8);
    sql(at, (db) => db.prepare('DELETE FROM entries WHERE seq = 4').run());
    const report = await verify(at);
    expect(report.problem).toMatchObject({ seq: 4, check: 'sequence' });
    expect(report.problem!.message).toBe('entry 4 is missing: after entry 3 the log holds entry 5');
  });

  it('the newest entries deleted: refused on open against the root’s mark', async () => {
    const at = root();
    await written(at, 8);
    sql(at, (db) => db.prepare('DELETE FROM entries WHERE seq > 6').run());
    const world = open(at);
    const e = await refusal(() => world.twin('shop').head());
    expect(e.code).toBe('TWIN_LOG_MISSING');
    expect(e.message).toMatch(
      /holds only 6 entries, but the root recorded that its log reached entry 8/,
    );
    await world.close();
  });

  it('a stored resource rewritten: verify names the resource and the entry that last wrote it', async () => {
    const at = root();
    await written(at, 8);
    sql(at, (db) =>
      db
        .prepare("UPDATE resources SET fields = ? WHERE type = 'item' AND id = 'i3'")
        .run(JSON.stringify({ n: 3, note: 'item number 33' })),
    );
    const report = await verify(at);
    expect(report.problem).toMatchObject({ seq: 3, check: 'state' });
    expect(report.problem!.message).toBe(
      'resource item i3 differs from the log\'s fold at fields.note: stored "item number 33", the log gives "item number 3"; entry 3 is the last that wrote it',
    );
    expect(report.foldedHash).not.toBe(report.stateHash);
  });
});

describe('a database emptied or replaced under its root', () => {
  it('a 0-byte database is refused on open, naming the root and what to do; nothing is written', async () => {
    const at = root();
    await written(at, 5);
    expect(JSON.parse(readFileSync(join(at, 'twins', 'shop.head'), 'utf8'))).toMatchObject({
      backend: 'sqlite',
      twin: 'shop',
      seq: 5,
    });
    truncateSync(dbFile(at), 0);
    for (const f of ['-wal', '-shm']) rmSync(`${dbFile(at)}${f}`, { force: true });
    const world = open(at);
    const twin = world.twin('shop');
    const e = await refusal(() => twin.head());
    expect(e.code).toBe('TWIN_LOG_MISSING');
    expect(e.path).toBe('twin');
    expect(e.message).toBe(
      `twin "shop" in the world at ${at} holds no entries, but the root recorded that its log reached entry 5 (${join(at, 'twins', 'shop.head')}): its database was emptied, truncated or replaced by an older copy. Restore the database from a backup (or import an export of its log into it); if the loss is intended, delete ${join(at, 'twins', 'shop.head')} to accept the database as it is`,
    );
    // A write is refused too: the log does not restart at seq 1.
    expect(
      (
        await refusal(() =>
          twin.applyWrite({ operation: 'item.put', subjectType: 'item', subjectId: 'x' }),
        )
      ).code,
    ).toBe('TWIN_LOG_MISSING');
    await world.close();
    const db = new Database(dbFile(at), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) FROM entries').pluck().get()).toBe(0);
    db.close();
    // Deleting the mark accepts the database as it is.
    rmSync(join(at, 'twins', 'shop.head'));
    const again = open(at);
    expect(await again.twin('shop').head()).toBe(0);
    await again.close();
  });

  it('a database swapped for an older copy is refused on open', async () => {
    const at = root();
    await written(at, 3);
    copyFileSync(dbFile(at), join(at, 'backup.db'));
    await written(at, 5, 4);
    copyFileSync(join(at, 'backup.db'), dbFile(at));
    for (const f of ['-wal', '-shm']) rmSync(`${dbFile(at)}${f}`, { force: true });
    const world = open(at);
    const e = await refusal(() => world.twin('shop').head());
    expect(e.code).toBe('TWIN_LOG_MISSING');
    expect(e.message).toMatch(
      /holds only 3 entries, but the root recorded that its log reached entry 8/,
    );
    expect(e.details).toMatchObject({ head: 3, recorded: 8 });
    await world.close();
  });

  it('a database swapped for another log as long is found by verify against the root’s mark', async () => {
    const at = root();
    await written(at, 4);
    const other = root();
    await written(other, 4, 10);
    copyFileSync(dbFile(other), dbFile(at));
    for (const f of ['-wal', '-shm']) rmSync(`${dbFile(at)}${f}`, { force: true });
    const report = await verify(at);
    expect(report.problem).toMatchObject({ seq: 4, check: 'mark' });
    expect(report.problem!.message).toMatch(
      /^entry 4 hashes to [0-9a-f]{12}…, but the root recorded [0-9a-f]{12}… for it \(.*shop\.head\): the database was replaced by another log/,
    );
  });

  it('a damaged mark is a typed refusal that says to delete it', async () => {
    const at = root();
    await written(at, 2);
    writeFileSync(join(at, 'twins', 'shop.head'), '{"seq": "many"');
    const world = open(at);
    const e = await refusal(() => world.twin('shop').head());
    expect(e.code).toBe('TWIN_LOG_MISSING');
    expect(e.message).toMatch(/shop\.head, the root's record .* is damaged; delete it/);
    await world.close();
  });

  it('a world in memory keeps no mark', async () => {
    const world = openWorld({ root: ':memory:' });
    await world.twin('shop').applyWrite({ operation: 'x', subjectType: 't', subjectId: '1' });
    expect(world.marks).toBeUndefined();
    await world.close();
  });

  it('on PostgreSQL: the newest entry changed is found against the head its commit recorded', async () => {
    const name = `tamper_${process.pid}_${Date.now().toString(36)}_head`;
    const world = open(':memory:', { backend: new PostgresBackend(postgresUrl(), name) });
    for (let i = 1; i <= 3; i++)
      await world
        .twin('shop')
        .applyWrite({ operation: 'item.put', subjectType: 'item', subjectId: `i${i}` });
    const client = new pg.Client(postgresUrl());
    await client.connect();
    try {
      await client.query(
        `UPDATE twinworld.entries SET body = replace(body, '"i3"', '"i4"') WHERE world = $1 AND seq = 3`,
        [name],
      );
    } finally {
      await client.end();
    }
    const report = await verifyTwin(world.twin('shop'));
    expect(report.problem).toMatchObject({ seq: 3, check: 'head' });
    expect(report.problem!.message).toMatch(
      /^entry 3, the newest, was changed after it was written: its stored line hashes to [0-9a-f]{12}…, but its commit recorded [0-9a-f]{12}…$/,
    );
    await world.close();
  });

  it('on PostgreSQL: a world whose rows were deleted is refused on open', async () => {
    const at = root();
    const name = `tamper_${process.pid}_${Date.now().toString(36)}`;
    const world = open(at, { backend: new PostgresBackend(postgresUrl(), name) });
    for (let i = 1; i <= 3; i++)
      await world
        .twin('shop')
        .applyWrite({ operation: 'item.put', subjectType: 'item', subjectId: `i${i}` });
    await world.close();
    expect(existsSync(join(at, 'twins', 'shop.head'))).toBe(true);
    const client = new pg.Client(postgresUrl());
    await client.connect();
    try {
      for (const table of ['entries', 'resources', 'meta'])
        await client.query(`DELETE FROM twinworld.${table} WHERE world = $1`, [name]);
      await client.query('UPDATE twinworld.twins SET head = 0 WHERE world = $1', [name]);
    } finally {
      await client.end();
    }
    const again = open(at, { backend: new PostgresBackend(postgresUrl(), name) });
    const e = await refusal(() => again.twin('shop').head());
    expect(e.code).toBe('TWIN_LOG_MISSING');
    expect(e.message).toMatch(
      /holds no entries, but the root recorded that its log reached entry 3/,
    );
    await again.close();
  });
});
