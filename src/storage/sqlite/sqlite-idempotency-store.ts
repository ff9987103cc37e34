// The idempotency store of a world root: `<root>/idempotency.db`, a small SQLite file (0600)
// shared by every process on the root, beside secrets.db. A claim is one IMMEDIATE transaction
// (prune expired rows, read the key, insert it), so two processes racing on one key see one
// winner. Opened on first use: worlds that serve no surface never create it.
import type Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { openRefusal } from './open-refusal.js';
import {
  checkAnswer,
  checkIdempotencyArgs,
  type IdempotencyClaim,
  type IdempotencyStore,
  type SavedAnswer,
} from '../idempotency-store.js';
import { loadDriver } from './sqlite-backend.js';

const IDEMPOTENCY_FILE = 'idempotency.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  status INTEGER,
  body TEXT,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at);
`;

interface RowShape {
  fingerprint: string;
  status: number | null;
  body: string | null;
}

// WITHOUT ROWID: expired rows are pruned by their primary key, at most 256 per claim.
function prepare(db: Database.Database) {
  return {
    prune: db.prepare(
      'DELETE FROM idempotency WHERE (scope, key) IN (SELECT scope, key FROM idempotency WHERE expires_at <= ? LIMIT 256)',
    ),
    get: db.prepare(
      'SELECT fingerprint, status, body FROM idempotency WHERE scope = ? AND key = ?',
    ),
    insert: db.prepare(
      'INSERT INTO idempotency (scope, key, fingerprint, expires_at) VALUES (?, ?, ?, ?)',
    ),
    finish: db.prepare('UPDATE idempotency SET status = ?, body = ? WHERE scope = ? AND key = ?'),
    release: db.prepare('DELETE FROM idempotency WHERE scope = ? AND key = ? AND status IS NULL'),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteIdempotencyStore implements IdempotencyStore {
  readonly file: string;
  private db: Database.Database | undefined;
  private stmt: Statements | undefined;

  constructor(root: string) {
    this.file = join(root, IDEMPOTENCY_FILE);
  }

  private open(): Statements {
    if (this.stmt !== undefined) return this.stmt;
    try {
      if (!existsSync(this.file)) closeSync(openSync(this.file, 'a', 0o600));
      chmodSync(this.file, 0o600);
      const Driver = loadDriver();
      // The busy timeout as the driver's option holds from the first statement (see sqlite-backend).
      const db = new Driver(this.file, { timeout: 30_000 });
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      this.db = db;
      this.stmt = prepare(db);
    } catch (error) {
      this.db?.close();
      this.db = undefined;
      throw openRefusal(error, this.file, "the vendor APIs' idempotency keys");
    }
    return this.stmt;
  }

  claim(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    ttlMs: number,
  ): IdempotencyClaim {
    checkIdempotencyArgs(scope, key, fingerprint, now, ttlMs);
    const s = this.open();
    return this.db!.transaction((): IdempotencyClaim => {
      s.prune.run(now);
      const row = s.get.get(scope, key) as RowShape | undefined;
      if (row === undefined) {
        s.insert.run(scope, key, fingerprint, now + ttlMs);
        return { state: 'claimed' };
      }
      if (row.status === null || row.body === null)
        return { state: 'in_progress', fingerprint: row.fingerprint };
      return {
        state: 'done',
        fingerprint: row.fingerprint,
        answer: { status: row.status, body: row.body },
      };
    }).immediate();
  }

  finish(scope: string, key: string, answer: SavedAnswer): void {
    checkIdempotencyArgs(scope, key);
    checkAnswer(answer);
    this.open().finish.run(answer.status, answer.body, scope, key);
  }

  release(scope: string, key: string): void {
    checkIdempotencyArgs(scope, key);
    this.open().release.run(scope, key);
  }

  close(): void {
    if (this.db?.open) this.db.close();
    this.db = undefined;
    this.stmt = undefined;
  }
}
