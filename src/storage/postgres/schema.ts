// The versioned migrations of the `twinworld` schema. A migration is never edited once released: a
// change is a new version appended here. The runner (migrate.ts) applies what a database lacks, in
// order, in one transaction under an advisory lock.
//
// Roles: `twinworld_owner` (NOLOGIN) owns the schema and every table; `twinworld_app` (NOLOGIN) may read
// and write rows but owns nothing, so row-level security always applies to it; the backend's sessions run
// `SET ROLE twinworld_app` whatever they logged in as. Tenant rows carry `tenant`; their tables have
// ENABLE + FORCE ROW LEVEL SECURITY and one policy on the `twinworld.tenant` setting.

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Run as the connecting user: may create roles and the schema. */
  readonly asConnectingUser?: string;
  /** Run as twinworld_owner, so what it creates belongs to the owner role. */
  readonly asOwner: string;
}

/** Who may see (and write) a row: a kernel-wide session every row, a tenant its own and shared rows. */
const VISIBLE = `current_setting('twinworld.tenant', true) = '*' OR tenant IS NULL OR tenant = current_setting('twinworld.tenant', true)`;

function tenantTable(table: string): string {
  return `
ALTER TABLE twinworld.${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE twinworld.${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON twinworld.${table} USING (${VISIBLE}) WITH CHECK (${VISIBLE});`;
}

const V1_ROLES = `
DO $roles$
BEGIN
  -- Roles are cluster-wide: another database may be creating them at this moment.
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'twinworld_owner') THEN
    BEGIN
      CREATE ROLE twinworld_owner NOLOGIN;
      EXECUTE format('GRANT twinworld_owner TO %I', current_user);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'twinworld_app') THEN
    BEGIN
      CREATE ROLE twinworld_app NOLOGIN;
      EXECUTE format('GRANT twinworld_app TO %I', current_user);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END
$roles$;
CREATE SCHEMA IF NOT EXISTS twinworld AUTHORIZATION twinworld_owner;`;

const V1_TABLES = `
CREATE TABLE twinworld.migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
-- One row per twin, shared by every tenant: the head moves with every append whoever's row it is,
-- so the log stays dense and a tenant-scoped section still knows where the log ends.
CREATE TABLE twinworld.twins (
  world text COLLATE "C" NOT NULL,
  twin text COLLATE "C" NOT NULL,
  head bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (world, twin)
);
CREATE TABLE twinworld.entries (
  world text COLLATE "C" NOT NULL,
  twin text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  tenant text COLLATE "C",
  subject_type text COLLATE "C" NOT NULL,
  subject_id text COLLATE "C" NOT NULL,
  body text NOT NULL,
  PRIMARY KEY (world, twin, seq)
);
CREATE INDEX entries_by_subject ON twinworld.entries (world, twin, subject_type, subject_id, seq);
-- COLLATE "C": (type, id) order is UTF-8 byte order, as on SQLite, so state hashes agree.
CREATE TABLE twinworld.resources (
  world text COLLATE "C" NOT NULL,
  twin text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  tenant text COLLATE "C",
  version bigint NOT NULL,
  deleted boolean NOT NULL,
  fields text NOT NULL,
  PRIMARY KEY (world, twin, type, id)
);
CREATE TABLE twinworld.lookups (
  world text COLLATE "C" NOT NULL,
  twin text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  tenant text COLLATE "C",
  PRIMARY KEY (world, twin, type, name, key, id)
);
CREATE TABLE twinworld.meta (
  world text COLLATE "C" NOT NULL,
  twin text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (world, twin, key)
);
-- A resource that moves to another tenant takes its index keys along (rare: tenants are identities).
CREATE FUNCTION twinworld.resource_tenant_moved() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE twinworld.lookups SET tenant = NEW.tenant
   WHERE world = NEW.world AND twin = NEW.twin AND type = NEW.type AND id = NEW.id;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER resources_tenant_moved AFTER UPDATE OF tenant ON twinworld.resources
  FOR EACH ROW WHEN (OLD.tenant IS DISTINCT FROM NEW.tenant) EXECUTE FUNCTION twinworld.resource_tenant_moved();
${tenantTable('entries')}
${tenantTable('resources')}
${tenantTable('lookups')}
-- Least privilege: the log is append-only (no UPDATE or DELETE on entries), resources are tombstoned,
-- never deleted, and nothing is granted TRUNCATE (which row-level security does not filter).
GRANT USAGE ON SCHEMA twinworld TO twinworld_app;
GRANT SELECT ON twinworld.migrations TO twinworld_app;
GRANT SELECT, INSERT, UPDATE ON twinworld.twins TO twinworld_app;
GRANT SELECT, INSERT ON twinworld.entries TO twinworld_app;
GRANT SELECT, INSERT, UPDATE ON twinworld.resources TO twinworld_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON twinworld.lookups TO twinworld_app;
GRANT SELECT, INSERT, UPDATE ON twinworld.meta TO twinworld_app;`;

// Endpoint secrets of each world (postgres/secret-store.ts). Shared by the world's hosts, not by a
// tenant: no tenant column and no row-level security; a deleted ref is retired for good.
const V2_SECRETS = `
CREATE TABLE twinworld.secrets (
  world text COLLATE "C" NOT NULL,
  ref text COLLATE "C" NOT NULL,
  n integer NOT NULL,
  secret text NOT NULL,
  expires_at double precision,
  PRIMARY KEY (world, ref, n)
);
CREATE TABLE twinworld.retired_secrets (
  world text COLLATE "C" NOT NULL,
  ref text COLLATE "C" NOT NULL,
  PRIMARY KEY (world, ref)
);
GRANT SELECT, INSERT, UPDATE, DELETE ON twinworld.secrets TO twinworld_app;
GRANT SELECT, INSERT ON twinworld.retired_secrets TO twinworld_app;`;

// Rows written before tenants were derived from a trigger record's envelope and from the write that
// projects a resource: trigger records, their entries and keys, and routine runs were shared, visible
// to every tenant. Gives them their tenant by the rules tenant.ts applies to new rows — a resource
// emptied by pruning by the first of its entries that named one. Runs as the owner, whom FORCE ROW
// LEVEL SECURITY binds too: kernel-wide first.
const V3_TENANT_ROWS = `
SELECT set_config('twinworld.tenant', '*', true);
UPDATE twinworld.resources SET tenant = fields::jsonb #>> '{envelope,tenantId}'
 WHERE tenant IS NULL AND fields LIKE '%"envelope"%'
   AND jsonb_typeof(fields::jsonb #> '{envelope,tenantId}') = 'string'
   AND fields::jsonb #>> '{envelope,tenantId}' <> '';
UPDATE twinworld.resources r SET tenant = n.tenant FROM (
  SELECT DISTINCT ON (world, twin, subject_type, subject_id) world, twin, subject_type, subject_id, tenant
    FROM (SELECT e.world, e.twin, e.subject_type, e.subject_id, e.seq,
                 CASE WHEN jsonb_typeof(b #> '{fields,tenantId}') = 'string' THEN b #>> '{fields,tenantId}'
                      WHEN jsonb_typeof(b #> '{fields,envelope,tenantId}') = 'string' THEN b #>> '{fields,envelope,tenantId}'
                 END AS tenant
            FROM twinworld.entries e CROSS JOIN LATERAL (SELECT e.body::jsonb AS b) j
           WHERE e.tenant IS NULL AND e.body LIKE '%"tenantId"%') named
   WHERE tenant IS NOT NULL AND tenant <> ''
   ORDER BY world, twin, subject_type, subject_id, seq) n
 WHERE r.tenant IS NULL AND r.world = n.world AND r.twin = n.twin AND r.type = n.subject_type AND r.id = n.subject_id;
UPDATE twinworld.resources r SET tenant = p.tenant FROM (
  SELECT DISTINCT ON (e.world, e.twin, c.value ->> 'type', c.value ->> 'id')
         e.world, e.twin, c.value ->> 'type' AS type, c.value ->> 'id' AS id, s.tenant
    FROM twinworld.entries e
    JOIN twinworld.resources s
      ON s.world = e.world AND s.twin = e.twin AND s.type = e.subject_type AND s.id = e.subject_id
    CROSS JOIN LATERAL jsonb_array_elements(e.body::jsonb #> '{projection,creates}') AS c(value)
   WHERE s.tenant IS NOT NULL AND e.body LIKE '%"projection"%'
     AND jsonb_typeof(e.body::jsonb #> '{projection,creates}') = 'array'
   ORDER BY e.world, e.twin, c.value ->> 'type', c.value ->> 'id', e.seq) p
 WHERE r.tenant IS NULL AND r.world = p.world AND r.twin = p.twin AND r.type = p.type AND r.id = p.id;
UPDATE twinworld.entries e SET tenant = r.tenant FROM twinworld.resources r
 WHERE e.tenant IS NULL AND r.tenant IS NOT NULL
   AND r.world = e.world AND r.twin = e.twin AND r.type = e.subject_type AND r.id = e.subject_id;
UPDATE twinworld.lookups l SET tenant = r.tenant FROM twinworld.resources r
 WHERE l.tenant IS NULL AND r.tenant IS NOT NULL
   AND r.world = l.world AND r.twin = l.twin AND r.type = l.type AND r.id = l.id;`;

// Idempotency keys of vendor surfaces (postgres/idempotency-store.ts): beside the log, shared by
// every host of the world, pruned on the world clock.
const V4_IDEMPOTENCY = `
CREATE TABLE twinworld.idempotency (
  world text COLLATE "C" NOT NULL,
  scope text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  fingerprint text NOT NULL,
  expires_at double precision NOT NULL,
  status integer,
  body text,
  PRIMARY KEY (world, scope, key)
);
CREATE INDEX idempotency_expiry ON twinworld.idempotency (world, expires_at);
GRANT SELECT, INSERT, UPDATE, DELETE ON twinworld.idempotency TO twinworld_app;`;

// Room on each page of resources for the row's next version. A resource is rewritten at every entry
// that touches it (a delivery: created, claimed, finished), and only its fields change, never its
// key: with space left on its page PostgreSQL keeps the new version there (a heap-only update),
// without a new key in the primary index. Pages written before this keep their fill until rewritten.
const V5_RESOURCE_FILL = `ALTER TABLE twinworld.resources SET (fillfactor = 70);`;

// Where each due index's live keys begin (prepare-writes.ts, twinworld_index_floor). A removed key
// stays in the lookups primary key until vacuum, and a queue removes its keys at the low end of
// the range a due pick walks from: without a floor, each pick walked every key claimed or finished
// since the last vacuum. Shared by every tenant, like the head: a floor bounds all of them. Every
// insert lowers the floors of the indexes it adds to, whoever runs it (a host of an earlier
// version, which knows nothing of floors, included), so a floor is never above a live key.
const V6_INDEX_FLOORS = `
CREATE TABLE twinworld.index_floors (
  world text COLLATE "C" NOT NULL,
  twin text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  floor text COLLATE "C" NOT NULL,
  PRIMARY KEY (world, twin, type, name)
);
GRANT SELECT, INSERT, UPDATE ON twinworld.index_floors TO twinworld_app;
CREATE FUNCTION twinworld.lower_index_floors() RETURNS trigger LANGUAGE plpgsql AS $lower$
BEGIN
  UPDATE twinworld.index_floors f SET floor = a.low
    FROM (SELECT world, twin, type, name, min(key) AS low FROM added GROUP BY world, twin, type, name) a
   WHERE f.world = a.world AND f.twin = a.twin AND f.type = a.type AND f.name = a.name AND a.low < f.floor;
  RETURN NULL;
END
$lower$;
CREATE TRIGGER lookups_lower_floors AFTER INSERT ON twinworld.lookups
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION twinworld.lower_index_floors();`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'log, resources, lookups, meta; owner and app roles; tenant row-level security',
    asConnectingUser: V1_ROLES,
    asOwner: V1_TABLES,
  },
  { version: 2, name: 'endpoint secrets of each world', asOwner: V2_SECRETS },
  {
    version: 3,
    name: 'tenants of trigger records, their entries, keys and routine runs',
    asOwner: V3_TENANT_ROWS,
  },
  { version: 4, name: 'idempotency keys of vendor surfaces', asOwner: V4_IDEMPOTENCY },
  { version: 5, name: 'room on resource pages for in-place updates', asOwner: V5_RESOURCE_FILL },
  { version: 6, name: 'where each due index begins', asOwner: V6_INDEX_FLOORS },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
