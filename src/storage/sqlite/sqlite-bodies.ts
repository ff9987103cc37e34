// A resource's one large text field (a delivery's rendered webhook, an envelope's payload) kept in
// an append-only table of its own, written once, so the many rewrites of the resource's small fields
// (claims, finishes, leases) change a short row instead of rewriting kilobytes (issue 29: WAL pages
// per delivery). The resource row keeps the field's name, with null in its place, and the body's
// rowid; a trigger drops a body no row points at any more, in the same transaction. What the port
// answers is the same resource: the field is put back on read, in its place among the keys.
import type Database from 'better-sqlite3';
import type { Resource } from '../../state/resource.js';

/** Text fields at least this long (UTF-16 units) leave the resource row. */
const LARGE = 512;

const BODIES_SCHEMA = `
CREATE TABLE IF NOT EXISTS bodies (value TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS bodies_unref AFTER UPDATE OF body_ref ON resources
  WHEN old.body_ref IS NOT NULL AND old.body_ref IS NOT new.body_ref
  BEGIN DELETE FROM bodies WHERE rowid = old.body_ref; END;
CREATE TRIGGER IF NOT EXISTS bodies_drop AFTER DELETE ON resources
  WHEN old.body_ref IS NOT NULL
  BEGIN DELETE FROM bodies WHERE rowid = old.body_ref; END;
`;

/** A twin file written before bodies moved out gains the two columns (its rows keep theirs inline). */
export function addBodyColumns(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(resources)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'body_ref'))
    db.exec(
      'ALTER TABLE resources ADD COLUMN body_field TEXT; ALTER TABLE resources ADD COLUMN body_ref INTEGER;',
    );
  db.exec(BODIES_SCHEMA);
}

/** The columns every resource read selects from `resources r`, and the join they need. */
export const RESOURCE_COLUMNS =
  'r.type, r.id, r.version, r.deleted, r.fields, r.body_field, b.value AS body';
export const BODY_JOIN = 'LEFT JOIN bodies b ON b.rowid = r.body_ref';

export interface ResourceRow {
  type: string;
  id: string;
  version: number;
  deleted: number;
  fields: string;
  body_field: string | null;
  body: string | null;
}

export function toResource(row: ResourceRow): Resource {
  const fields = JSON.parse(row.fields) as Record<string, unknown>;
  if (row.body_field !== null) fields[row.body_field] = row.body;
  return {
    type: row.type,
    id: row.id,
    version: row.version,
    deleted: row.deleted === 1,
    fields: fields as Resource['fields'],
  };
}

/** The longest top-level text field of at least LARGE units, if any. */
function largeField(fields: Resource['fields']): string | undefined {
  let name: string | undefined;
  let length = LARGE - 1;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'string' && value.length > length) {
      name = key;
      length = value.length;
    }
  }
  return name;
}

/** What a put stores: the row's fields JSON and where its large field went. */
export interface StoredFields {
  readonly json: string;
  readonly field: string | null;
  readonly ref: number | null;
}

export class Bodies {
  private readonly current;
  private readonly insert;

  constructor(db: Database.Database) {
    this.current = db.prepare(
      'SELECT r.body_field, r.body_ref, b.value FROM resources r JOIN bodies b ON b.rowid = r.body_ref WHERE r.type = ? AND r.id = ?',
    );
    this.insert = db.prepare('INSERT INTO bodies (value) VALUES (?)');
  }

  /** The row for `r`: its large field kept by the body already stored when unchanged, else a new one. */
  store(r: Resource): StoredFields {
    const field = largeField(r.fields);
    if (field === undefined) return { json: JSON.stringify(r.fields), field: null, ref: null };
    const value = r.fields[field] as string;
    const json = JSON.stringify({ ...r.fields, [field]: null });
    const had = this.current.get(r.type, r.id) as
      { body_field: string; body_ref: number; value: string } | undefined;
    if (had !== undefined && had.body_field === field && had.value === value)
      return { json, field, ref: had.body_ref };
    return { json, field, ref: Number(this.insert.run(value).lastInsertRowid) };
  }
}
