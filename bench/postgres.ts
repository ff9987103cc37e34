// postgres: the kernel's benchmarks on a world kept in PostgreSQL, each against a raw baseline
// through the same driver (`pg`) in the same run — single-write atomic actions vs a one-row INSERT
// per transaction; a one-off process's open + write + close vs a raw connect + INSERT; deliveries end to end vs INSERT + POST + UPDATE; trigger ingest with dedupe vs
// a one-row INSERT per envelope. Starts its own throwaway server (test/support/postgres-server.ts).
//   npm run bench:postgres   (or: npm run build && node dist/bench/run.js postgres)
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import {
  canonicalJson,
  Dispatcher,
  HttpTransport,
  openWorld,
  registerPack,
  VirtualClock,
  type Clock,
  type JsonObject,
  type World,
} from '../src/index.js';
import { PostgresBackend } from '../src/storage/postgres/index.js';
import { TriggerEngine } from '../src/triggers/engine/engine.js';
import type { TriggerEnvelope } from '../src/triggers/envelope.js';
import { InProcessRunner } from '../src/triggers/in-process-runner.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { pack, pool, SECRET, startReceiver, type ReceiverProcess } from './delivery.js';
import { entryLine } from './fixtures.js';
import { envelopeFor, IN_FLIGHT, LAG, NOW, workload } from './ingest.js';
import {
  compared,
  figure,
  median,
  method,
  note,
  nowNs,
  settle,
  sinceNs,
  type Benchmark,
} from './measure.js';
import { serverCpuMs } from './server-cpu.js';

const ATOMIC_OPS = 1_000;
const ATOMIC_ROUNDS = 7;
const DELIVERIES = 1_000;
const DELIVERY_ROUNDS = 3;
const CONCURRENCY = 16;
const INGEST_OPS = 1_000;
const INGEST_ROUNDS = 5;
const WARMUP = 200;

/** A world in `url`'s database; the label stands in for the URL in messages. */
export function pgWorld(url: string, world: string, clock?: Clock): World {
  return openWorld({
    root: `postgres://bench/${world}`,
    backend: new PostgresBackend(url, world),
    ...(clock === undefined ? {} : { clock }),
  });
}

/** One-row INSERTs, each its own transaction (autocommit), as a prepared statement on one connection. */
async function rawInserts(
  url: string,
  table: string,
): Promise<{
  insert: (seq: number, key: string, body: string) => Promise<void>;
  close: () => Promise<void>;
}> {
  const client = new pg.Client(url);
  await client.connect();
  await client.query(
    `CREATE TABLE ${table} (seq bigint PRIMARY KEY, subject_type text NOT NULL, subject_id text NOT NULL, body text NOT NULL)`,
  );
  return {
    insert: async (seq, key, body) => {
      await client.query({
        name: `${table}_insert`,
        text: `INSERT INTO ${table} (seq, subject_type, subject_id, body) VALUES ($1, 'counter', $2, $3)`,
        values: [seq, key, body],
      });
    },
    close: () => client.end(),
  };
}

async function rate(ops: number, one: (i: number) => Promise<unknown>): Promise<number> {
  const start = nowNs();
  for (let i = 0; i < ops; i++) await one(i);
  return ops / (sinceNs(start) / 1e9);
}

async function atomicWrite(url: string, postmaster: number): Promise<void> {
  method(
    `${ATOMIC_OPS} ops per round, median of ${ATOMIC_ROUNDS} rounds, rounds interleaved, after ${WARMUP} warm-up ops each. ` +
      'twin: applyAtomic(view => read counter, write value+1), one write per action, world on PostgreSQL (pooled session as twinworld_app, row-level security on, advisory lock per twin). ' +
      'create: applyAtomic creating a resource under an id it draws from the world (as a vendor API create does). ' +
      'baseline: raw `pg` INSERT of the same entry line into entries(seq pk, subject_type, subject_id, body), a prepared statement, autocommit (one row per transaction), one connection.',
  );
  const world = pgWorld(url, 'atomic');
  const raw = await rawInserts(url, 'raw_atomic');
  try {
    const twin = world.twin('bench');
    const step = async (): Promise<void> => {
      await twin.applyAtomic((view) => {
        const value = (view.get('counter', 'c1')?.fields as JsonObject | undefined)?.value;
        return {
          operation: 'counter.increment',
          subjectType: 'counter',
          subjectId: 'c1',
          fields: { value: (typeof value === 'number' ? value : 0) + 1 },
        };
      });
    };
    const create = async (): Promise<void> => {
      await twin.applyAtomic(() => ({
        operation: 'customer.create',
        subjectType: 'customer',
        subjectId: world.ids.vendorId('cus', 14),
        fields: { name: 'Jenny Rosen' },
      }));
    };
    let seq = 0;
    const rawOne = (): Promise<void> => {
      seq++;
      return raw.insert(
        seq,
        'c1',
        entryLine(seq, 'bench', 'counter.increment', 'counter', 'c1', { value: seq }),
      );
    };
    await rate(WARMUP, step);
    await rate(WARMUP, create);
    await rate(WARMUP, rawOne);
    const twinRates: number[] = [];
    const rawRates: number[] = [];
    const createRates: number[] = [];
    const twinCpu: number[] = [];
    const rawCpu: number[] = [];
    const createCpu: number[] = [];
    /** A round's rate, and the server's CPU milliseconds per op in it. */
    const round = async (one: () => Promise<unknown>, rates: number[], cpu: number[]) => {
      await settle();
      const cpu0 = serverCpuMs(postmaster);
      rates.push(await rate(ATOMIC_OPS, one));
      cpu.push((serverCpuMs(postmaster) - cpu0) / ATOMIC_OPS);
    };
    for (let r = 0; r < ATOMIC_ROUNDS; r++) {
      await round(rawOne, rawRates, rawCpu);
      await round(step, twinRates, twinCpu);
      await round(create, createRates, createCpu);
    }
    const value = ((await twin.get('counter', 'c1'))?.fields as JsonObject).value;
    if (value !== WARMUP + ATOMIC_ROUNDS * ATOMIC_OPS)
      throw new Error(
        `counter is ${String(value)}, expected ${WARMUP + ATOMIC_ROUNDS * ATOMIC_OPS}`,
      );
    const rawOps = median(rawRates);
    const twinOps = median(twinRates);
    figure('pg atomic-write baseline: raw pg insert-per-tx (autocommit)', rawOps, 'ops/s');
    compared('pg atomic-write', twinOps, 'ops/s', twinOps / rawOps, 'raw pg insert-per-tx', {
      op: '>=',
      target: 0.5,
    });
    // The server's side of one write: the statements a section sends, against one INSERT's.
    const [cpu, rawCpuMs] = [median(twinCpu), median(rawCpu)];
    figure('pg atomic-write baseline server cpu per insert', rawCpuMs, 'ms');
    figure(
      'pg atomic-write server cpu per write',
      cpu,
      `ms  (${(cpu / rawCpuMs).toFixed(2)}x raw pg insert-per-tx)`,
    );
    const createOps = median(createRates);
    compared('pg atomic-create', createOps, 'ops/s', createOps / rawOps, 'raw pg insert-per-tx', {
      op: '>=',
      target: 0.5,
    });
    const createCpuMs = median(createCpu);
    figure(
      'pg atomic-create server cpu per write',
      createCpuMs,
      `ms  (${(createCpuMs / rawCpuMs).toFixed(2)}x raw pg insert-per-tx)`,
    );
  } finally {
    await world.close();
    await raw.close();
  }
}

async function deliveryBaseline(url: string, receiver: ReceiverProcess): Promise<number> {
  const db = new pg.Pool({ connectionString: url, max: 10 });
  await db.query(
    'CREATE TABLE raw_deliveries (id text PRIMARY KEY, body text NOT NULL, state text NOT NULL, status integer)',
  );
  const transport = new HttpTransport();
  const body = JSON.stringify({
    type: 'customer.created',
    data: { object: { id: 'cus_1', email: 'a@example.com' } },
  });
  let round = 0;
  const one = async (): Promise<number> => {
    round++;
    const t0 = performance.now();
    await pool(DELIVERIES, CONCURRENCY, async (i) => {
      const id = `r${round}_${i}`;
      await db.query({
        name: 'raw_delivery_insert',
        text: 'INSERT INTO raw_deliveries (id, body, state) VALUES ($1, $2, $3)',
        values: [id, body, 'sending'],
      });
      const res = await transport.send({
        url: `${receiver.url}/raw`,
        headers: { 'content-type': 'application/json', 'x-bench-id': id },
        body,
        timeoutMs: 10_000,
      });
      await db.query({
        name: 'raw_delivery_update',
        text: 'UPDATE raw_deliveries SET state = $1, status = $2 WHERE id = $3',
        values: [res.status >= 200 && res.status < 300 ? 'succeeded' : 'failed', res.status, id],
      });
    });
    return DELIVERIES / ((performance.now() - t0) / 1000);
  };
  await one();
  const rates: number[] = [];
  for (let r = 0; r < DELIVERY_ROUNDS; r++) {
    await settle();
    rates.push(await one());
  }
  transport.close();
  await db.end();
  return median(rates);
}

async function deliveryKernel(url: string, receiver: ReceiverProcess): Promise<number> {
  const world = pgWorld(url, 'delivery');
  try {
    const twin = registerPack(world, pack);
    const dispatcher = new Dispatcher(world, { concurrency: CONCURRENCY });
    await world.secrets.set('ep', SECRET);
    await twin.applyWrite({
      operation: 'endpoint.create',
      subjectType: 'endpoint',
      subjectId: 'ep',
      fields: { url: `${receiver.url}/k`, secret_ref: 'ep', events: ['*'] },
    });
    let round = 0;
    const one = async (): Promise<number> => {
      round++;
      const t0 = performance.now();
      // Writes arrive the way a busy API's would: a few per turn of the event loop, never waiting for delivery.
      for (let i = 0; i < DELIVERIES; i++) {
        await twin.applyWrite({
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: `cus_${round}_${i}`,
          fields: { i },
        });
        if (i % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      await dispatcher.idle();
      return DELIVERIES / ((performance.now() - t0) / 1000);
    };
    await one();
    const rates: number[] = [];
    for (let r = 0; r < DELIVERY_ROUNDS; r++) {
      await settle();
      rates.push(await one());
    }
    const deliveries = await twin.list('delivery');
    const states = new Set(deliveries.map((d) => d.fields.state));
    if (
      deliveries.length !== (DELIVERY_ROUNDS + 1) * DELIVERIES ||
      states.size !== 1 ||
      !states.has('succeeded')
    )
      throw new Error(
        `deliveries did not all succeed: ${deliveries.length}, ${[...states].join(', ')}`,
      );
    await dispatcher.close();
    return median(rates);
  } finally {
    await world.close();
  }
}

async function delivery(url: string): Promise<void> {
  method(
    `${DELIVERIES} deliveries per round, ${CONCURRENCY} in flight, receiver in a child process on 127.0.0.1 answering 200; median of ${DELIVERY_ROUNDS} rounds after a warm-up round. ` +
      'Kernel: one write per delivery on a world in PostgreSQL (record appended in the same commit), dispatcher claim → standard-webhooks signature → POST → finish. ' +
      "Baseline: one INSERT, one POST, one UPDATE per delivery through a `pg` pool of 10 (the backend's size), same HttpTransport, same concurrency.",
  );
  const receiver = await startReceiver();
  try {
    const raw = await deliveryBaseline(url, receiver);
    figure('pg delivery-raw-baseline', raw, 'deliveries/s');
    const kernel = await deliveryKernel(url, receiver);
    compared(
      'pg delivery-end-to-end',
      kernel,
      'deliveries/s',
      kernel / raw,
      'raw insert+POST+update',
      { op: '>=', target: 0.7 },
    );
  } finally {
    await receiver.stop();
  }
}

async function ingest(url: string): Promise<void> {
  method(
    `${INGEST_OPS} envelopes per round over ${INGEST_OPS / 2} keys (half answer duplicate, as in bench/ingest.ts), median of ${INGEST_ROUNDS} rounds, rounds interleaved. ` +
      `engine.ingest on a world in PostgreSQL: receive+start commit, in-process routine, finish commit (duplicates: one receipt commit); sequential, and ${IN_FLIGHT} in flight. ` +
      "baseline: raw `pg` INSERT of the envelope's canonical JSON, prepared, one row per autocommit transaction, one connection.",
  );
  const world = pgWorld(url, 'ingest', new VirtualClock(NOW));
  const raw = await rawInserts(url, 'raw_envelopes');
  try {
    let runs = 0;
    const runner = new InProcessRunner(world).register(
      'fulfil',
      async () => (runs++, { ok: true }),
    );
    const engine = new TriggerEngine({ world, runner });
    engine.registerRoute({
      triggerId: 'order.placed',
      routineId: 'fulfil',
      buildInput: (e) => e.payload,
    });
    await engine.start();
    const statuses = new Map<string, number>();
    const count = (a: { status: string }): void =>
      void statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    let previous: TriggerEnvelope[] = Array.from({ length: LAG }, (_, i) => envelopeFor('warm', i));
    for (const e of previous) await engine.ingest(e);
    let rounds = 0;
    const next = (): TriggerEnvelope[] => {
      const load = workload(`r${rounds++}`, previous, INGEST_OPS);
      previous = load.filter((_, i) => i % 2 === 0);
      return load;
    };
    const sequential = async (): Promise<number> => {
      const load = next();
      const start = nowNs();
      for (const e of load) count(await engine.ingest(e));
      return INGEST_OPS / (sinceNs(start) / 1e9);
    };
    const concurrent = async (): Promise<number> => {
      const load = next();
      const start = nowNs();
      for (let i = 0; i < load.length; i += IN_FLIGHT)
        (await Promise.all(load.slice(i, i + IN_FLIGHT).map((e) => engine.ingest(e)))).forEach(
          count,
        );
      return INGEST_OPS / (sinceNs(start) / 1e9);
    };
    const sample = envelopeFor('raw', 0);
    let seq = 0;
    const rawOne = (): Promise<void> => {
      seq++;
      return raw.insert(
        seq,
        `order:${seq}`,
        canonicalJson({ ...sample, dedupeKey: `order:${seq}` }),
      );
    };
    await rate(WARMUP, rawOne);
    const rawRates: number[] = [];
    const seqRates: number[] = [];
    const concRates: number[] = [];
    for (let round = 0; round < INGEST_ROUNDS; round++) {
      await settle();
      rawRates.push(await rate(INGEST_OPS, rawOne));
      await settle();
      seqRates.push(await sequential());
      await settle();
      concRates.push(await concurrent());
    }
    const expected = rounds * (INGEST_OPS / 2);
    if (
      runs !== expected + LAG ||
      statuses.get('triggered') !== expected ||
      statuses.get('duplicate') !== expected
    )
      throw new Error(
        `expected ${expected} triggered and ${expected} duplicate, each key run once; got ${JSON.stringify([...statuses])}, ${runs} runs`,
      );
    await engine.stop();
    const rawOps = median(rawRates);
    const seq1 = median(seqRates);
    const conc = median(concRates);
    figure('pg ingest baseline: raw pg insert-per-tx (autocommit)', rawOps, 'rows/s');
    compared(
      `pg ingest with dedupe, ${IN_FLIGHT} in flight`,
      conc,
      'envelopes/s',
      conc / rawOps,
      'raw pg insert-per-tx',
      {
        op: '>=',
        target: 0.4,
      },
    );
    compared(
      'pg ingest with dedupe, one at a time',
      seq1,
      'envelopes/s',
      seq1 / rawOps,
      'raw pg insert-per-tx',
      {
        op: '>=',
        target: 0.4,
      },
    );
  } finally {
    await world.close();
    await raw.close();
  }
}

const ONE_OFF_OPS = 20;
const ONE_OFF_ROUNDS = 5;

/**
 * What a short-lived process (a CLI command) pays on a world already at this schema version: open
 * the world, one write, close; against a raw client that connects, inserts one row and ends.
 */
async function oneOff(url: string): Promise<void> {
  method(
    `${ONE_OFF_OPS} processes' worth per round, median of ${ONE_OFF_ROUNDS} rounds, rounds interleaved, in one process: ` +
      'twin: openWorld on a PostgresBackend of a migrated database, applyWrite of one resource, world.close(). ' +
      'baseline: a new `pg` Client that connects, runs one INSERT of the same entry line, and ends.',
  );
  const warm = pgWorld(url, 'oneoff');
  await warm.twin('bench').applyWrite({
    operation: 'customer.create',
    subjectType: 'customer',
    subjectId: 'cus_0',
    fields: {},
  });
  await warm.close();
  const admin = new pg.Client(url);
  await admin.connect();
  await admin.query('CREATE TABLE raw_oneoff (seq bigint PRIMARY KEY, body text NOT NULL)');
  await admin.end();
  let n = 0;
  const twinOne = async (): Promise<void> => {
    const world = pgWorld(url, 'oneoff');
    await world.twin('bench').applyWrite({
      operation: 'customer.create',
      subjectType: 'customer',
      subjectId: `cus_${++n}`,
      fields: { name: 'Jenny Rosen' },
    });
    await world.close();
  };
  const rawOne = async (): Promise<void> => {
    const client = new pg.Client(url);
    await client.connect();
    const seq = ++n;
    await client.query('INSERT INTO raw_oneoff (seq, body) VALUES ($1, $2)', [
      seq,
      entryLine(seq, 'bench', 'customer.create', 'customer', `cus_${seq}`, {}),
    ]);
    await client.end();
  };
  const twinRates: number[] = [];
  const rawRates: number[] = [];
  for (let r = 0; r < ONE_OFF_ROUNDS; r++) {
    await settle();
    rawRates.push(await rate(ONE_OFF_OPS, rawOne));
    await settle();
    twinRates.push(await rate(ONE_OFF_OPS, twinOne));
  }
  const [twin, raw] = [median(twinRates), median(rawRates)];
  figure('pg one-off baseline: raw pg connect + insert + end', raw, 'processes/s');
  compared(
    'pg one-off open + write + close',
    twin,
    'processes/s',
    twin / raw,
    'raw pg connect + insert + end',
    {
      op: '>=',
      target: 0.5,
    },
  );
}

export const bench: Benchmark = {
  name: 'postgres',
  async run() {
    const server = await startPostgresServer();
    try {
      note(
        `server: ${server.binaries}, running as ${server.runAs}, fsync off (a throwaway server); client pg, one process`,
      );
      await atomicWrite(server.url, server.pid);
      console.log('');
      await oneOff(server.url);
      console.log('');
      await delivery(server.url);
      console.log('');
      await ingest(server.url);
    } finally {
      await server.stop();
    }
  },
};
