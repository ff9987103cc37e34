// The statements a section's commit executes, prepared once per session (connection.ts runs them
// with the session's setup; commit-queries.ts executes them by name, its rows as arrays).
import { FLOOR_OF } from './reads.js';

/**
 * Resources, entries, and index keys removed and added. A statement sent as new text with its
 * values inline was planned again at every commit: about a third of a section's time in the server
 * (docs/throughput.md). Each row's own lookups are index probes written so that no plan can do
 * otherwise — a scalar subquery by the whole key, a lateral subquery that is not flattened — since
 * a generic plan made while a world's tables were small would otherwise scan the twin's rows once
 * per statement.
 */
export const PREPARE_WRITES: readonly string[] = [
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
  // Where a due index's live keys begin, raised after a commit removed some of them (schema.ts,
  // V6) to the first key left, by a walk from the old floor: it passes only what was removed since
  // the last commit. Inserts lower the floor themselves (the lookups trigger), and every commit
  // runs under the twin's lock, so a pick that starts at the floor misses no key. Only a session
  // that sees every tenant's keys may run it. `low` is kept a subquery of its own (OFFSET 0):
  // merged into the walk, its bound would be a subquery there, tested only after row-level
  // security's, and the walk would start at the start.
  'PREPARE twinworld_index_floor (text, text, text, text) AS ' +
    'INSERT INTO twinworld.index_floors (world, twin, type, name, floor) ' +
    'SELECT $1, $2, $3, $4, COALESCE((SELECT l.key FROM twinworld.lookups l ' +
    'WHERE l.world = $1 AND l.twin = $2 AND l.type = $3 AND l.name = $4 AND l.key >= low.key ' +
    'ORDER BY l.key, l.id LIMIT 1), low.key) ' +
    `FROM (SELECT ${FLOOR_OF} AS key OFFSET 0) low ` +
    'ON CONFLICT (world, twin, type, name) DO UPDATE SET floor = excluded.floor',
  // The meta values (the chain's head among them) and the twin's new head (NULL: unchanged), in one
  // statement: every commit that appends writes both.
  'PREPARE twinworld_advance (text, text, bigint, text[], text[]) AS ' +
    'WITH meta AS (INSERT INTO twinworld.meta (world, twin, key, value) ' +
    'SELECT $1, $2, m.key, m.value FROM unnest($4, $5) AS m (key, value) ' +
    'ON CONFLICT (world, twin, key) DO UPDATE SET value = excluded.value) ' +
    'UPDATE twinworld.twins SET head = $3 WHERE world = $1 AND twin = $2 AND $3 IS NOT NULL',
];
