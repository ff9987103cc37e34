// A section's commit on PostgreSQL as query texts: the buffered resources, entries and index keys
// through statements the session prepared (their rows as arrays), and meta, split so no round trip
// carries more than a few megabytes, the last ending in COMMIT. Rows keep their tenant
// (docs/postgres.md): an entry and a key take their resource's stored tenant when the section did
// not know it.
import type { Resource } from '../../state/resource.js';
import { notifyStatement } from './wakeups.js';
import { int, lit, litOrNull } from './sql-text.js';

/** Rows per multi-row statement, and characters per round trip, before a commit is split. */
const ROWS_PER_STATEMENT = 500;
const CHARS_PER_ROUND_TRIP = 4_000_000;

/** An appended entry waiting for the commit; its tenant may be filled in before then. */
export interface BufferedEntry {
  readonly seq: number;
  tenant: string | null;
  readonly type: string;
  readonly id: string;
  readonly body: string;
}

/** An index key's last add or remove in the section. */
export interface KeyOp {
  readonly type: string;
  readonly name: string;
  readonly key: string;
  readonly id: string;
  readonly add: boolean;
  readonly tenant: string | null;
}

export interface CommitBuffer {
  readonly world: string;
  readonly twin: string;
  readonly resources: readonly { readonly resource: Resource; readonly tenant: string | null }[];
  /** The tenant a resource buffered in this section carries, if any. */
  tenantOfResource(type: string, id: string): string | null | undefined;
  readonly entries: readonly BufferedEntry[];
  readonly clears: readonly { readonly type: string; readonly name: string }[];
  readonly keys: readonly KeyOp[];
  readonly meta: readonly (readonly [string, string])[];
  /** The twin's head after the commit; undefined when nothing was appended. */
  readonly newHead: number | undefined;
  /** Whether the commit makes work due now (a NOTIFY rides with it). */
  readonly wakes: boolean;
}

/**
 * The section's multi-row writes, prepared once per session (connection.ts runs this with the
 * session's setup) and executed with their values as arrays. A statement sent as new text with its
 * values inline was planned again at every commit: about a third of a section's time in the server
 * (docs/throughput.md). Each row's own lookups are index probes written so that no plan can do
 * otherwise — a scalar subquery by the whole key, a lateral subquery that is not flattened — since
 * a generic plan made while a world's tables were small would otherwise scan the twin's rows once
 * per statement.
 */
export const PREPARE_WRITES = [
  'PREPARE twinworld_put_resources (text, text, text[], text[], text[], bigint[], boolean[], text[]) AS ' +
    'INSERT INTO twinworld.resources (world, twin, type, id, tenant, version, deleted, fields) ' +
    'SELECT $1, $2, * FROM unnest($3, $4, $5, $6, $7, $8) ' +
    // A row that belonged to a tenant stays its own: a tombstone emptied by pruning keeps its tenant.
    'ON CONFLICT (world, twin, type, id) DO UPDATE SET tenant = COALESCE(excluded.tenant, twinworld.resources.tenant), ' +
    'version = excluded.version, deleted = excluded.deleted, fields = excluded.fields',
  // An entry belongs to the tenant of its subject, and a key to its resource's, as stored: the
  // resources are written first so a row's kept tenant reaches them too.
  'PREPARE twinworld_add_entries (text, text, bigint[], text[], text[], text[], text[]) AS ' +
    'INSERT INTO twinworld.entries (world, twin, seq, tenant, subject_type, subject_id, body) ' +
    'SELECT $1, $2, v.seq, COALESCE((SELECT r.tenant FROM twinworld.resources r ' +
    'WHERE r.world = $1 AND r.twin = $2 AND r.type = v.type AND r.id = v.id), v.tenant), v.type, v.id, v.body ' +
    'FROM unnest($3, $4, $5, $6, $7) AS v (seq, tenant, type, id, body) ORDER BY v.seq',
  'PREPARE twinworld_remove_keys (text, text, text[], text[], text[], text[]) AS ' +
    'DELETE FROM twinworld.lookups l USING (SELECT x.ctid AS row FROM unnest($3, $4, $5, $6) AS v (type, name, key, id) ' +
    'CROSS JOIN LATERAL (SELECT ctid FROM twinworld.lookups x WHERE x.world = $1 AND x.twin = $2 ' +
    'AND x.type = v.type AND x.name = v.name AND x.key = v.key AND x.id = v.id OFFSET 0) x) gone WHERE l.ctid = gone.row',
  'PREPARE twinworld_add_keys (text, text, text[], text[], text[], text[], text[]) AS ' +
    'INSERT INTO twinworld.lookups (world, twin, type, name, key, id, tenant) ' +
    'SELECT $1, $2, v.type, v.name, v.key, v.id, COALESCE((SELECT r.tenant FROM twinworld.resources r ' +
    'WHERE r.world = $1 AND r.twin = $2 AND r.type = v.type AND r.id = v.id), v.tenant) ' +
    'FROM unnest($3, $4, $5, $6, $7) AS v (type, name, key, id, tenant) ON CONFLICT DO NOTHING',
].join('; ');

const texts = (values: readonly (string | null)[]): string =>
  `ARRAY[${values.map(litOrNull).join(', ')}]::text[]`;

export function commitQueries(b: CommitBuffer): string[] {
  const w = lit(b.world);
  const t = lit(b.twin);
  const statements: string[] = [];
  /** One EXECUTE per ROWS_PER_STATEMENT rows, its arguments the columns of those rows. */
  const execute = <R>(
    name: string,
    rows: readonly R[],
    columns: (rows: readonly R[]) => string[],
  ): void => {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
      statements.push(
        `EXECUTE ${name}(${w}, ${t}, ${columns(rows.slice(i, i + ROWS_PER_STATEMENT)).join(', ')})`,
      );
  };
  execute('twinworld_put_resources', b.resources, (rows) => [
    texts(rows.map((x) => x.resource.type)),
    texts(rows.map((x) => x.resource.id)),
    texts(rows.map((x) => x.tenant)),
    `ARRAY[${rows.map((x) => int(x.resource.version)).join(', ')}]::bigint[]`,
    `ARRAY[${rows.map((x) => String(x.resource.deleted)).join(', ')}]::boolean[]`,
    texts(rows.map((x) => JSON.stringify(x.resource.fields))),
  ]);
  execute('twinworld_add_entries', b.entries, (rows) => [
    `ARRAY[${rows.map((e) => int(e.seq)).join(', ')}]::bigint[]`,
    texts(rows.map((e) => e.tenant)),
    texts(rows.map((e) => e.type)),
    texts(rows.map((e) => e.id)),
    texts(rows.map((e) => e.body)),
  ]);
  for (const c of b.clears)
    statements.push(
      `DELETE FROM twinworld.lookups WHERE world = ${w} AND twin = ${t} AND type = ${lit(c.type)} AND name = ${lit(c.name)}`,
    );
  const keyColumns = (rows: readonly KeyOp[]): string[] => [
    texts(rows.map((k) => k.type)),
    texts(rows.map((k) => k.name)),
    texts(rows.map((k) => k.key)),
    texts(rows.map((k) => k.id)),
  ];
  execute(
    'twinworld_remove_keys',
    b.keys.filter((k) => !k.add),
    keyColumns,
  );
  execute(
    'twinworld_add_keys',
    b.keys.filter((k) => k.add),
    (rows) => [
      ...keyColumns(rows),
      // a key belongs to the tenant of its resource's last value in this section
      texts(rows.map((k) => b.tenantOfResource(k.type, k.id) ?? k.tenant)),
    ],
  );
  for (const [k, v] of b.meta)
    statements.push(
      `INSERT INTO twinworld.meta (world, twin, key, value) VALUES (${w}, ${t}, ${lit(k)}, ${lit(v)}) ` +
        'ON CONFLICT (world, twin, key) DO UPDATE SET value = excluded.value',
    );
  if (b.newHead !== undefined) {
    statements.push(
      `UPDATE twinworld.twins SET head = ${int(b.newHead)} WHERE world = ${w} AND twin = ${t}`,
    );
    // Delivered by the server at COMMIT, and not at all if the transaction rolls back.
    if (b.wakes) statements.push(notifyStatement(b.world, b.twin));
  }
  statements.push('COMMIT');
  const queries: string[] = [];
  let current = '';
  for (const s of statements) {
    if (current.length > 0 && current.length + s.length > CHARS_PER_ROUND_TRIP) {
      queries.push(current);
      current = '';
    }
    current = current.length === 0 ? s : `${current};\n${s}`;
  }
  queries.push(current);
  return queries;
}
