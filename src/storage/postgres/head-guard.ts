// The condition of a conditional commit (StoreTx.expect) as one SQL statement: it answers 0 when the
// twin's head and one meta value are as the process last saw them, and otherwise fails with an
// integer cast of a text naming the failure — not a constant, so nothing folds it away when the
// statement is planned — which the section turns into HeadMoved. Prepared once per session
// (connection.ts), like the other statements a section executes.
import { int, lit, litOrNull } from './sql-text.js';

/** What the failed condition says. */
export const HEAD_MOVED = 'twinworld_head_moved:';

/** $1 world, $2 twin, $3 the head, $4 the meta key, $5 its value (NULL: absent). */
export const PREPARE_GUARD =
  'PREPARE twinworld_guard (text, text, bigint, text, text) AS ' +
  'SELECT CASE WHEN t.head = $3 AND (SELECT value FROM twinworld.meta WHERE world = $1 AND twin = $2 AND key = $4) ' +
  `IS NOT DISTINCT FROM $5 THEN 0 ELSE (${lit(HEAD_MOVED)} || COALESCE(t.head, -1))::int END ` +
  'FROM (VALUES (1)) AS one (x) LEFT JOIN twinworld.twins t ON t.world = $1 AND t.twin = $2';

export function guardStatement(
  world: string,
  twin: string,
  guard: { readonly head: number; readonly meta: { key: string; value: string | undefined } },
): string {
  const { head, meta } = guard;
  return `EXECUTE twinworld_guard(${lit(world)}, ${lit(twin)}, ${int(head)}, ${lit(meta.key)}, ${litOrNull(meta.value ?? null)})`;
}
