// The reads of the port as SQL, and their answers parsed: named statements outside sections (each
// session prepares them once), the same texts with literals inlined inside sections (so several reads,
// and the section's BEGIN and lock, can share one multi-statement round trip).
import type { Entry } from '../../log/write.js';
import type { Resource } from '../../state/resource.js';
import type { RangeQuery, RangeRow, TouchedEntry } from '../port.js';
import { checkText, encodeKey, int, lit, toResource, type ResourceRow } from './sql-text.js';

const COLUMNS = 'type, id, version, deleted, fields';

/**
 * Each index row's resource, by its whole primary key. As a plain join, the planner could walk
 * the resources key by (world, twin, type) alone and test the id as a join filter — every row of
 * the type per index row — when its statistics do not know the world yet and put the two plans at
 * the same cost (seen as claims 4–5× slower for a while in bench/pg-queues.ts). The lateral
 * subquery with OFFSET 0 is not flattened, so the id is always part of the index condition.
 */
const RESOURCE_OF =
  'CROSS JOIN LATERAL (SELECT type, id, version, deleted, fields FROM twinworld.resources x ' +
  'WHERE x.world = l.world AND x.twin = l.twin AND x.type = l.type AND x.id = l.id OFFSET 0) r';

/** Where an index's live keys begin (schema.ts, V6), or '' where it keeps no floor; $1–$4 name it. */
export const FLOOR_OF =
  'COALESCE((SELECT f.floor FROM twinworld.index_floors f ' +
  "WHERE f.world = $1 AND f.twin = $2 AND f.type = $3 AND f.name = $4), '')";

export const READS = {
  head: 'SELECT head FROM twinworld.twins WHERE world = $1 AND twin = $2',
  range:
    'SELECT body FROM twinworld.entries WHERE world = $1 AND twin = $2 AND seq > $3 ORDER BY seq LIMIT $4',
  /**
   * A catch-up's read (StoreTx.readTouched): the body only where the entry may carry a projection
   * and for the newest entry. A body is canonical JSON, so an entry's projection is always spelled
   * `"projection"`; a field that merely holds the word costs a body, never a missed projection.
   */
  touched:
    `SELECT seq, subject_type, subject_id, CASE WHEN body LIKE '%"projection"%' ` +
    'OR seq = (SELECT head FROM twinworld.twins WHERE world = $1 AND twin = $2) THEN body END AS body ' +
    'FROM twinworld.entries WHERE world = $1 AND twin = $2 AND seq > $3 ORDER BY seq LIMIT $4',
  bySubject:
    'SELECT body FROM twinworld.entries WHERE world = $1 AND twin = $2 AND subject_type = $3 AND subject_id = $4 ORDER BY seq',
  get: `SELECT ${COLUMNS} FROM twinworld.resources WHERE world = $1 AND twin = $2 AND type = $3 AND id = $4`,
  list: `SELECT ${COLUMNS} FROM twinworld.resources WHERE world = $1 AND twin = $2 AND type = $3 AND NOT deleted ORDER BY id`,
  all: `SELECT ${COLUMNS} FROM twinworld.resources WHERE world = $1 AND twin = $2 AND type = $3 ORDER BY id`,
  lookup:
    `SELECT r.type, r.id, r.version, r.deleted, r.fields FROM twinworld.lookups l ${RESOURCE_OF} ` +
    'WHERE l.world = $1 AND l.twin = $2 AND l.type = $3 AND l.name = $4 AND l.key = $5 AND NOT r.deleted ORDER BY r.id',
  /**
   * Walks the index from its floor, where its live keys begin (a due index's; schema.ts, V6), not
   * from its start. The floor is read in a subquery of its own and the walk is lateral to it: a
   * bound that is a subquery is tested only after row-level security's (it cannot be shown to
   * leak nothing), so it would filter the walk instead of starting it.
   */
  lookupUpTo:
    `SELECT p.type, p.id, p.version, p.deleted, p.fields FROM (SELECT ${FLOOR_OF} AS floor OFFSET 0) b ` +
    `CROSS JOIN LATERAL (SELECT l.key, r.type, r.id, r.version, r.deleted, r.fields FROM twinworld.lookups l ${RESOURCE_OF} ` +
    'WHERE l.world = $1 AND l.twin = $2 AND l.type = $3 AND l.name = $4 AND l.key >= b.floor AND l.key <= $5 ' +
    'AND NOT r.deleted ORDER BY l.key, l.id LIMIT $6) p ORDER BY p.key, p.id',
  meta: 'SELECT value FROM twinworld.meta WHERE world = $1 AND twin = $2 AND key = $3',
} as const;

/** Past every character a key holds: `prefix + KEY_END` bounds the keys starting with `prefix`. */
const KEY_END = '\u{10FFFF}';

/**
 * A range read (StoreTx.range) walks the lookups primary key from the cursor row on, reading the
 * page and no more; the cursor row is found inside its narrow `within` ($7, $8 its bounds, $9 id).
 */
function rangeText(desc: boolean, after: boolean): string {
  const dir = desc ? 'DESC' : 'ASC';
  const cursor =
    'FROM twinworld.lookups c WHERE c.world = $1 AND c.twin = $2 AND c.type = $3 AND c.name = $4 ' +
    'AND c.key >= $7 AND c.key < $8 AND c.id = $9 LIMIT 1';
  // The cursor's key, a plain bound on the key, starts the index walk at the cursor; the row
  // comparison then steps past the cursor's own row and its ties.
  const past = after
    ? `AND l.key ${desc ? '<=' : '>='} (SELECT c.key ${cursor}) ` +
      `AND (l.key, l.id) ${desc ? '<' : '>'} (SELECT c.key, c.id ${cursor}) `
    : '';
  return (
    `SELECT l.key, r.type, r.id, r.version, r.deleted, r.fields FROM twinworld.lookups l ${RESOURCE_OF} ` +
    'WHERE l.world = $1 AND l.twin = $2 AND l.type = $3 AND l.name = $4 AND l.key >= $5 AND l.key < $6 ' +
    `AND NOT r.deleted ${past}ORDER BY l.key ${dir}, l.id ${dir} LIMIT $${after ? 10 : 7}`
  );
}

/** Reads shared by sections and by reads outside them: named, so each session prepares them once. */
export class Reads {
  constructor(
    private readonly world: string,
    private readonly twin: string,
    private readonly run: <R extends object>(config: {
      name: string;
      text: string;
      values: unknown[];
    }) => Promise<R[]>,
  ) {}

  async head(): Promise<number> {
    const rows = await this.run<{ head: number }>({
      name: 'tw_head',
      text: READS.head,
      values: [this.world, this.twin],
    });
    return rows[0]?.head ?? 0;
  }

  async readEntries(afterSeq: number, limit: number): Promise<Entry[]> {
    const rows = await this.run<{ body: string }>({
      name: 'tw_range',
      text: READS.range,
      values: [this.world, this.twin, afterSeq, Math.max(0, limit)],
    });
    return rows.map((r) => JSON.parse(r.body) as Entry);
  }

  async readTouched(afterSeq: number, limit: number): Promise<TouchedEntry[]> {
    const rows = await this.run<{
      seq: number;
      subject_type: string;
      subject_id: string;
      body: string | null;
    }>({
      name: 'tw_touched',
      text: READS.touched,
      values: [this.world, this.twin, afterSeq, Math.max(0, limit)],
    });
    return rows.map((r) => ({
      seq: r.seq,
      subjectType: r.subject_type,
      subjectId: r.subject_id,
      ...(r.body === null ? {} : { entry: JSON.parse(r.body) as Entry }),
    }));
  }

  async entriesBySubject(type: string, id: string): Promise<Entry[]> {
    const rows = await this.run<{ body: string }>({
      name: 'tw_by_subject',
      text: READS.bySubject,
      values: [this.world, this.twin, type, id],
    });
    return rows.map((r) => JSON.parse(r.body) as Entry);
  }

  async getResource(type: string, id: string): Promise<Resource | undefined> {
    if (!safeKey(type) || !safeKey(id)) return undefined;
    const rows = await this.run<ResourceRow>({
      name: 'tw_get',
      text: READS.get,
      values: [this.world, this.twin, type, id],
    });
    return rows[0] === undefined ? undefined : toResource(rows[0]);
  }

  async listResources(type: string): Promise<Resource[]> {
    if (!safeKey(type)) return [];
    return (
      await this.run<ResourceRow>({
        name: 'tw_list',
        text: READS.list,
        values: [this.world, this.twin, type],
      })
    ).map(toResource);
  }

  async allResources(type: string): Promise<Resource[]> {
    if (!safeKey(type)) return [];
    return (
      await this.run<ResourceRow>({
        name: 'tw_all',
        text: READS.all,
        values: [this.world, this.twin, type],
      })
    ).map(toResource);
  }

  async lookup(type: string, index: string, key: string): Promise<Resource[]> {
    if (!safeKey(type) || !safeKey(index)) return [];
    const rows = await this.run<ResourceRow>({
      name: 'tw_lookup',
      text: READS.lookup,
      values: [this.world, this.twin, type, index, encodeKey(key)],
    });
    return rows.map(toResource);
  }

  async lookupUpTo(
    type: string,
    index: string,
    maxKey: string,
    limit: number,
  ): Promise<Resource[]> {
    if (!safeKey(type) || !safeKey(index)) return [];
    const rows = await this.run<ResourceRow>({
      name: 'tw_lookup_up_to',
      text: READS.lookupUpTo,
      values: [this.world, this.twin, type, index, encodeKey(maxKey), Math.max(0, limit)],
    });
    return rows.map(toResource);
  }

  async range(type: string, index: string, query: RangeQuery): Promise<RangeRow[]> {
    const { after } = query;
    if (!safeKey(type) || !safeKey(index) || !safeKey(query.prefix)) return [];
    if (after !== undefined && (!safeKey(after.id) || !safeKey(after.within))) return [];
    const desc = query.descending === true;
    const limit = Math.min(Math.max(0, Math.floor(query.limit)), Number.MAX_SAFE_INTEGER);
    const bounds = [encodeKey(query.prefix), encodeKey(`${query.prefix}${KEY_END}`)];
    const cursor =
      after === undefined
        ? []
        : [encodeKey(after.within), encodeKey(`${after.within}${KEY_END}`), after.id];
    const rows = await this.run<ResourceRow & { key: string }>({
      name: `tw_range_${desc ? 'desc' : 'asc'}${after === undefined ? '' : '_after'}`,
      text: rangeText(desc, after !== undefined),
      values: [this.world, this.twin, type, index, ...bounds, ...cursor, limit],
    });
    return rows.map((row) => ({ key: decodeKey(row.key), resource: toResource(row) }));
  }

  async getMeta(key: string): Promise<string | undefined> {
    if (!safeKey(key)) return undefined;
    const rows = await this.run<{ value: string }>({
      name: 'tw_meta',
      text: READS.meta,
      values: [this.world, this.twin, key],
    });
    return rows[0]?.value;
  }
}

/** A key as stored back to the key given (encodeKey escapes what text cannot hold). */
function decodeKey(stored: string): string {
  return stored.startsWith('\\') ? (JSON.parse(stored.slice(1)) as string) : stored;
}

/** Text PostgreSQL could not hold can name nothing stored: the answer is "nothing", not an error. */
function safeKey(value: string): boolean {
  try {
    checkText(value, 'key');
    return true;
  } catch {
    return false;
  }
}

/** A value spelled as a literal (strings quoted, numbers checked integers). */
function spell(value: unknown): string {
  return typeof value === 'number' ? int(value) : lit(String(value));
}

/**
 * The reads a section sends, prepared once per session (connection.ts runs this with the session's
 * setup) and executed inside sections with their values spelled as literals: a multi-statement
 * round trip cannot carry parameters, and a text with its values inline is planned again at every
 * section (the due pick's plan took longer than running it).
 */
const PREPARED_READS = new Map(
  (Object.keys(READS) as (keyof typeof READS)[]).map((key) => [READS[key], `twinworld_${key}`]),
);

export const PREPARE_READS: readonly string[] = [...PREPARED_READS].map(
  ([text, name]) => `PREPARE ${name} AS ${text}`,
);

/** One read as a statement of a multi-statement section: a prepared one executed, others inline. */
export function inline(text: string, values: readonly unknown[]): string {
  const prepared = PREPARED_READS.get(text as (typeof READS)[keyof typeof READS]);
  if (prepared !== undefined) return `EXECUTE ${prepared}(${values.map(spell).join(', ')})`;
  return text.replace(/\$(\d+)/g, (_, n: string) => spell(values[Number(n) - 1]));
}
