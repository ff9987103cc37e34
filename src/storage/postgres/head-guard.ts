// The condition of a conditional commit (StoreTx.expect) as one SQL statement: it answers 0 when the
// twin's head and one meta value are as the process last saw them, and otherwise fails with an
// integer cast of a text naming the failure — not a constant, so nothing folds it away when the
// statement is planned — which the section turns into HeadMoved.
import { int, lit } from './sql-text.js';

/** What the failed condition says. */
export const HEAD_MOVED = 'twinworld_head_moved:';

export function guardStatement(
  world: string,
  twin: string,
  guard: { readonly head: number; readonly meta: { key: string; value: string | undefined } },
): string {
  const w = lit(world);
  const t = lit(twin);
  const { head, meta } = guard;
  const value =
    `(SELECT value FROM twinworld.meta WHERE world = ${w} AND twin = ${t} AND key = ${lit(meta.key)})` +
    (meta.value === undefined ? ' IS NULL' : ` = ${lit(meta.value)}`);
  return (
    `SELECT CASE WHEN t.head = ${int(head)} AND ${value} THEN 0 ` +
    `ELSE (${lit(HEAD_MOVED)} || COALESCE(t.head, -1))::int END FROM (VALUES (1)) AS one (x) ` +
    `LEFT JOIN twinworld.twins t ON t.world = ${w} AND t.twin = ${t}`
  );
}
