// A section's commit on PostgreSQL as query texts: the buffered resources, entries and index keys
// through statements the session prepared (their rows as arrays), and meta, split so no round trip
// carries more than a few megabytes, the last ending in COMMIT. Rows keep their tenant
// (docs/postgres.md): an entry and a key take their resource's stored tenant when the section did
// not know it.
import { DUE_INDEX } from '../../state/indexes.js';
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
  /** Whether the section sees only its tenant's rows (it leaves an index's floor where it is). */
  readonly tenantScoped: boolean;
  readonly meta: readonly (readonly [string, string])[];
  /** The twin's head after the commit; undefined when nothing was appended. */
  readonly newHead: number | undefined;
  /** Whether the commit makes work due now (a NOTIFY rides with it). */
  readonly wakes: boolean;
  /** A read executed after the writes, before COMMIT (lookupAtCommit). */
  readonly readAtCommit?: string;
}

const texts = (values: readonly (string | null)[]): string =>
  `ARRAY[${values.map(litOrNull).join(', ')}]::text[]`;

/**
 * The types whose due index lost keys in the commit: their floors move up. Only due indexes keep a
 * floor: they are the ones read from their low end (lookupUpTo), and the ones a queue churns.
 */
function floorsRaised(b: CommitBuffer): Set<string> {
  const raised = new Set<string>();
  for (const k of b.keys) if (k.name === DUE_INDEX && !k.add) raised.add(k.type);
  return raised;
}

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
  // A section scoped to a tenant sees only that tenant's keys: it leaves the floor where it is.
  if (!b.tenantScoped)
    for (const type of floorsRaised(b))
      statements.push(`EXECUTE twinworld_index_floor(${w}, ${t}, ${lit(type)}, ${lit(DUE_INDEX)})`);
  if (b.meta.length > 0 || b.newHead !== undefined)
    statements.push(
      `EXECUTE twinworld_advance(${w}, ${t}, ${b.newHead === undefined ? 'NULL' : int(b.newHead)}, ` +
        `${texts(b.meta.map(([k]) => k))}, ${texts(b.meta.map(([, v]) => v))})`,
    );
  // Delivered by the server at COMMIT, and not at all if the transaction rolls back.
  if (b.newHead !== undefined && b.wakes) statements.push(notifyStatement(b.world, b.twin));
  // A read that rides with the commit (StoreTx.lookupAtCommit) goes in the same text as COMMIT:
  // its answer is always the last but one of the last round trip.
  statements.push(b.readAtCommit === undefined ? 'COMMIT' : `${b.readAtCommit};\nCOMMIT`);
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
