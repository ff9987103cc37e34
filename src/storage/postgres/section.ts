// One section's handle on PostgreSQL. Reads go to the server on the section's own transaction (under
// its tenant and its advisory lock); writes are buffered and leave at commit as a few multi-row
// statements in one multi-statement query that ends in COMMIT: one round trip however much was written.
// Buffering coalesces: the last value of a resource wins, an index key's last add or remove wins, and
// clearIndex drops the keys buffered before it, then runs before the keys buffered after it.
import type { Entry } from '../../log/write.js';
import type { Resource } from '../../state/resource.js';
import type { IndexDelta, StoreTx } from '../port.js';
import type { Client } from './connection.js';
import { checkText, encodeKey, int, lit, litOrNull, toResource, type ResourceRow } from './sql-text.js';
import { storeError } from './store-error.js';
import { tenantOf, tenantOfFields } from './tenant.js';

/** Rows per multi-row statement, and characters per round trip, before a commit is split. */
const ROWS_PER_STATEMENT = 500;
const CHARS_PER_ROUND_TRIP = 4_000_000;

const COLUMNS = 'type, id, version, deleted, fields';

export const READS = {
  head: 'SELECT head FROM twinworld.twins WHERE world = $1 AND twin = $2',
  range: 'SELECT body FROM twinworld.entries WHERE world = $1 AND twin = $2 AND seq > $3 ORDER BY seq LIMIT $4',
  bySubject: 'SELECT body FROM twinworld.entries WHERE world = $1 AND twin = $2 AND subject_type = $3 AND subject_id = $4 ORDER BY seq',
  get: `SELECT ${COLUMNS} FROM twinworld.resources WHERE world = $1 AND twin = $2 AND type = $3 AND id = $4`,
  list: `SELECT ${COLUMNS} FROM twinworld.resources WHERE world = $1 AND twin = $2 AND type = $3 AND NOT deleted ORDER BY id`,
  all: `SELECT ${COLUMNS} FROM twinworld.resources WHERE world = $1 AND twin = $2 AND type = $3 ORDER BY id`,
  lookup:
    `SELECT r.type, r.id, r.version, r.deleted, r.fields FROM twinworld.lookups l JOIN twinworld.resources r ` +
    'ON r.world = l.world AND r.twin = l.twin AND r.type = l.type AND r.id = l.id ' +
    'WHERE l.world = $1 AND l.twin = $2 AND l.type = $3 AND l.name = $4 AND l.key = $5 AND NOT r.deleted ORDER BY r.id',
  meta: 'SELECT value FROM twinworld.meta WHERE world = $1 AND twin = $2 AND key = $3',
} as const;

/** Reads shared by sections and by reads outside them: named, so each session prepares them once. */
export class Reads {
  constructor(
    private readonly world: string,
    private readonly twin: string,
    private readonly run: <R extends object>(config: { name: string; text: string; values: unknown[] }) => Promise<R[]>,
  ) {}

  async head(): Promise<number> {
    const rows = await this.run<{ head: number }>({ name: 'tw_head', text: READS.head, values: [this.world, this.twin] });
    return rows[0]?.head ?? 0;
  }

  async readEntries(afterSeq: number, limit: number): Promise<Entry[]> {
    const rows = await this.run<{ body: string }>({ name: 'tw_range', text: READS.range, values: [this.world, this.twin, afterSeq, Math.max(0, limit)] });
    return rows.map((r) => JSON.parse(r.body) as Entry);
  }

  async entriesBySubject(type: string, id: string): Promise<Entry[]> {
    const rows = await this.run<{ body: string }>({ name: 'tw_by_subject', text: READS.bySubject, values: [this.world, this.twin, type, id] });
    return rows.map((r) => JSON.parse(r.body) as Entry);
  }

  async getResource(type: string, id: string): Promise<Resource | undefined> {
    if (!safeKey(type) || !safeKey(id)) return undefined;
    const rows = await this.run<ResourceRow>({ name: 'tw_get', text: READS.get, values: [this.world, this.twin, type, id] });
    return rows[0] === undefined ? undefined : toResource(rows[0]);
  }

  async listResources(type: string): Promise<Resource[]> {
    if (!safeKey(type)) return [];
    return (await this.run<ResourceRow>({ name: 'tw_list', text: READS.list, values: [this.world, this.twin, type] })).map(toResource);
  }

  async allResources(type: string): Promise<Resource[]> {
    if (!safeKey(type)) return [];
    return (await this.run<ResourceRow>({ name: 'tw_all', text: READS.all, values: [this.world, this.twin, type] })).map(toResource);
  }

  async lookup(type: string, index: string, key: string): Promise<Resource[]> {
    if (!safeKey(type) || !safeKey(index)) return [];
    const rows = await this.run<ResourceRow>({ name: 'tw_lookup', text: READS.lookup, values: [this.world, this.twin, type, index, encodeKey(key)] });
    return rows.map(toResource);
  }

  async getMeta(key: string): Promise<string | undefined> {
    if (!safeKey(key)) return undefined;
    const rows = await this.run<{ value: string }>({ name: 'tw_meta', text: READS.meta, values: [this.world, this.twin, key] });
    return rows[0]?.value;
  }
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

interface BufferedEntry {
  readonly seq: number;
  tenant: string | null;
  readonly type: string;
  readonly id: string;
  readonly body: string;
}

interface KeyOp {
  readonly type: string;
  readonly name: string;
  readonly key: string;
  readonly id: string;
  readonly add: boolean;
  readonly tenant: string | null;
}

export class PostgresTx implements StoreTx {
  private readonly entries: BufferedEntry[] = [];
  private readonly resources = new Map<string, { resource: Resource; tenant: string | null }>();
  private readonly keys = new Map<string, KeyOp>();
  private readonly clears = new Map<string, { type: string; name: string }>();
  private readonly meta = new Map<string, string>();
  private open = true;
  private readonly reads: Reads;

  constructor(
    client: Client,
    private readonly world: string,
    private readonly twin: string,
    private readonly startHead: number,
    private readonly tenant: string | undefined,
  ) {
    this.reads = new Reads(world, twin, async (config) => (await client.query(config)).rows as never);
  }

  get isOpen(): boolean {
    return this.open;
  }

  head(): number {
    return this.startHead;
  }

  readEntries(afterSeq: number, limit: number): Promise<Entry[]> {
    return this.reads.readEntries(afterSeq, limit);
  }

  getResource(type: string, id: string): Promise<Resource | undefined> {
    return this.reads.getResource(type, id);
  }

  listResources(type: string): Promise<Resource[]> {
    return this.reads.listResources(type);
  }

  lookup(type: string, index: string, key: string): Promise<Resource[]> {
    return this.reads.lookup(type, index, key);
  }

  allResources(type: string): Promise<Resource[]> {
    return this.reads.allResources(type);
  }

  getMeta(key: string): Promise<string | undefined> {
    return this.reads.getMeta(key);
  }

  private writable(): void {
    if (!this.open) throw storeError('INVALID_ARGUMENT', `twin "${this.twin}": this section has ended; write only inside its callback`);
  }

  append(entry: Entry, body: string): void {
    this.writable();
    const expected = this.startHead + this.entries.length + 1;
    if (entry.seq !== expected) throw storeError('INVALID_ARGUMENT', `twin "${this.twin}": entry seq ${entry.seq} does not follow head ${expected - 1}`, { path: 'entry.seq' });
    checkText(entry.subjectType, 'entry.subjectType');
    checkText(entry.subjectId, 'entry.subjectId');
    // Until its subject is put (the kernel puts it right after), an entry carries its own tenantId.
    this.entries.push({ seq: entry.seq, tenant: tenantOfFields(entry.fields), type: entry.subjectType, id: entry.subjectId, body });
  }

  putResource(resource: Resource, delta: IndexDelta, subjectOf?: number): void {
    this.writable();
    checkText(resource.type, 'resource.type');
    checkText(resource.id, 'resource.id');
    const tenant = tenantOf(resource);
    if (this.tenant !== undefined && tenant !== null && tenant !== this.tenant) {
      throw storeError(
        'TENANT_MISMATCH',
        `twin "${this.twin}": ${resource.type} ${resource.id} belongs to tenant "${tenant}"; a section scoped to tenant "${this.tenant}" cannot write it`,
        { path: 'resource.fields.tenantId' },
      );
    }
    this.resources.set(`${resource.type}\u0000${resource.id}`, { resource, tenant });
    if (subjectOf !== undefined) {
      const entry = this.entries[subjectOf - this.startHead - 1];
      if (entry !== undefined && entry.seq === subjectOf) entry.tenant = tenant;
    }
    for (const k of delta.remove) this.keyOp(resource, k.name, k.key, false, tenant);
    for (const k of delta.add) this.keyOp(resource, k.name, k.key, true, tenant);
  }

  private keyOp(resource: Resource, name: string, key: string, add: boolean, tenant: string | null): void {
    checkText(name, 'index name');
    const encoded = encodeKey(key);
    this.keys.set(`${resource.type}\u0000${name}\u0000${encoded}\u0000${resource.id}`, { type: resource.type, name, key: encoded, id: resource.id, add, tenant });
  }

  setMeta(key: string, value: string): void {
    this.writable();
    checkText(key, 'meta key');
    checkText(value, 'meta value');
    this.meta.set(key, value);
  }

  clearIndex(type: string, index: string): void {
    this.writable();
    checkText(type, 'type');
    checkText(index, 'index name');
    const prefix = `${type}\u0000${index}\u0000`;
    for (const k of this.keys.keys()) if (k.startsWith(prefix)) this.keys.delete(k);
    this.clears.set(prefix, { type, name: index });
  }

  /** Ends the section: no more writes. */
  close(): void {
    this.open = false;
  }

  /** The commit, as the query texts to send in order; the last ends with COMMIT. */
  commitQueries(): string[] {
    const w = lit(this.world);
    const t = lit(this.twin);
    const statements: string[] = [];
    const multiRow = (head: string, rows: string[], tail = ''): void => {
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) statements.push(`${head} ${rows.slice(i, i + ROWS_PER_STATEMENT).join(', ')}${tail}`);
    };
    multiRow(
      'INSERT INTO twinworld.entries (world, twin, seq, tenant, subject_type, subject_id, body) VALUES',
      this.entries.map((e) => `(${w}, ${t}, ${int(e.seq)}, ${litOrNull(e.tenant)}, ${lit(e.type)}, ${lit(e.id)}, ${lit(e.body)})`),
    );
    multiRow(
      'INSERT INTO twinworld.resources (world, twin, type, id, tenant, version, deleted, fields) VALUES',
      [...this.resources.values()].map(
        ({ resource: r, tenant }) => `(${w}, ${t}, ${lit(r.type)}, ${lit(r.id)}, ${litOrNull(tenant)}, ${int(r.version)}, ${r.deleted}, ${lit(JSON.stringify(r.fields))})`,
      ),
      ' ON CONFLICT (world, twin, type, id) DO UPDATE SET tenant = excluded.tenant, version = excluded.version, deleted = excluded.deleted, fields = excluded.fields',
    );
    for (const c of this.clears.values()) statements.push(`DELETE FROM twinworld.lookups WHERE world = ${w} AND twin = ${t} AND type = ${lit(c.type)} AND name = ${lit(c.name)}`);
    const ops = [...this.keys.values()];
    multiRow(
      `DELETE FROM twinworld.lookups WHERE world = ${w} AND twin = ${t} AND (type, name, key, id) IN (`,
      ops.filter((k) => !k.add).map((k) => `(${lit(k.type)}, ${lit(k.name)}, ${lit(k.key)}, ${lit(k.id)})`),
      ')',
    );
    multiRow(
      'INSERT INTO twinworld.lookups (world, twin, type, name, key, id, tenant) VALUES',
      ops
        .filter((k) => k.add)
        // a key belongs to the tenant of its resource's last value in this section
        .map((k) => `(${w}, ${t}, ${lit(k.type)}, ${lit(k.name)}, ${lit(k.key)}, ${lit(k.id)}, ${litOrNull(this.resources.get(`${k.type}\u0000${k.id}`)?.tenant ?? k.tenant)})`),
      ' ON CONFLICT DO NOTHING',
    );
    multiRow(
      'INSERT INTO twinworld.meta (world, twin, key, value) VALUES',
      [...this.meta].map(([k, v]) => `(${w}, ${t}, ${lit(k)}, ${lit(v)})`),
      ' ON CONFLICT (world, twin, key) DO UPDATE SET value = excluded.value',
    );
    if (this.entries.length > 0) {
      statements.push(`UPDATE twinworld.twins SET head = ${int(this.startHead + this.entries.length)} WHERE world = ${w} AND twin = ${t}`);
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
}
