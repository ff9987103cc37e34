// ingest: trigger envelopes ingested per second with dedupe (half of them duplicates) against raw
// single-row better-sqlite3 inserts in the same run and pragmas; and webhook ingress requests per
// second over loopback HTTP with signature verification, from 8 concurrent keep-alive clients.
import Database from 'better-sqlite3';
import http from 'node:http';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, openWorld, VirtualClock } from '../src/index.js';
import { SqliteBackend } from '../src/storage/sqlite/sqlite-backend.js';
import { getScheme } from '../src/events/signing/index.js';
import { TriggerEngine } from '../src/triggers/engine/engine.js';
import { createTriggerEnvelope, type TriggerEnvelope } from '../src/triggers/envelope.js';
import { startIngressHost } from '../src/host/ingress/ingress-host.js';
import { InProcessRunner } from '../src/triggers/in-process-runner.js';
import { WebhookIngress } from '../src/triggers/webhook/webhook-ingress.js';
import {
  bounded,
  compared,
  figure,
  median,
  method,
  note,
  nowNs,
  opsRate,
  removeTemp,
  settle,
  sinceNs,
  tempDir,
  WalMeter,
  type Benchmark,
} from './measure.js';

const OPS = 2_000;
const ROUNDS = 5;
const WARMUP = 400;
export const IN_FLIGHT = 64;
const HTTP_REQUESTS = 2_000;
const HTTP_CLIENTS = 8;
const SECRET = 'whsec_benchIngressSecret000000000000001';
export const NOW = '2026-03-01T12:00:00.000Z';

export function envelopeFor(round: string, i: number): TriggerEnvelope {
  return createTriggerEnvelope({
    tenantId: 'acme',
    scopeId: 'store-1',
    source: { kind: 'custom', provider: 'shop' },
    triggerId: 'order.placed',
    eventId: `ord_${round}_${i}`,
    dedupeKey: `order:${round}:${i}`,
    occurredAt: NOW,
    scheduledAt: NOW,
    payload: {
      order: `ord_${round}_${i}`,
      total: 4200 + i,
      currency: 'eur',
      lines: [{ sku: 'sku_1', qty: 2 }],
    },
  });
}

/** Duplicates trail their originals by this many keys: by the time one arrives, the first delivery has finished. */
export const LAG = IN_FLIGHT / 2;

/**
 * OPS envelopes over OPS/2 keys: each new key is followed by a retried delivery of the key LAG
 * places back (the first LAG retry the previous round's last keys), so half are duplicates.
 */
export function workload(
  round: string,
  previous: readonly TriggerEnvelope[],
  ops = OPS,
): TriggerEnvelope[] {
  const fresh = Array.from({ length: ops / 2 }, (_, i) => envelopeFor(round, i));
  const out: TriggerEnvelope[] = [];
  fresh.forEach((e, i) =>
    out.push(e, i >= LAG ? fresh[i - LAG]! : previous[previous.length - LAG + i]!),
  );
  return out;
}

function rawRate(
  file: string,
  sample: TriggerEnvelope,
): { round: () => number; batched: () => number; close: () => void } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE envelopes (seq INTEGER PRIMARY KEY, dedupe_key TEXT NOT NULL, body TEXT NOT NULL)',
  );
  const insert = db.prepare('INSERT INTO envelopes (seq, dedupe_key, body) VALUES (?, ?, ?)');
  let seq = 0;
  const one = (): void => {
    seq++;
    // the envelope's canonical JSON, serialized per row as the twin serializes its entries
    insert.run(seq, `order:${seq}`, canonicalJson({ ...sample, dedupeKey: `order:${seq}` }));
  };
  // Batched like the engine's group commit: IN_FLIGHT rows per transaction.
  const batch = db.transaction((from: number) => {
    for (let i = 0; i < IN_FLIGHT; i++) {
      seq++;
      insert.run(seq, `order:${seq}`, canonicalJson({ ...sample, dedupeKey: `order:${seq}` }));
    }
    return from;
  });
  const batched = (): number => {
    const start = nowNs();
    for (let i = 0; i < OPS; i += IN_FLIGHT) batch(i);
    return OPS / (sinceNs(start) / 1e9);
  };
  return { round: opsRate(one, OPS, WARMUP), batched, close: () => db.close() };
}

async function ingestRates(dir: string): Promise<{
  sequential: () => Promise<number>;
  concurrent: () => Promise<number>;
  /** WAL pages per envelope of the last concurrent round, over every twin file the engine wrote. */
  pagesPerEnvelope: () => number;
  /** The last concurrent round's WAL pages per envelope, per B-tree. */
  breakdown: () => string;
  check: () => void;
  close: () => Promise<void>;
}> {
  const root = join(dir, 'world');
  const world = openWorld({
    root,
    clock: new VirtualClock(NOW),
    backend: new SqliteBackend(root, { walAutocheckpoint: 0 }),
  });
  let runs = 0;
  const runner = new InProcessRunner(world).register('fulfil', async () => (runs++, { ok: true }));
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({
    triggerId: 'order.placed',
    routineId: 'fulfil',
    buildInput: (e) => e.payload,
  });
  await engine.start();
  let rounds = 0;
  let meters: WalMeter[] = [];
  let lastPages = Number.NaN;
  const statuses = new Map<string, number>();
  const count = (a: { status: string }): void =>
    void statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  let previous = Array.from({ length: LAG }, (_, i) => envelopeFor('warm', i));
  for (const e of previous) await engine.ingest(e);
  const next = (): TriggerEnvelope[] => {
    const load = workload(`r${rounds++}`, previous);
    previous = load.filter((_, i) => i % 2 === 0);
    return load;
  };
  return {
    sequential: async () => {
      const load = next();
      const start = nowNs();
      for (const e of load) count(await engine.ingest(e));
      return OPS / (sinceNs(start) / 1e9);
    },
    concurrent: async () => {
      const load = next();
      if (meters.length === 0)
        meters = readdirSync(join(root, 'twins'))
          .filter((f) => f.endsWith('.db'))
          .map((f) => new WalMeter(Database, join(root, 'twins', f)));
      for (const m of meters) m.reset();
      const start = nowNs();
      // IN_FLIGHT at a time, as a busy ingress host would have them.
      for (let i = 0; i < load.length; i += IN_FLIGHT)
        (await Promise.all(load.slice(i, i + IN_FLIGHT).map((e) => engine.ingest(e)))).forEach(
          count,
        );
      const rate = OPS / (sinceNs(start) / 1e9);
      lastPages = meters.reduce((sum, m) => sum + m.frames().pages, 0) / OPS;
      return rate;
    },
    pagesPerEnvelope: () => lastPages,
    breakdown: () => {
      const total = new Map<string, number>();
      for (const m of meters)
        for (const [k, n] of m.byBtree()) total.set(k, (total.get(k) ?? 0) + n);
      return [...total]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${(n / OPS).toFixed(2)}`)
        .join(', ');
    },
    check: () => {
      const expected = (OPS / 2) * rounds;
      if (
        runs !== expected + LAG ||
        statuses.get('triggered') !== expected ||
        statuses.get('duplicate') !== expected
      ) {
        throw new Error(
          `expected ${expected} triggered and ${expected} duplicate, each key run once; got ${JSON.stringify([...statuses])}, ${runs} runs`,
        );
      }
    },
    close: async () => {
      for (const m of meters) m.close();
      await world.close();
    },
  };
}

function post(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function httpRate(dir: string): Promise<{ rps: number; statuses: Map<number, number> }> {
  const clock = new VirtualClock(NOW);
  const world = openWorld({ root: join(dir, 'http-world'), clock });
  const runner = new InProcessRunner(world).register('inbox', async () => ({ ok: true }));
  const engine = new TriggerEngine({ world, runner });
  engine.registerRoute({
    triggerId: 'stripe.events',
    routineId: 'inbox',
    buildInput: (e) => e.payload,
  });
  const ingress = new WebhookIngress({
    endpoints: [
      {
        provider: 'stripe',
        triggerId: 'stripe.events',
        scheme: 'stripe',
        resolveSecrets: () => [SECRET],
      },
    ],
  });
  engine.registerSource(ingress);
  await engine.start();
  const host = await startIngressHost({ world, engine, ingress });
  const ts = Date.parse(NOW) / 1000;
  // Signed before timing starts: signing is the sender's cost, verifying is ours.
  const packets = Array.from({ length: HTTP_REQUESTS + 200 }, (_, i) => {
    const body = JSON.stringify({
      id: `evt_bench_${i}`,
      object: 'event',
      type: 'customer.created',
      created: ts,
      data: { object: { id: `cus_${i}`, email: `c${i}@example.com` } },
    });
    return {
      body,
      headers: getScheme('stripe').sign({
        body,
        secrets: [SECRET],
        timestampSec: ts,
        messageId: `evt_bench_${i}`,
      }),
    };
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: HTTP_CLIENTS });
  const url = `${host.url}/ingress/acme/stripe`;
  const statuses = new Map<number, number>();
  const send = async (from: number, to: number): Promise<void> => {
    for (let i = from; i < to; i++) {
      const status = await post(agent, url, packets[i]!.headers, packets[i]!.body);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await send(HTTP_REQUESTS, HTTP_REQUESTS + 200); // warm-up: connections, JIT
  statuses.clear();
  const per = HTTP_REQUESTS / HTTP_CLIENTS;
  const start = nowNs();
  await Promise.all(Array.from({ length: HTTP_CLIENTS }, (_, c) => send(c * per, (c + 1) * per)));
  const rps = HTTP_REQUESTS / (sinceNs(start) / 1e9);
  agent.destroy();
  await host.close();
  return { rps, statuses };
}

export const bench: Benchmark = {
  name: 'ingest',
  async run() {
    method(
      `${OPS} envelopes per round over ${OPS / 2} keys (each key delivered twice, the retry ${LAG} keys later: half answer duplicate), median of ${ROUNDS} rounds, rounds interleaved. ` +
        `ingest = createTriggerEnvelope done beforehand; engine.ingest → receive+start commit, in-process routine, finish commit (duplicates: one receipt commit); SQLite root (WAL, synchronous NORMAL). ` +
        `sequential awaits each ingest; concurrent keeps ${IN_FLIGHT} in flight (decisions of one event-loop turn share one commit). ` +
        `baseline: raw better-sqlite3 INSERT of the envelope's canonical JSON, one row per autocommit transaction, same pragmas; and the same inserts ${IN_FLIGHT} per transaction. WAL pages: frames the concurrent round appended to the world's twin files (autocheckpoint off) ÷ envelopes.`,
    );
    const dir = tempDir('ingest');
    try {
      const raw = rawRate(join(dir, 'raw.db'), envelopeFor('raw', 0));
      const ingest = await ingestRates(dir);
      const rawRates: number[] = [];
      const batchedRates: number[] = [];
      const seqRates: number[] = [];
      const concRates: number[] = [];
      const pages: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await settle();
        rawRates.push(raw.round());
        await settle();
        batchedRates.push(raw.batched());
        await settle();
        seqRates.push(await ingest.sequential());
        await settle();
        concRates.push(await ingest.concurrent());
        pages.push(ingest.pagesPerEnvelope());
      }
      ingest.check();
      const breakdown = ingest.breakdown();
      raw.close();
      await ingest.close();
      const rawOps = median(rawRates);
      const batchedOps = median(batchedRates);
      const seq = median(seqRates);
      const conc = median(concRates);
      figure('baseline raw better-sqlite3 insert-per-tx (autocommit)', rawOps, 'rows/s');
      compared(
        `ingest with dedupe, ${IN_FLIGHT} in flight`,
        conc,
        'envelopes/s',
        conc / rawOps,
        'raw better-sqlite3 insert-per-tx',
        { op: '>=', target: 0.4 },
      );
      figure(`baseline raw better-sqlite3 insert, ${IN_FLIGHT} per tx`, batchedOps, 'rows/s');
      note(
        `ingest with dedupe, ${IN_FLIGHT} in flight: ${(conc / batchedOps).toFixed(2)}x the raw insert batched ${IN_FLIGHT} per tx (the same commits the engine's group commit makes)`,
      );
      bounded(
        `ingest with dedupe, ${IN_FLIGHT} in flight, WAL per envelope`,
        median(pages),
        'pages',
        'half of them duplicates',
        { op: '<=', target: 1.2 },
      );
      note(`WAL pages per envelope by B-tree (last round): ${breakdown}`);
      compared(
        'ingest with dedupe, one at a time',
        seq,
        'envelopes/s',
        seq / rawOps,
        'raw better-sqlite3 insert-per-tx',
        { op: '>=', target: 0.4 },
      );

      method(
        `${HTTP_REQUESTS} Stripe-signed packets (distinct event ids, signed beforehand) POSTed to /ingress/acme/stripe on 127.0.0.1 by ${HTTP_CLIENTS} concurrent keep-alive clients; ` +
          `each verified (HMAC over the raw body, timestamp window on the world clock), ingested and run; SQLite root; one run after 200 warm-up requests.`,
      );
      const http1 = await httpRate(dir);
      const ok = http1.statuses.get(200) ?? 0;
      if (ok !== HTTP_REQUESTS)
        throw new Error(
          `expected ${HTTP_REQUESTS} × 200, got ${JSON.stringify([...http1.statuses])}`,
        );
      figure(
        `webhook ingress over loopback HTTP (${HTTP_CLIENTS} keep-alive clients, verified)`,
        http1.rps,
        'requests/s',
      );
      note(`all ${ok} answered 200 triggered`);
    } finally {
      removeTemp(dir);
    }
  },
};
