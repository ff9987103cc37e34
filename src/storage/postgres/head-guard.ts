// The condition of a conditional commit (StoreTx.expect) as SQL statements: each answers 0 when it
// holds and otherwise fails with an integer cast of a text naming the failure — not a constant, so
// nothing folds it away when the statement is planned — which the section turns into HeadMoved. The
// first holds when the twin's head and one meta value are as the process last saw them; the second,
// sent only when the section took rows for absent, when none of them exists. Prepared once per
// session (connection.ts), like the other statements a section executes.
import { checkText, int, lit, litOrNull } from './sql-text.js';

/** What the failed condition says. */
export const HEAD_MOVED = 'twinworld_head_moved:';
export const ROW_PRESENT = 'twinworld_row_present:';

/** $1 world, $2 twin, $3 the head, $4 the meta key, $5 its value (NULL: absent). */
export const PREPARE_GUARD =
  'PREPARE twinworld_guard (text, text, bigint, text, text) AS ' +
  'SELECT CASE WHEN t.head = $3 AND (SELECT value FROM twinworld.meta WHERE world = $1 AND twin = $2 AND key = $4) ' +
  `IS NOT DISTINCT FROM $5 THEN 0 ELSE (${lit(HEAD_MOVED)} || COALESCE(t.head, -1))::int END ` +
  'FROM (VALUES (1)) AS one (x) LEFT JOIN twinworld.twins t ON t.world = $1 AND t.twin = $2';

/**
 * $1 world, $2 twin, $3 the types and $4 the ids of the resources that must have no row. Each is
 * probed by its whole primary key: the lateral subquery with OFFSET 0 is not flattened into a join
 * the planner could answer by walking every resource of the twin (as a plain join was, measured:
 * 2.5 ms of server time per write once a twin held a few thousand resources).
 */
export const PREPARE_ABSENT =
  'PREPARE twinworld_absent (text, text, text[], text[]) AS ' +
  'SELECT CASE WHEN EXISTS (SELECT 1 FROM unnest($3, $4) AS a (type, id) CROSS JOIN LATERAL ' +
  '(SELECT 1 FROM twinworld.resources r WHERE r.world = $1 AND r.twin = $2 AND r.type = a.type ' +
  `AND r.id = a.id OFFSET 0) r) THEN (${lit(ROW_PRESENT)} || $2)::int ELSE 0 END`;

export interface Guard {
  readonly head: number;
  readonly meta: { readonly key: string; readonly value: string | undefined };
  readonly absent: readonly { readonly type: string; readonly id: string }[];
}

export function guardStatement(world: string, twin: string, guard: Guard): string {
  const { head, meta, absent } = guard;
  const statement = `EXECUTE twinworld_guard(${lit(world)}, ${lit(twin)}, ${int(head)}, ${lit(meta.key)}, ${litOrNull(meta.value ?? null)})`;
  if (absent.length === 0) return statement;
  const array = (values: string[]): string => `ARRAY[${values.map(lit).join(', ')}]::text[]`;
  const types = absent.map((a) => checkText(a.type, 'type'));
  const ids = absent.map((a) => checkText(a.id, 'id'));
  return `${statement};
EXECUTE twinworld_absent(${lit(world)}, ${lit(twin)}, ${array(types)}, ${array(ids)})`;
}
