// The secret store of a world root: `<root>/secrets.db`, a small SQLite file (mode 0600) shared by
// every process on the root. Each change is one IMMEDIATE transaction, so concurrent sets and
// rotations from several processes are serialized by SQLite's lock and none is lost; a process
// killed mid-change leaves the file as it was. Chosen over a lock file plus atomic rename of a
// JSON file (measured, bench/secret-store.ts): the lock dies with its holder instead of needing
// stale-lock detection, waiting is the driver's busy timeout rather than a polling loop, and a
// change rewrites one row, not the whole file. The file is opened on first use, so commands that
// never touch a secret never create it. A `secrets.json` left by earlier versions is imported once.
import type Database from 'better-sqlite3';
import { loadDriver } from './sqlite-backend.js';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TwinError } from '../../errors.js';
import { openRefusal } from './open-refusal.js';
import {
  checkRef,
  checkResolve,
  checkRotation,
  checkSecret,
  retired,
  type SecretStore,
} from '../secret-store.js';

const SECRETS_FILE = 'secrets.db';
const LEGACY_FILE = 'secrets.json';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS secrets (
  ref TEXT NOT NULL,
  n INTEGER NOT NULL,
  secret TEXT NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (ref, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS retired (ref TEXT PRIMARY KEY) WITHOUT ROWID;
`;

export interface SqliteSecretStoreOptions {
  /** How long a change waits for another process's lock before failing (default 30 s). */
  readonly busyTimeoutMs?: number;
}

type Statements = ReturnType<typeof prepare>;

function prepare(db: Database.Database) {
  return {
    isRetired: db.prepare('SELECT 1 FROM retired WHERE ref = ?').pluck(),
    clear: db.prepare('DELETE FROM secrets WHERE ref = ?'),
    dropExpired: db.prepare(
      'DELETE FROM secrets WHERE ref = ? AND expires_at IS NOT NULL AND expires_at <= ?',
    ),
    // The grace period only ever shortens an expiry, never lengthens one.
    expire: db.prepare(
      'UPDATE secrets SET expires_at = MIN(COALESCE(expires_at, @until), @until) WHERE ref = @ref',
    ),
    next: db.prepare('SELECT COALESCE(MAX(n), 0) + 1 FROM secrets WHERE ref = ?').pluck(),
    insert: db.prepare('INSERT INTO secrets (ref, n, secret, expires_at) VALUES (?, ?, ?, NULL)'),
    insertExpiring: db.prepare(
      'INSERT INTO secrets (ref, n, secret, expires_at) VALUES (?, ?, ?, ?)',
    ),
    resolve: db
      .prepare(
        'SELECT secret FROM secrets WHERE ref = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY n DESC',
      )
      .pluck(),
    retire: db.prepare('INSERT OR IGNORE INTO retired (ref) VALUES (?)'),
    count: db.prepare('SELECT COUNT(*) FROM secrets WHERE ref = ?').pluck(),
  };
}

export class SqliteSecretStore implements SecretStore {
  readonly file: string;
  private db: Database.Database | undefined;
  private stmt: Statements | undefined;

  constructor(
    private readonly root: string,
    private readonly options: SqliteSecretStoreOptions = {},
  ) {
    this.file = join(root, SECRETS_FILE);
  }

  private open(): Statements {
    if (this.stmt !== undefined) return this.stmt;
    try {
      // Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
      if (!existsSync(this.file)) closeSync(openSync(this.file, 'a', 0o600));
      chmodSync(this.file, 0o600);
      const Driver = loadDriver();
      // The busy timeout as the driver's option holds from the first statement (see sqlite-backend).
      const db = new Driver(this.file, { timeout: this.options.busyTimeoutMs ?? 30_000 });
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      this.db = db;
      this.stmt = prepare(db);
    } catch (error) {
      this.db?.close();
      this.db = undefined;
      throw openRefusal(error, this.file, "the world's secrets");
    }
    this.importLegacy();
    return this.stmt;
  }

  /**
   * One IMMEDIATE transaction: the cross-process lock every change takes before it reads, so it
   * waits (the busy timeout) for another process's change rather than reading a snapshot it could
   * not then write — a DEFERRED transaction would fail at once when it upgrades, whatever the
   * timeout (test/storage/sqlite-secret-store.test.ts holds the lock to check). A lock held past
   * the timeout is STORE_BUSY, nothing changed.
   */
  private change<T>(fn: (stmt: Statements) => T): T {
    const stmt = this.open();
    try {
      return this.db!.transaction(() => fn(stmt)).immediate();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('SQLITE_BUSY'))
        throw new TwinError(
          'STORE_BUSY',
          `the secret store ${this.file} stayed locked by another process for more than ${this.options.busyTimeoutMs ?? 30_000} ms; nothing was changed — retry, or find the process holding it`,
          { path: 'root', details: { driverCode: code }, cause: error },
        );
      throw error;
    }
  }

  private importLegacy(): void {
    const legacy = join(this.root, LEGACY_FILE);
    if (!existsSync(legacy)) return;
    let data: Record<string, { secret: string; expiresAt?: number }[]>;
    try {
      data = JSON.parse(readFileSync(legacy, 'utf8')) as typeof data;
    } catch {
      return; // another process imported and removed it meanwhile, or it is not ours to read
    }
    this.change((s) => {
      for (const [ref, list] of Object.entries(data)) {
        if (
          !Array.isArray(list) ||
          (s.count.get(ref) as number) > 0 ||
          s.isRetired.get(ref) !== undefined
        )
          continue;
        // The legacy file listed newest first.
        list
          .slice()
          .reverse()
          .forEach((entry, i) => {
            if (typeof entry?.secret !== 'string') return;
            if (typeof entry.expiresAt === 'number')
              s.insertExpiring.run(ref, i + 1, entry.secret, entry.expiresAt);
            else s.insert.run(ref, i + 1, entry.secret);
          });
      }
    });
    rmSync(legacy, { force: true });
  }

  set(ref: string, secret: string): void {
    checkRef(ref);
    checkSecret(secret);
    this.change((s) => {
      if (s.isRetired.get(ref) !== undefined) throw retired(ref);
      s.clear.run(ref);
      s.insert.run(ref, 1, secret);
    });
  }

  rotate(ref: string, secret: string, now: number, graceMs: number): void {
    checkRef(ref);
    checkSecret(secret);
    checkRotation(now, graceMs);
    this.change((s) => {
      if (s.isRetired.get(ref) !== undefined) throw retired(ref);
      s.dropExpired.run(ref, now);
      s.expire.run({ until: now + graceMs, ref });
      s.insert.run(ref, s.next.get(ref) as number, secret);
    });
  }

  resolve(ref: string, now: number): string[] {
    checkResolve(ref, now);
    return this.open().resolve.all(ref, now) as string[];
  }

  delete(ref: string): void {
    checkRef(ref);
    this.change((s) => {
      s.clear.run(ref);
      s.retire.run(ref);
    });
  }

  close(): void {
    if (this.db?.open) this.db.close();
    this.db = undefined;
    this.stmt = undefined;
  }
}
