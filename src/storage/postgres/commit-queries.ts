// A section's commit on PostgreSQL as query texts: the buffered resources, entries, index keys and
// meta as multi-row statements, split so no round trip carries more than a few megabytes, the last
// ending in COMMIT. Rows keep their tenant (docs/postgres.md): an entry and a key take their
// resource's stored tenant when the section did not know it.
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

export function commitQueries(b: CommitBuffer): string[] {
  const w = lit(b.world);
  const t = lit(b.twin);
  const statements: string[] = [];
  const multiRow = (head: string, rows: string[], tail = ''): void => {
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
      statements.push(`${head} ${rows.slice(i, i + ROWS_PER_STATEMENT).join(', ')}${tail}`);
  };
  multiRow(
    'INSERT INTO twinworld.resources (world, twin, type, id, tenant, version, deleted, fields) VALUES',
    b.resources.map(
      ({ resource: r, tenant }) =>
        `(${w}, ${t}, ${lit(r.type)}, ${lit(r.id)}, ${litOrNull(tenant)}, ${int(r.version)}, ${r.deleted}, ${lit(JSON.stringify(r.fields))})`,
    ),
    // A row that belonged to a tenant stays its own: a tombstone emptied by pruning keeps its tenant.
    ' ON CONFLICT (world, twin, type, id) DO UPDATE SET tenant = COALESCE(excluded.tenant, twinworld.resources.tenant), version = excluded.version, deleted = excluded.deleted, fields = excluded.fields',
  );
  // An entry belongs to the tenant of its subject, and a key to its resource's, as stored: the
  // resources are written first so a row's kept tenant reaches them too.
  multiRow(
    'INSERT INTO twinworld.entries (world, twin, seq, tenant, subject_type, subject_id, body) ' +
      'SELECT v.world, v.twin, v.seq, COALESCE(r.tenant, v.tenant), v.subject_type, v.subject_id, v.body FROM (VALUES',
    b.entries.map(
      (e) =>
        `(${w}, ${t}, ${int(e.seq)}::bigint, ${litOrNull(e.tenant)}::text, ${lit(e.type)}, ${lit(e.id)}, ${lit(e.body)})`,
    ),
    ') AS v (world, twin, seq, tenant, subject_type, subject_id, body) LEFT JOIN twinworld.resources r ' +
      'ON r.world = v.world AND r.twin = v.twin AND r.type = v.subject_type AND r.id = v.subject_id ORDER BY v.seq',
  );
  for (const c of b.clears)
    statements.push(
      `DELETE FROM twinworld.lookups WHERE world = ${w} AND twin = ${t} AND type = ${lit(c.type)} AND name = ${lit(c.name)}`,
    );
  const ops = [...b.keys];
  multiRow(
    `DELETE FROM twinworld.lookups WHERE world = ${w} AND twin = ${t} AND (type, name, key, id) IN (`,
    ops
      .filter((k) => !k.add)
      .map((k) => `(${lit(k.type)}, ${lit(k.name)}, ${lit(k.key)}, ${lit(k.id)})`),
    ')',
  );
  multiRow(
    'INSERT INTO twinworld.lookups (world, twin, type, name, key, id, tenant) ' +
      'SELECT v.world, v.twin, v.type, v.name, v.key, v.id, COALESCE(r.tenant, v.tenant) FROM (VALUES',
    ops
      .filter((k) => k.add)
      // a key belongs to the tenant of its resource's last value in this section
      .map(
        (k) =>
          `(${w}, ${t}, ${lit(k.type)}, ${lit(k.name)}, ${lit(k.key)}, ${lit(k.id)}, ${litOrNull(b.tenantOfResource(k.type, k.id) ?? k.tenant)}::text)`,
      ),
    ') AS v (world, twin, type, name, key, id, tenant) LEFT JOIN twinworld.resources r ' +
      'ON r.world = v.world AND r.twin = v.twin AND r.type = v.type AND r.id = v.id ON CONFLICT DO NOTHING',
  );
  multiRow(
    'INSERT INTO twinworld.meta (world, twin, key, value) VALUES',
    b.meta.map(([k, v]) => `(${w}, ${t}, ${lit(k)}, ${lit(v)})`),
    ' ON CONFLICT (world, twin, key) DO UPDATE SET value = excluded.value',
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
