// SQLite backend: one WAL-mode file per twin under <root>/twins/. The log and the folded
// resources live in the same file and commit in the same IMMEDIATE transaction, which is also
// the action lock shared by every process that opens the file. A subject's entries are chained
// (entry → previous entry of the same subject, resource → its newest, moved by the subject's
// own upsert), so reading by subject costs no extra index and no extra lookup. Resources are a
// rowid table with a unique (type, id) index rather than WITHOUT ROWID: records that carry a
// rendered webhook or an envelope run to kilobytes, and WITHOUT ROWID rows that large spill to
// overflow pages on every rewrite (measured: +30% trigger ingest, +40% deliveries, with the
// cost of one write in a 1M-resource twin still within 1.5x of a 1k one).
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Resource } from '../../state/resource.js';
import type {
  IndexDelta,
  RangeQuery,
  RangeRow,
  StorageBackend,
  TouchedEntry,
  TwinStore,
} from '../port.js';
import { readOnlyError, SyncTwinStore, type SyncEngine, type SyncTx } from '../sync-store.js';
import { touchedOf } from '../touched.js';
import type { Entry } from '../../log/write.js';
import { TwinError } from '../../errors.js';
import { makeFolders } from '../../log/file-system.js';
import { damagedFile } from './open-refusal.js';

export interface SqliteOptions {
  /** `NORMAL` (default) survives a process crash at any point; `FULL` also survives power loss. */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** How long a section waits for another process's lock before failing. */
  readonly busyTimeoutMs?: number;
  /**
   * WAL pages after which a commit checkpoints (SQLite's default 1000; 0 never, so a bulk load or
   * a benchmark counting the pages each commit writes sees the whole WAL).
   */
  readonly walAutocheckpoint?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  seq INTEGER PRIMARY KEY,
  subject_prev INTEGER,
  body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS resources (
  type TEXT NOT NULL,
  id TEXT NOT NULL,
  version INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  fields TEXT NOT NULL,
  subject_head INTEGER,
  subject_prev INTEGER,
  UNIQUE (type, id)
);
CREATE TABLE IF NOT EXISTS lookups (
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  key TEXT NOT NULL,
  id TEXT NOT NULL,
  PRIMARY KEY (type, name, key, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

interface ResourceRow {
  type: string;
  id: string;
  version: number;
  deleted: number;
  fields: string;
}

function toResource(row: ResourceRow): Resource {
  return {
    type: row.type,
    id: row.id,
    version: row.version,
    deleted: row.deleted === 1,
    fields: JSON.parse(row.fields),
  };
}

// Loaded on the first SQLite twin, not on import: a world on another backend never loads the
// native driver.
let driver: typeof Database | undefined;
export function loadDriver(): typeof Database {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return driver;
}

/** Past every character a key holds: `prefix + KEY_END` bounds the keys starting with `prefix`. */
const KEY_END = '\u{10FFFF}';

/**
 * A range read (StoreTx.range) walks the lookups primary key (type, name, key, id) from the cursor
 * row on, so it reads the page and no more. The cursor's key is looked up first (inside its narrow
 * `within`) and bounds the walk itself: SQLite keeps one bound per side of a range, and a bound
 * hidden in a subquery or a row value would leave it walking from the prefix's far end.
 */
function rangeSql(desc: boolean, after: boolean): string {
  const dir = desc ? 'DESC' : 'ASC';
  const bounds = !after
    ? 'l.key >= @lo AND l.key < @hi'
    : desc
      ? 'l.key >= @lo AND l.key <= @ck AND (l.key, l.id) < (@ck, @cid)'
      : 'l.key >= @ck AND l.key < @hi AND (l.key, l.id) > (@ck, @cid)';
  return (
    'SELECT l.key AS key, r.type, r.id, r.version, r.deleted, r.fields FROM lookups l JOIN resources r ' +
    `ON r.type = l.type AND r.id = l.id WHERE l.type = @type AND l.name = @name AND ${bounds} ` +
    `AND r.deleted = 0 ORDER BY l.key ${dir}, l.id ${dir} LIMIT @limit`
  );
}

class SqliteTwin implements SyncEngine, SyncTx {
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly ranges: Record<string, Database.Statement> = {};
  private reading = false;

  constructor(
    readonly name: string,
    file: string,
    options: SqliteOptions,
  ) {
    const Driver = loadDriver();
    // The busy timeout is the driver's option, not a pragma after the others: opening a database
    // another process is checkpointing or recovering (after a SIGKILL) must wait like any write,
    // and `journal_mode = WAL` is the first statement that can meet that lock.
    let db: Database.Database | undefined;
    try {
      db = new Driver(file, { timeout: options.busyTimeoutMs ?? 30_000 });
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      if (options.walAutocheckpoint !== undefined)
        db.pragma(`wal_autocheckpoint = ${options.walAutocheckpoint}`);
      db.exec(SCHEMA);
    } catch (error) {
      db?.close();
      // A busy lock or a full disk stays as it was: the section's own handling knows those.
      throw damagedFile(error, file, `twin "${name}"'s log`) ?? error;
    }
    this.db = db;
    this.stmt = {
      beginWrite: db.prepare('BEGIN IMMEDIATE'),
      beginRead: db.prepare('BEGIN DEFERRED'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      head: db.prepare('SELECT COALESCE(MAX(seq), 0) AS head FROM entries').pluck(),
      append: db.prepare('INSERT INTO entries (seq, subject_prev, body) VALUES (?, NULL, ?)'),
      put: db.prepare(
        'INSERT INTO resources (type, id, version, deleted, fields, subject_head) VALUES (?, ?, ?, ?, ?, NULL) ' +
          'ON CONFLICT (type, id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, fields = excluded.fields',
      ),
      // The subject's put also moves its chain head; SET sees the old row, so RETURNING hands back
      // the previous head without a second lookup of the resource.
      putSubject: db
        .prepare(
          'INSERT INTO resources (type, id, version, deleted, fields, subject_head, subject_prev) VALUES (?, ?, ?, ?, ?, ?, NULL) ' +
            'ON CONFLICT (type, id) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, fields = excluded.fields, ' +
            'subject_prev = resources.subject_head, subject_head = excluded.subject_head RETURNING subject_prev',
        )
        .pluck(),
      link: db.prepare('UPDATE entries SET subject_prev = ? WHERE seq = ?'),
      subjectHead: db
        .prepare('SELECT subject_head FROM resources WHERE type = ? AND id = ?')
        .pluck(),
      entryLink: db.prepare('SELECT subject_prev, body FROM entries WHERE seq = ?'),
      get: db.prepare(
        'SELECT type, id, version, deleted, fields FROM resources WHERE type = ? AND id = ?',
      ),
      list: db.prepare(
        'SELECT type, id, version, deleted, fields FROM resources WHERE type = ? AND deleted = 0 ORDER BY id',
      ),
      all: db.prepare('SELECT type, id, version, deleted, fields FROM resources WHERE type = ?'),
      liveFirst: db.prepare(
        'SELECT type, id, version, deleted, fields FROM resources WHERE deleted = 0 ORDER BY type, id LIMIT ?',
      ),
      liveAfter: db.prepare(
        'SELECT type, id, version, deleted, fields FROM resources WHERE deleted = 0 AND (type, id) > (?, ?) ORDER BY type, id LIMIT ?',
      ),
      lookup: db.prepare(
        'SELECT r.type, r.id, r.version, r.deleted, r.fields FROM lookups l JOIN resources r ON r.type = l.type AND r.id = l.id ' +
          'WHERE l.type = ? AND l.name = ? AND l.key = ? AND r.deleted = 0 ORDER BY r.id',
      ),
      lookupUpTo: db.prepare(
        'SELECT r.type, r.id, r.version, r.deleted, r.fields FROM lookups l JOIN resources r ON r.type = l.type AND r.id = l.id ' +
          'WHERE l.type = ? AND l.name = ? AND l.key <= ? AND r.deleted = 0 ORDER BY l.key, l.id LIMIT ?',
      ),
      addKey: db.prepare('INSERT OR IGNORE INTO lookups (type, name, key, id) VALUES (?, ?, ?, ?)'),
      removeKey: db.prepare(
        'DELETE FROM lookups WHERE type = ? AND name = ? AND key = ? AND id = ?',
      ),
      clearIndex: db.prepare('DELETE FROM lookups WHERE type = ? AND name = ?'),
      rangeCursor: db
        .prepare(
          'SELECT key FROM lookups WHERE type = ? AND name = ? AND key >= ? AND key < ? AND id = ? LIMIT 1',
        )
        .pluck(),
      range: db.prepare('SELECT body FROM entries WHERE seq > ? ORDER BY seq LIMIT ?').pluck(),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
    };
  }

  get tx(): SyncTx {
    return this;
  }

  begin(readOnly: boolean): void {
    if (this.db.inTransaction)
      throw new TwinError(
        'INVALID_ARGUMENT',
        `twin "${this.name}": a section is already open; sections do not nest`,
      );
    (readOnly ? this.stmt.beginRead : this.stmt.beginWrite).run();
    this.reading = readOnly;
  }

  commit(): void {
    this.reading = false;
    if (this.db.inTransaction) this.stmt.commit.run();
  }

  rollback(): void {
    this.reading = false;
    if (this.db.inTransaction) this.stmt.rollback.run();
  }

  head(): number {
    return this.stmt.head.get() as number;
  }

  append(entry: Entry, body: string): void {
    if (this.reading) throw readOnlyError(this.name);
    this.stmt.append.run(entry.seq, body);
  }

  putResource(r: Resource, delta: IndexDelta, subjectOf?: number): void {
    if (this.reading) throw readOnlyError(this.name);
    if (subjectOf === undefined)
      this.stmt.put.run(r.type, r.id, r.version, r.deleted ? 1 : 0, JSON.stringify(r.fields));
    else {
      const prev = this.stmt.putSubject.get(
        r.type,
        r.id,
        r.version,
        r.deleted ? 1 : 0,
        JSON.stringify(r.fields),
        subjectOf,
      ) as number | null;
      if (prev !== null) this.stmt.link.run(prev, subjectOf);
    }
    for (const k of delta.remove) this.stmt.removeKey.run(r.type, k.name, k.key, r.id);
    for (const k of delta.add) this.stmt.addKey.run(r.type, k.name, k.key, r.id);
  }

  getResource(type: string, id: string): Resource | undefined {
    const row = this.stmt.get.get(type, id) as ResourceRow | undefined;
    return row === undefined ? undefined : toResource(row);
  }

  listResources(type: string): Resource[] {
    return (this.stmt.list.all(type) as ResourceRow[]).map(toResource);
  }

  lookup(type: string, index: string, key: string): Resource[] {
    return (this.stmt.lookup.all(type, index, key) as ResourceRow[]).map(toResource);
  }

  lookupUpTo(type: string, index: string, maxKey: string, limit: number): Resource[] {
    return (this.stmt.lookupUpTo.all(type, index, maxKey, limit) as ResourceRow[]).map(toResource);
  }

  range(type: string, index: string, query: RangeQuery): RangeRow[] {
    const { after } = query;
    let cursor: { ck: string; cid: string } | undefined;
    if (after !== undefined) {
      const ck = this.stmt.rangeCursor.get(
        type,
        index,
        after.within,
        `${after.within}${KEY_END}`,
        after.id,
      ) as string | undefined;
      if (ck === undefined || !ck.startsWith(query.prefix)) return [];
      cursor = { ck, cid: after.id };
    }
    const desc = query.descending === true;
    const name = `range${desc ? 'Desc' : 'Asc'}${after === undefined ? '' : 'After'}`;
    const stmt = (this.ranges[name] ??= this.db.prepare(rangeSql(desc, after !== undefined)));
    const rows = stmt.all({
      type,
      name: index,
      ...(desc || cursor === undefined ? { lo: query.prefix } : {}),
      ...(!desc || cursor === undefined ? { hi: `${query.prefix}${KEY_END}` } : {}),
      ...cursor,
      limit: Math.max(0, Math.floor(query.limit)),
    }) as (ResourceRow & { key: string })[];
    return rows.map((row) => ({ key: row.key, resource: toResource(row) }));
  }

  livePage(after: { type: string; id: string } | undefined, limit: number): Resource[] {
    const rows = (
      after === undefined
        ? this.stmt.liveFirst.all(limit)
        : this.stmt.liveAfter.all(after.type, after.id, limit)
    ) as ResourceRow[];
    return rows.map(toResource);
  }

  readEntries(afterSeq: number, limit: number): Entry[] {
    return (this.stmt.range.all(afterSeq, limit) as string[]).map(
      (body) => JSON.parse(body) as Entry,
    );
  }

  readTouched(afterSeq: number, limit: number): TouchedEntry[] {
    return touchedOf(this.readEntries(afterSeq, limit));
  }

  bodyPage(afterSeq: number, limit: number): string[] {
    return this.stmt.range.all(afterSeq, limit) as string[];
  }

  entriesBySubject(type: string, id: string): Entry[] {
    const out: Entry[] = [];
    let seq = this.stmt.subjectHead.get(type, id) as number | null | undefined;
    while (seq !== null && seq !== undefined) {
      const link = this.stmt.entryLink.get(seq) as { subject_prev: number | null; body: string };
      out.push(JSON.parse(link.body) as Entry);
      seq = link.subject_prev;
    }
    return out.reverse();
  }

  getMeta(key: string): string | undefined {
    return this.stmt.getMeta.get(key) as string | undefined;
  }

  setMeta(key: string, value: string): void {
    if (this.reading) throw readOnlyError(this.name);
    this.stmt.setMeta.run(key, value);
  }

  clearIndex(type: string, index: string): void {
    if (this.reading) throw readOnlyError(this.name);
    this.stmt.clearIndex.run(type, index);
  }

  allResources(type: string): Resource[] {
    return (this.stmt.all.all(type) as ResourceRow[]).map(toResource);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export class SqliteBackend implements StorageBackend {
  readonly kind = 'sqlite';
  private readonly dir: string;
  private readonly open = new Map<string, TwinStore>();

  constructor(
    root: string,
    private readonly options: SqliteOptions = {},
  ) {
    const pages = options.walAutocheckpoint;
    if (pages !== undefined && !(Number.isSafeInteger(pages) && pages >= 0))
      throw new TwinError(
        'INVALID_ARGUMENT',
        `walAutocheckpoint must be a whole number of pages, 0 or more (got ${String(pages)})`,
        { path: 'sqlite.walAutocheckpoint' },
      );
    this.dir = join(root, 'twins');
    makeFolders(this.dir);
  }

  async openTwin(name: string): Promise<TwinStore> {
    let store = this.open.get(name);
    if (store === undefined) {
      store = new SyncTwinStore(new SqliteTwin(name, join(this.dir, `${name}.db`), this.options));
      this.open.set(name, store);
    }
    return store;
  }

  async listTwins(): Promise<string[]> {
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.db'))
      .map((f) => f.slice(0, -3))
      .sort();
  }

  async close(): Promise<void> {
    for (const store of this.open.values()) await store.close();
    this.open.clear();
  }
}
