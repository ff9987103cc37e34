// Every row a tenant's operations write carries that tenant, found by enumeration rather than by
// example: one world on PostgreSQL runs every tenant-scoped operation the trigger layer has — ingest
// (triggered, duplicate, conflict, filtered, unknown trigger, failed and recovered), webhook packets
// with replay guards and refusals, deferred dispatch (delay, debounce, concurrency gate, cancel),
// calendar ticks, schedules (declare, claim, run, pause, backfill, prune) and retention — for two
// tenants. Then every table of the schema (read from information_schema, not listed here) is
// checked: no tenant row is left shared, and a transaction scoped to one tenant, through the
// application role, sees nothing of the other in any table.
import { createHmac } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwinError } from '../../src/errors.js';
import type { JsonValue } from '../../src/log/json-value.js';
import { PostgresBackend } from '../../src/storage/postgres/index.js';
import { MIGRATIONS } from '../../src/storage/postgres/schema.js';
import { cancelDispatch } from '../../src/triggers/deferred/operations.js';
import { deferredDispatchWork } from '../../src/triggers/deferred/dispatch-work.js';
import { runDueDispatches } from '../../src/triggers/deferred/run-due.js';
import type { DeferredAnswer } from '../../src/triggers/answer.js';
import { createTriggerEnvelope } from '../../src/triggers/envelope.js';
import { pruneTriggerHistory } from '../../src/triggers/retention.js';
import { createTriggerRuntime, type TriggerRuntime } from '../../src/host/runtime/runtime.js';
import { recordRoutine } from '../../src/triggers/routines/record-routine.js';
import { Schedules } from '../../src/triggers/schedules/index.js';
import { scheduleKey } from '../../src/triggers/schedules/declaration.js';
import { isoAt, VirtualClock } from '../../src/world/clock.js';
import { openWorld, type World } from '../../src/world/world.js';
import { githubPacket, SECRETS } from '../triggers/packets.js';
import { asSuperuser, createDatabase, createLogin, rawClient, urlFor } from './postgres-support.js';

const T0 = '2026-03-01T12:00:00.000Z';
const TENANTS = ['tenant-alpha', 'tenant-bravo'] as const;
/** A marker only the tenant's own payloads carry, to find its data in any column of any table. */
const marker = (tenant: string): string => `secret-of-${tenant}`;

/**
 * Rows that belong to no tenant by design, each with the reason. Anything else a tenant-scoped
 * operation leaves without a tenant fails the test.
 */
const SHARED: Readonly<Record<string, string>> = {
  schedule_host: 'a scheduler process, serving every tenant',
  trigger_retention: "the retention cursor over every tenant's history",
};

let db: { name: string; url: string };
let appUrl: string;
let world: World;
let clock: VirtualClock;
let runtime: TriggerRuntime;
let failing = true;

async function settled<T>(promise: Promise<T>): Promise<T | TwinError> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof TwinError) return error;
    throw error;
  }
}

function envelope(tenant: string, triggerId: string, key: string, payload: JsonValue) {
  return createTriggerEnvelope({
    tenantId: tenant,
    scopeId: `${tenant}-scope`,
    source: { kind: 'custom', provider: 'shop' },
    triggerId,
    eventId: key,
    dedupeKey: key,
    occurredAt: T0,
    scheduledAt: T0,
    payload,
  });
}

/** An hmac-sha256 v1 packet: timestamp and body signed, the delivery id outside the MAC. */
function hmacV1(id: string, body: string, secret = SECRETS.hmac): Record<string, string> {
  const ts = Math.floor(clock.now() / 1000);
  const sig = createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
  return { 'X-Signature': `sha256=${sig}`, 'X-Timestamp': String(ts), 'X-Delivery-Id': id };
}

async function runTenantOperations(tenant: string): Promise<void> {
  const { engine, ingress, calendar } = runtime;
  const secret = { [marker(tenant)]: true };
  // direct ingest: triggered, duplicate, conflict, filtered, unknown trigger
  await engine.ingest(envelope(tenant, 'order.placed', 'ord-1', { ...secret, n: 1 }));
  await engine.ingest(envelope(tenant, 'order.placed', 'ord-1', { ...secret, n: 1 }));
  await settled(engine.ingest(envelope(tenant, 'order.placed', 'ord-1', { ...secret, n: 2 })));
  await engine.ingest(envelope(tenant, 'order.filtered', 'ord-2', secret));
  await settled(engine.ingest(envelope(tenant, 'order.nowhere', 'ord-3', secret)));
  // a failed run, then recovered
  failing = true;
  await settled(engine.ingest(envelope(tenant, 'order.flaky', 'ord-4', secret)));
  failing = false;
  await engine.recoverIncomplete(tenant, { staleAfterMs: 0 });
  // the record routine writes its own resource
  await engine.ingest(envelope(tenant, 'order.recorded', 'ord-5', secret));

  // webhooks: a GitHub packet and its replay under a new id, an hmac v1 replay, refusals
  const body = JSON.stringify({ action: 'opened', tenant, ...secret });
  const handle = (provider: string, headers: Record<string, string>, raw = body) =>
    settled(
      ingress.handle({
        tenantId: tenant,
        scopeId: `${tenant}-scope`,
        provider,
        headers,
        rawBody: raw,
      }),
    );
  await handle('github', await githubPacket(body, `${tenant}-d1`));
  await handle('github', await githubPacket(body, `${tenant}-d2`));
  await handle('github', await githubPacket(body, `${tenant}-d1`));
  await handle('plain', hmacV1(`${tenant}-h1`, body));
  await handle('plain', hmacV1(`${tenant}-h2`, body));
  await handle('plain', hmacV1(`${tenant}-h3`, body, 'wrong-secret'));
  await handle('plain', { 'X-Delivery-Id': `${tenant}-h4` });

  // deferred dispatch: a delay (then cancelled), a debounced burst, a gate of one
  const delayed = (await engine.ingest(
    envelope(tenant, 'order.later', 'ord-6', secret),
  )) as DeferredAnswer;
  await cancelDispatch(world, delayed.dispatchId);
  await engine.ingest(envelope(tenant, 'order.later', 'ord-7', secret));
  for (let i = 0; i < 3; i++)
    await engine.ingest(envelope(tenant, 'order.debounced', `ord-d${i}`, { ...secret, i }));
  for (let i = 0; i < 2; i++)
    await engine.ingest(envelope(tenant, 'order.gated', `ord-g${i}`, { ...secret, i }));

  // calendar: a subscription ticking every minute
  await calendar.configure({
    tenantId: tenant,
    scopeId: `${tenant}-scope`,
    triggerId: 'minutely',
    cron: '* * * * *',
    timezone: 'UTC',
    catchUp: { kind: 'all', max: 5 },
  });
}

async function runSchedules(schedules: Schedules, tenant: string): Promise<void> {
  await schedules.declare({
    tenantId: tenant,
    scheduleId: 'nightly',
    cron: '* * * * *',
    timezone: 'UTC',
    routine: 'sync',
    input: { [marker(tenant)]: true },
  });
  await schedules.pause(tenant, 'nightly');
  await schedules.resume(tenant, 'nightly');
}

async function advance(ms: number, schedules: Schedules): Promise<void> {
  const work = deferredDispatchWork(runtime.engine);
  const target = clock.now() + ms;
  for (;;) {
    await runDueDispatches(work, clock.now());
    const next = await work.nextDue();
    if (next === undefined || next > target || next <= clock.now()) break;
    await clock.set(next);
  }
  await clock.set(target);
  await runDueDispatches(work, clock.now());
  for (const tenant of TENANTS) {
    await runtime.calendar.tick(tenant);
    const due = await schedules.claimDue(scheduleKey(tenant, 'nightly'));
    for (const c of due.claims)
      if (c.claimed && 'reservation' in c && c.reservation) await schedules.run(c.reservation);
  }
}

beforeAll(async () => {
  db = await createDatabase('tenant_rows');
  await (await PostgresBackend.open(db.url, 'w')).close();
  appUrl = urlFor(db.name, await createLogin());
  clock = new VirtualClock(T0);
  world = openWorld({
    root: ':memory:',
    clock,
    seed: 'tenant-rows',
    backend: new PostgresBackend(appUrl, 'w'),
  });
  const sync = async (input: JsonValue) => ({ synced: input });
  const route = (triggerId: string, routineId = 'sync', more = {}) => ({
    triggerId,
    routineId,
    buildInput: (e: { payload: JsonValue }) => e.payload,
    ...more,
  });
  runtime = await createTriggerRuntime({
    world,
    owner: 'wrk_rows',
    routines: {
      sync,
      flaky: async (input) => {
        if (failing) throw Object.assign(new Error('flaky'), { name: 'FLAKY' });
        return input;
      },
      record: recordRoutine('triggers'),
    },
    routes: [
      route('order.placed'),
      route('order.filtered', 'sync', { filter: () => false }),
      route('order.flaky', 'flaky'),
      route('order.recorded', 'record'),
      route('order.later', 'sync', { dispatch: { delay: 60_000 } }),
      route('order.debounced', 'sync', {
        dispatch: { debounce: { key: 'tenantId', period: 5_000 } },
      }),
      route('order.gated', 'sync', { dispatch: { concurrency: { limit: 1 } } }),
      route('minutely'),
      route('github.events'),
      route('hmac.events'),
    ],
    webhooks: [
      {
        provider: 'github',
        triggerId: 'github.events',
        scheme: 'github',
        resolveSecrets: () => [SECRETS.github],
      },
      {
        provider: 'plain',
        triggerId: 'hmac.events',
        scheme: 'hmac-sha256',
        resolveSecrets: () => [SECRETS.hmac],
      },
    ],
  });
  const schedules = new Schedules({ world, runner: runtime.runner, owner: 'sch_rows' });
  for (const tenant of TENANTS) {
    await runTenantOperations(tenant);
    await runSchedules(schedules, tenant);
  }
  await schedules.beat();
  for (let minute = 0; minute < 3; minute++) await advance(60_000, schedules);
  for (const tenant of TENANTS) {
    await schedules.backfill({
      tenantId: tenant,
      scheduleId: 'nightly',
      from: isoAt(Date.parse(T0) - 5 * 60_000),
      to: T0,
    });
    await schedules.prune({ tenantId: tenant, before: isoAt(clock.now()) });
  }
  // the refusal windows close (a later refusal tops them up), and settled history is pruned
  await advance(10 * 60_000, schedules);
  await pruneTriggerHistory(world, { olderThanMs: 60_000 });
  await runtime.engine.stop();
}, 120_000);

afterAll(async () => {
  await world?.close();
});

/** Every table of the schema, and whether it has a tenant column. */
async function tables(c: pg.Client): Promise<{ table: string; tenant: boolean }[]> {
  const rows = (
    await c.query<{ table_name: string; tenant: boolean }>(
      `SELECT t.table_name, EXISTS (SELECT FROM information_schema.columns c
              WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'tenant') AS tenant
         FROM information_schema.tables t
        WHERE t.table_schema = 'twinworld' AND t.table_type = 'BASE TABLE'
        ORDER BY t.table_name`,
    )
  ).rows;
  return rows.map((r) => ({ table: r.table_name, tenant: r.tenant }));
}

/** Rows without a tenant in every table that has a tenant column, by table and kind, but SHARED ones. */
async function sharedRows(c: pg.Client): Promise<string[]> {
  const shared: string[] = [];
  for (const { table, tenant } of await tables(c)) {
    if (!tenant) continue;
    const cols = (
      await c.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'twinworld' AND table_name = $1`,
        [table],
      )
    ).rows.map((r) => r.column_name);
    const kind = cols.includes('subject_type') ? 'subject_type' : 'type';
    const rows = (
      await c.query<{ kind: string; n: number }>(
        `SELECT ${kind} AS kind, count(*)::int AS n FROM twinworld.${table} WHERE tenant IS NULL GROUP BY 1 ORDER BY 1`,
      )
    ).rows;
    for (const r of rows)
      if (SHARED[r.kind] === undefined) shared.push(`${table}: ${r.n} ${r.kind}`);
  }
  return shared;
}

describe('every tenant-scoped operation on PostgreSQL', () => {
  it('leaves no row of a tenant shared: each carries its tenant', async () => {
    await asSuperuser(db.name, async (c) => {
      const all = await tables(c);
      expect(all.map((t) => t.table)).toEqual(
        expect.arrayContaining(['entries', 'resources', 'lookups']),
      );
      for (const { table, tenant } of all) {
        if (!tenant) continue;
        // the operations did write rows of each tenant here
        const per = (
          await c.query<{ tenant: string }>(
            `SELECT DISTINCT tenant FROM twinworld.${table} WHERE tenant IS NOT NULL ORDER BY 1`,
          )
        ).rows.map((r) => r.tenant);
        expect({ table, per }).toEqual({ table, per: [...TENANTS] });
      }
      expect(await sharedRows(c)).toEqual([]);
      // and the operations did write: every kind of tenant row is there
      const kinds = (
        await c.query<{ type: string }>(
          `SELECT DISTINCT type FROM twinworld.resources WHERE tenant = $1 ORDER BY 1`,
          [TENANTS[1]],
        )
      ).rows.map((r) => r.type);
      expect(kinds).toEqual(
        expect.arrayContaining([
          'trigger_record',
          'trigger_receipt',
          'trigger_replay_guard',
          'trigger_refusals',
          'trigger_dispatch',
          'trigger_debounce',
          'trigger_dispatch_gate',
          'routine_run',
          'received_event',
          'calendar_subscription',
          'calendar_occurrence',
          'schedule',
          'schedule_fire',
          'schedule_prune',
        ]),
      );
    });
  });

  it("a transaction scoped to one tenant, as the application role, sees none of the other's rows in any table", async () => {
    const c = await rawClient(appUrl);
    try {
      await c.query(
        `SET ROLE twinworld_app; SET standard_conforming_strings = on; SELECT set_config('twinworld.tenant', '*', false)`,
      );
      const all = await tables(c);
      for (const [me, other] of [TENANTS, [...TENANTS].reverse()] as const) {
        await c.query(`BEGIN; SELECT set_config('twinworld.tenant', '${me}', true)`);
        let mine = 0;
        for (const { table } of all) {
          const rows = (
            await c.query<{ row: string }>(`SELECT t::text AS row FROM twinworld.${table} t`)
          ).rows;
          const leaked = rows.filter((r) => r.row.includes(other) || r.row.includes(marker(other)));
          expect({ me, table, leaked: leaked.slice(0, 3).map((r) => r.row.slice(0, 300)) }).toEqual(
            {
              me,
              table,
              leaked: [],
            },
          );
          mine += rows.filter((r) => r.row.includes(marker(me))).length;
        }
        await c.query('ROLLBACK');
        // not vacuous: the tenant's own rows, payloads included, are visible to it
        expect(mine).toBeGreaterThan(0);
      }
    } finally {
      await c.end();
    }
  });

  it('a database written before tenants were derived gets them from migration 3', async () => {
    await asSuperuser(db.name, async (c) => {
      // as an older version left them: trigger records and runs shared, with their entries and keys
      await c.query(
        `UPDATE twinworld.resources SET tenant = NULL WHERE type IN ('trigger_record', 'routine_run')`,
      );
      await c.query(
        `UPDATE twinworld.entries SET tenant = NULL WHERE subject_type IN ('trigger_record', 'routine_run')`,
      );
      expect(await sharedRows(c)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^resources: \d+ trigger_record$/)]),
      );
      // migration 3 as the migrator runs it (later migrations build on it, so it runs alone here)
      await c.query('BEGIN; SET LOCAL ROLE twinworld_owner');
      await c.query(MIGRATIONS.find((m) => m.version === 3)!.asOwner);
      await c.query('COMMIT');
      expect(await sharedRows(c)).toEqual([]);
    });
  });
});
