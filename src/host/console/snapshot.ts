// What the console page shows, read from the store as it is now: twins with their heads and chains
// (a state hash on request); recent deliveries (filtered) with their endpoints' recent success;
// trigger records; schedules with their next occurrences and ledger; deferred dispatches; the world
// clock. Reads only: nothing here appends. The page reads again whenever a head moves, so what it
// reads on a refresh is bounded (a window of each log, a page per type), never the history: the
// cost of a refresh is the same with a hundred records or a million. See docs/console.md.
import { attemptId, attemptType, deliveryOf } from '../../events/delivery-records.js';
import { TwinError } from '../../errors.js';
import type { Dispatcher } from '../../events/dispatcher.js';
import { locateEndpoints, type LocatedEndpoint } from '../../events/endpoint-lookup.js';
import { packTwinName, registeredPacks } from '../../events/pack-registry.js';
import type { Resource } from '../../state/resource.js';
import { listDispatches } from '../../triggers/deferred/operations.js';
import { DEFAULT_TRIGGER_TWIN } from '../../triggers/defaults.js';
import { listTriggerRecords } from '../../triggers/list.js';
import { Schedules } from '../../triggers/schedules/schedules.js';
import { isoAt, VirtualClock } from '../../world/clock.js';
import type { World } from '../../world/world.js';

/** The filters the deliveries table takes; an absent one matches everything. */
export interface DeliveryFilter {
  readonly state?: string;
  readonly event?: string;
  readonly endpoint?: string;
  readonly pack?: string;
}

/** Rows of one listing the page shows at most: a console, not an export. */
const ROWS = 200;
/** Newest entries of each pack's log whose deliveries the deliveries table shows. */
export const DELIVERY_WINDOW = 2_000;
/** The deliveries of an endpoint its success rate is computed over, newest first. */
const RECENT = 20;

export async function clockView(world: World): Promise<{ now: string; virtual: boolean }> {
  return { now: isoAt(world.clock.now()), virtual: world.clock instanceof VirtualClock };
}

export async function twinsView(world: World): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const name of await world.twinNames()) {
    const twin = world.twin(name);
    const chain = await twin.chainHead();
    out.push({ name, head: chain?.seq ?? 0, chain: chain?.hash ?? null });
  }
  return out;
}

/** Refuses a twin the store does not hold, as `twinworld state` and `log` do: a typo is not "empty". */
async function knownTwin(world: World, twinName: string): Promise<void> {
  if (!(await world.twinNames()).includes(twinName))
    throw new TwinError(
      'UNKNOWN_TWIN',
      `no twin ${JSON.stringify(twinName)} on this store; the Twins table lists the twins it holds`,
      { path: 'twin' },
    );
}

/**
 * One twin's state hash, on request only since it reads every live resource, with the head it is
 * the hash at: the page shows it while the twin stays there. The read streams, so writes landing
 * meanwhile make it a hash of no one head; then it is read again, and after three tries the answer
 * says so (`head: null`) rather than pinning it to a head it may not match.
 */
export async function hashView(
  world: World,
  twinName: string,
): Promise<{ twin: string; head: number | null; hash: string }> {
  await knownTwin(world, twinName);
  const twin = world.twin(twinName);
  let hash = '';
  for (let tries = 0; tries < 3; tries++) {
    const head = await twin.head();
    hash = await twin.hash();
    if ((await twin.head()) === head) return { twin: twinName, head, hash };
  }
  return { twin: twinName, head: null, hash };
}

/**
 * One twin's live resources by type: the first ROWS of each type in id order, newest version
 * first. Past ROWS of a type, the read seeks to the next type instead of reading on.
 */
export async function resourcesView(
  world: World,
  twinName: string,
  /** Only this type: the read starts at it and stops past it. */
  onlyType?: string,
): Promise<Record<string, { id: string; version: number }[]>> {
  await knownTwin(world, twinName);
  const twin = world.twin(twinName);
  const byType: Record<string, { id: string; version: number }[]> = {};
  // No id is less than "": (type, "") is just before the type's first resource.
  let after: { type: string; id: string } | undefined =
    onlyType === undefined ? undefined : { type: onlyType, id: '' };
  for (;;) {
    let full: string | undefined;
    for await (const r of twin.liveResources(after)) {
      if (onlyType !== undefined && r.type !== onlyType) break;
      const rows = (byType[r.type] ??= []);
      rows.push({ id: r.id, version: r.version });
      if (rows.length === ROWS) {
        full = r.type;
        break;
      }
    }
    if (full === undefined || onlyType !== undefined) break;
    // No id is less than "", and no type lies between `full` and `full` + NUL.
    after = { type: `${full}\u0000`, id: '' };
  }
  for (const rows of Object.values(byType)) rows.sort((a, b) => b.version - a.version);
  return byType;
}

/** The entries that made one resource, oldest first. */
export async function historyView(world: World, twinName: string, type: string, id: string) {
  await knownTwin(world, twinName);
  return world.twin(twinName).entriesFor(type, id);
}

function deliveryRow(pack: string, r: Resource): Record<string, unknown> {
  const d = deliveryOf(r);
  return {
    id: r.id,
    pack,
    eventType: d.eventType,
    eventId: d.eventId,
    endpoint: `${d.endpointKind}/${d.endpointId}`,
    endpointId: d.endpointId,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    lastStatus: d.lastStatus,
    acceptedAt: d.acceptedAt,
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
  };
}

/**
 * The deliveries the newest DELIVERY_WINDOW entries of each pack's log made or moved: what is
 * happening now, read in a few round trips whatever the history holds.
 */
async function recentDeliveries(world: World): Promise<Record<string, unknown>[]> {
  const twins = await world.twinNames();
  const rows: Record<string, unknown>[] = [];
  for (const pack of registeredPacks(world).values()) {
    if (pack.events === undefined || !twins.includes(packTwinName(pack))) continue;
    const recordType = pack.events.recordType;
    const twin = world.twin(packTwinName(pack));
    const head = await twin.head();
    const window = await twin.entries({
      after: Math.max(0, head - DELIVERY_WINDOW),
      limit: DELIVERY_WINDOW,
    });
    const ids = [
      ...new Set(window.filter((e) => e.subjectType === recordType).map((e) => e.subjectId)),
    ];
    const records = await twin.read(
      (view) => view.getMany?.(recordType, ids) ?? ids.map((id) => view.get(recordType, id)),
    );
    for (const r of records)
      if (r !== undefined && !r.deleted) rows.push(deliveryRow(pack.name, r));
  }
  // Newest first, as a person reading what just happened wants them.
  rows.sort(
    (a, b) =>
      String(b.createdAt).localeCompare(String(a.createdAt)) ||
      String(b.id).localeCompare(String(a.id)),
  );
  return rows;
}

function matches(row: Record<string, unknown>, f: DeliveryFilter): boolean {
  return (
    (f.state === undefined || row.state === f.state) &&
    (f.event === undefined || row.eventType === f.event) &&
    (f.pack === undefined || row.pack === f.pack) &&
    (f.endpoint === undefined || row.endpointId === f.endpoint || row.endpoint === f.endpoint)
  );
}

function successRate(rows: readonly Record<string, unknown>[], endpoint: LocatedEndpoint) {
  const recent = rows
    .filter((r) => r.pack === endpoint.pack && r.endpointId === endpoint.id)
    .filter((r) => r.state === 'succeeded' || r.state === 'failed' || r.state === 'unknown')
    .slice(0, RECENT);
  const ok = recent.filter((r) => r.state === 'succeeded').length;
  return {
    settled: recent.length,
    succeeded: ok,
    rate: recent.length === 0 ? null : ok / recent.length,
  };
}

export async function deliveriesView(world: World, filter: DeliveryFilter) {
  const all = await recentDeliveries(world);
  const endpoints = (await locateEndpoints(world)).map((e) => ({
    ...e,
    recent: successRate(all, e),
  }));
  return {
    deliveries: all.filter((r) => matches(r, filter)).slice(0, ROWS),
    endpoints,
    events: [...new Set(all.map((r) => String(r.eventType)))].sort(),
    packs: [...registeredPacks(world).values()]
      .filter((p) => p.events !== undefined)
      .map((p) => p.name),
  };
}

/** The numbered attempts of one delivery, with the headers sent and each one's duration. */
export async function attemptsView(world: World, dispatcher: Dispatcher, id: string) {
  const { pack, twin, delivery } = await dispatcher.find(id);
  const type = attemptType(pack.events!.recordType);
  const attempts: Record<string, unknown>[] = [];
  for (let n = 1; n <= delivery.attempts; n++) {
    const a = await twin.get(type, attemptId(id, n));
    if (a === undefined || a.deleted) continue;
    const started = Date.parse(String(a.fields.startedAt));
    const finished =
      typeof a.fields.finishedAt === 'string' ? Date.parse(a.fields.finishedAt) : NaN;
    attempts.push({
      id: a.id,
      ...a.fields,
      url: a.fields.url ?? delivery.url,
      durationMs: Number.isFinite(finished) ? finished - started : null,
    });
  }
  return {
    delivery: { ...delivery, id, pack: pack.name },
    attempts,
    nextRetryAt: delivery.state === 'retrying' ? delivery.nextAttemptAt : null,
    now: isoAt(world.clock.now()),
  };
}

export async function triggersView(world: World) {
  if (!(await world.twinNames()).includes(DEFAULT_TRIGGER_TWIN)) return [];
  return listTriggerRecords(world, { limit: 100, onUndecodable: () => {} });
}

export async function schedulesView(world: World, tenant: string) {
  if (!(await world.twinNames()).includes(DEFAULT_TRIGGER_TWIN)) return [];
  const schedules = new Schedules({ world });
  const out: Record<string, unknown>[] = [];
  for (const s of (await schedules.list(tenant)).items) {
    const inspection = await schedules.inspect(tenant, s.scheduleId, { next: 3 });
    const ledger = await schedules.history({
      tenantId: tenant,
      scheduleId: s.scheduleId,
      limit: 10,
    });
    out.push({ ...s, next: inspection.next, ledger: ledger.items });
  }
  return out;
}

export async function dispatchesView(world: World) {
  if (!(await world.twinNames()).includes(DEFAULT_TRIGGER_TWIN)) return [];
  return listDispatches(world, { limit: 100 });
}
