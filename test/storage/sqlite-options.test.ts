// SqliteOptions are checked when the backend is made, before any file opens: a pragma value is
// interpolated into SQL, so anything but a whole number of pages is refused with its path.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';
import { openWorld } from '../../src/world/world.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SqliteOptions.walAutocheckpoint', () => {
  it.each([-1, 1.5, Number.NaN, '0; DROP TABLE entries' as unknown as number])(
    'refuses %s as INVALID_ARGUMENT naming the option',
    (pages) => {
      const root = mkdtempSync(join(tmpdir(), 'twinworld-sqlite-options-'));
      dirs.push(root);
      expect(() => new SqliteBackend(root, { walAutocheckpoint: pages })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', path: 'sqlite.walAutocheckpoint' }),
      );
    },
  );

  it('0 keeps every commit in the WAL until someone checkpoints', async () => {
    const root = mkdtempSync(join(tmpdir(), 'twinworld-sqlite-options-'));
    dirs.push(root);
    const world = openWorld({ root, backend: new SqliteBackend(root, { walAutocheckpoint: 0 }) });
    const twin = world.twin('t');
    for (let i = 0; i < 1100; i++)
      await twin.applyWrite({
        operation: 'item.create',
        subjectType: 'item',
        subjectId: `i${i}`,
        fields: { i },
      });
    const db = new Database(join(root, 'twins', 't.db'));
    // SQLite's default would have checkpointed (and restarted the WAL) after 1000 pages.
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(row!.log).toBeGreaterThan(1000);
    db.close();
    await world.close();
  });
});

describe('SqliteOptions.busyTimeoutMs', () => {
  // The driver's own default is 5 s; the option held only from the third pragma on, so a twin
  // whose file another process held locked at open failed after 5 s whatever the option said
  // (a `work` process died so on a loaded machine, opening a twin while another one recovered it).
  it('holds from the first statement: a twin locked at open for longer than 5 s is waited for', async () => {
    const root = mkdtempSync(join(tmpdir(), 'twinworld-sqlite-options-'));
    dirs.push(root);
    await openWorld({ root }).close();
    // A twin file in rollback-journal mode, locked by another process (the open blocks this one's
    // event loop, as a synchronous driver does): switching it to WAL must wait for the lock.
    const file = join(root, 'twins', 't.db');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(${JSON.stringify(file)});
         db.exec('CREATE TABLE held (x); BEGIN EXCLUSIVE; INSERT INTO held VALUES (1)');
         console.log('held');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 5500);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const released = new Promise((resolve) => holder.on('exit', resolve));
    const world = openWorld({ root, sqlite: { busyTimeoutMs: 20_000 } });
    const entry = await world.twin('t').applyWrite({
      operation: 'item.create',
      subjectType: 'item',
      subjectId: 'i1',
      fields: {},
    });
    await released;
    expect(entry.seq).toBe(1);
    await world.close();
  }, 30_000);
});

describe('a twin whose preparation failed', () => {
  // A long-lived process (`twinworld work`) that met a lock once kept the twin's failed open and
  // failed every later operation with it: a schedule worker started beside another never beat.
  it('opens on the next operation once the lock that refused its open is gone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'twinworld-sqlite-reopen-'));
    dirs.push(root);
    await openWorld({ root }).close();
    // A file in rollback-journal mode held exclusively: switching it to WAL meets the lock.
    const holder = new Database(join(root, 'twins', 't.db'));
    holder.exec('CREATE TABLE held (x); BEGIN EXCLUSIVE; INSERT INTO held VALUES (1)');
    const world = openWorld({ root, sqlite: { busyTimeoutMs: 100 } });
    const twin = world.twin('t');
    await expect(twin.head()).rejects.toMatchObject({ code: expect.stringMatching(/BUSY/) });
    holder.exec('COMMIT');
    holder.close();
    const entry = await twin.applyWrite({
      operation: 'item.create',
      subjectType: 'item',
      subjectId: 'i1',
      fields: {},
    });
    expect(entry.seq).toBe(1);
    await world.close();
  });

  it('builds a declared index on the next operation once the lock that refused the build is gone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'twinworld-sqlite-rebuild-'));
    dirs.push(root);
    const first = openWorld({ root });
    await first.twin('t').applyWrite({
      operation: 'item.create',
      subjectType: 'item',
      subjectId: 'i1',
      fields: { colour: 'red' },
    });
    await first.close();
    const world = openWorld({ root, sqlite: { busyTimeoutMs: 100 } });
    const twin = world.twin('t');
    expect(await twin.head()).toBe(1);
    // Another connection holds the write lock while the index over the existing item is built.
    const holder = new Database(join(root, 'twins', 't.db'));
    holder.exec('BEGIN IMMEDIATE');
    twin.declareIndex({ type: 'item', name: 'colour', field: 'colour' });
    await expect(twin.head()).rejects.toMatchObject({ code: expect.stringMatching(/BUSY/) });
    holder.exec('COMMIT');
    holder.close();
    expect((await twin.lookup('item', 'colour', 'red')).map((r) => r.id)).toEqual(['i1']);
    await world.close();
  });
});
