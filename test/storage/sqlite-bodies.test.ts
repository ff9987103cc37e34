// A resource's large text field on SQLite (issue 29, WAL pages per delivery): written once to the
// bodies table and kept there while the small fields are rewritten, replaced when it changes, dropped
// when no row points at it; a twin file from before the split opens and reads as it was.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resource } from '../../src/state/resource.js';
import { SqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'twinworld-sqlite-bodies-'));
  dirs.push(dir);
  return dir;
}

const big = (c: string): string => c.repeat(2_000);
const rec = (version: number, fields: Record<string, unknown>, deleted = false): Resource =>
  ({ type: 'delivery', id: 'd1', version, deleted, fields }) as Resource;
const NO_KEYS = { remove: [], add: [] };

describe('SQLite: large text fields kept apart', () => {
  it('writes a body once across rewrites, replaces it when it changes, drops it with its row', async () => {
    const dir = root();
    const backend = new SqliteBackend(dir);
    const store = await backend.openTwin('t');
    const file = new Database(join(dir, 'twins', 't.db'), { readonly: true });
    const bodies = () =>
      (
        file.prepare('SELECT rowid, value FROM bodies ORDER BY rowid').all() as { value: string }[]
      ).map((b) => b.value[0]);
    const rowSize = () =>
      (
        file.prepare("SELECT length(fields) AS n FROM resources WHERE id = 'd1'").get() as {
          n: number;
        }
      ).n;
    try {
      await store.transact((tx) =>
        tx.putResource(rec(1, { state: 'queued', body: big('a') }), NO_KEYS),
      );
      for (let v = 2; v <= 4; v++)
        await store.transact((tx) =>
          tx.putResource(rec(v, { state: `s${v}`, body: big('a') }), NO_KEYS),
        );
      expect(bodies()).toEqual(['a']);
      expect(rowSize()).toBeLessThan(100);
      await store.transact((tx) =>
        tx.putResource(rec(5, { state: 's5', body: big('b') }), NO_KEYS),
      );
      expect(bodies()).toEqual(['b']);
      await store.transact((tx) => tx.putResource(rec(6, { state: 's6', body: 'small' }), NO_KEYS));
      expect(bodies()).toEqual([]);
      await store.transact((tx) => tx.putResource(rec(7, { body: big('c') }), NO_KEYS));
      expect(bodies()).toEqual(['c']);
      expect(await store.transact((tx) => tx.getResource('delivery', 'd1'))).toEqual(
        rec(7, { body: big('c') }),
      );
    } finally {
      file.close();
      await backend.close();
    }
  });

  it('opens a twin file from before the split and reads its rows as they were', async () => {
    const dir = root();
    mkdirSync(join(dir, 'twins'));
    const old = new Database(join(dir, 'twins', 't.db'));
    old.exec(`
      CREATE TABLE entries (seq INTEGER PRIMARY KEY, subject_prev INTEGER, body TEXT NOT NULL);
      CREATE TABLE resources (type TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL,
        deleted INTEGER NOT NULL, fields TEXT NOT NULL, subject_head INTEGER, subject_prev INTEGER,
        UNIQUE (type, id));
    `);
    old
      .prepare("INSERT INTO resources VALUES ('delivery', 'd1', 1, 0, ?, NULL, NULL)")
      .run(JSON.stringify({ state: 'queued', body: big('a') }));
    old.close();
    const backend = new SqliteBackend(dir);
    try {
      const store = await backend.openTwin('t');
      expect(await store.transact((tx) => tx.getResource('delivery', 'd1'))).toEqual(
        rec(1, { state: 'queued', body: big('a') }),
      );
      await store.transact((tx) =>
        tx.putResource(rec(2, { state: 'sent', body: big('a') }), NO_KEYS),
      );
      expect(await store.transact((tx) => tx.listResources('delivery'))).toEqual([
        rec(2, { state: 'sent', body: big('a') }),
      ]);
    } finally {
      await backend.close();
    }
  });
});
