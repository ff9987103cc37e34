// delivery: deliveries per second end to end — write → record (same commit) → claim → signed POST
// to a receiver in another process → finish — against a raw baseline doing one SQLite insert, one
// POST and one SQLite update per delivery with the same HTTP client and concurrency. Also which
// HTTP client is faster here (node:http keep-alive vs global fetch), and write→receiver latency.
import Database from 'better-sqlite3';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Dispatcher, HttpTransport, openWorld, registerPack, type Pack } from '../src/index.js';
import {
  compared,
  figure,
  median,
  method,
  note,
  removeTemp,
  settle,
  tempDir,
  type Benchmark,
} from './measure.js';

const N = 2_000;
const CONCURRENCY = 16;
const ROUNDS = 3;
export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const pack: Pack = {
  name: 'bench',
  events: {
    rules: [{ operation: 'customer.create', types: ['customer.created'] }],
    envelope: { id: '$id', type: '$type', created: '$created', data: { object: '$object' } },
    eventIdPrefix: 'evt_',
    endpoints: [
      { type: 'endpoint', urlField: 'url', secretRefField: 'secret_ref', eventsField: 'events' },
    ],
    signing: 'standard-webhooks',
    recordType: 'delivery',
  },
};

export interface ReceiverProcess {
  url: string;
  dump(): Promise<Record<string, number>>;
  /** How many distinct messages arrived since the last dump (an IPC message, no database query). */
  count(): Promise<number>;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<ReceiverProcess> {
  const child: ChildProcess = fork(
    join(fileURLToPath(new URL('.', import.meta.url)), 'receiver-process.js'),
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m: { port: number }) => resolve(m.port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    dump: () =>
      new Promise((resolve) => {
        child.once('message', (m: { arrivals: Record<string, number> }) => resolve(m.arrivals));
        child.send({ cmd: 'dump' });
      }),
    count: () =>
      new Promise((resolve) => {
        child.once('message', (m: { count: number }) => resolve(m.count));
        child.send({ cmd: 'count' });
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send({ cmd: 'stop' });
      }),
  };
}

export async function pool(
  n: number,
  concurrency: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

async function clientRates(url: string): Promise<{ http: number; fetch: number }> {
  const body = JSON.stringify({
    type: 'customer.created',
    data: { object: { id: 'cus_1', email: 'a@example.com' } },
  });
  const transport = new HttpTransport();
  const httpRate = async (): Promise<number> => {
    const t0 = performance.now();
    await pool(
      N,
      CONCURRENCY,
      async (i) =>
        void (await transport.send({
          url: `${url}/h`,
          headers: { 'content-type': 'application/json', 'x-bench-id': `h${i}` },
          body,
          timeoutMs: 10_000,
        })),
    );
    return N / ((performance.now() - t0) / 1000);
  };
  const fetchRate = async (): Promise<number> => {
    const t0 = performance.now();
    await pool(N, CONCURRENCY, async (i) => {
      const res = await fetch(`${url}/f`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bench-id': `f${i}` },
        body,
      });
      await res.arrayBuffer();
    });
    return N / ((performance.now() - t0) / 1000);
  };
  await httpRate();
  await fetchRate();
  const h: number[] = [];
  const f: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    h.push(await httpRate());
    f.push(await fetchRate());
  }
  transport.close();
  return { http: median(h), fetch: median(f) };
}

async function baselineRate(url: string): Promise<number> {
  const dir = tempDir('delivery-raw');
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE deliveries (id TEXT PRIMARY KEY, body TEXT NOT NULL, state TEXT NOT NULL, status INTEGER)',
  );
  const insert = db.prepare('INSERT INTO deliveries (id, body, state) VALUES (?, ?, ?)');
  const update = db.prepare('UPDATE deliveries SET state = ?, status = ? WHERE id = ?');
  const transport = new HttpTransport();
  const body = JSON.stringify({
    type: 'customer.created',
    data: { object: { id: 'cus_1', email: 'a@example.com' } },
  });
  let round = 0;
  const one = async (): Promise<number> => {
    round++;
    const t0 = performance.now();
    await pool(N, CONCURRENCY, async (i) => {
      const id = `r${round}_${i}`;
      insert.run(id, body, 'sending');
      const res = await transport.send({
        url: `${url}/raw`,
        headers: { 'content-type': 'application/json', 'x-bench-id': id },
        body,
        timeoutMs: 10_000,
      });
      update.run(res.status >= 200 && res.status < 300 ? 'succeeded' : 'failed', res.status, id);
    });
    return N / ((performance.now() - t0) / 1000);
  };
  await one();
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await settle();
    rates.push(await one());
  }
  transport.close();
  db.close();
  removeTemp(dir);
  return median(rates);
}

async function kernelRate(
  receiver: ReceiverProcess,
): Promise<{ rate: number; p50: number; p99: number }> {
  const dir = tempDir('delivery');
  const world = openWorld({ root: dir });
  const twin = registerPack(world, pack);
  const dispatcher = new Dispatcher(world, { concurrency: CONCURRENCY });
  await world.secrets.set('ep', SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url: `${receiver.url}/k`, secret_ref: 'ep', events: ['*'] },
  });
  const latencies: number[] = [];
  let round = 0;
  const one = async (): Promise<number> => {
    round++;
    await receiver.dump();
    const writtenAt = new Map<string, number>();
    const t0 = performance.now();
    // Writes arrive the way a busy API's would: a few per turn of the event loop, never waiting for delivery.
    for (let i = 0; i < N; i++) {
      const { entries } = await twin.applyAtomic(() => [
        {
          operation: 'customer.create',
          subjectType: 'customer',
          subjectId: `cus_${round}_${i}`,
          fields: { i },
        },
      ]);
      const record = entries[1];
      if (record !== undefined)
        writtenAt.set(String(record.fields?.messageId), performance.timeOrigin + performance.now());
      if (i % 8 === 7) await new Promise((r) => setImmediate(r));
    }
    await dispatcher.idle();
    const rate = N / ((performance.now() - t0) / 1000);
    const arrivals = await receiver.dump();
    if (round > 1)
      for (const [id, at] of writtenAt)
        if (arrivals[id] !== undefined) latencies.push(arrivals[id]! - at);
    return rate;
  };
  await one();
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await settle();
    rates.push(await one());
  }
  const states = new Set((await twin.list('delivery')).map((d) => d.fields.state));
  if (states.size !== 1 || !states.has('succeeded'))
    throw new Error(`deliveries did not all succeed: ${[...states].join(', ')}`);
  await world.close();
  removeTemp(dir);
  latencies.sort((a, b) => a - b);
  return {
    rate: median(rates),
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

export const bench: Benchmark = {
  name: 'delivery',
  async run() {
    method(
      `${N} deliveries per round, ${CONCURRENCY} in flight, receiver in a child process on 127.0.0.1 answering 200; median of ${ROUNDS} rounds after a warm-up round. Kernel: one applyAtomic write per delivery on a SQLite root (record appended in the same commit), dispatcher claim → standard-webhooks signature → POST → finish. Baseline: one INSERT, one POST, one UPDATE per delivery (same pragmas, same HttpTransport, same concurrency). Latency: write commit → arrival at the receiver, wall clock across the two processes.`,
    );
    const receiver = await startReceiver();
    try {
      const clients = await clientRates(receiver.url);
      figure('http-client-node-http', clients.http, 'req/s');
      figure('http-client-fetch', clients.fetch, 'req/s');
      note(
        `node:http keep-alive is ${(clients.http / clients.fetch).toFixed(2)}x global fetch here; the dispatcher's HttpTransport uses node:http`,
      );
      const raw = await baselineRate(receiver.url);
      figure('delivery-raw-baseline', raw, 'deliveries/s');
      const kernel = await kernelRate(receiver);
      compared(
        'delivery-end-to-end',
        kernel.rate,
        'deliveries/s',
        kernel.rate / raw,
        'raw insert+POST+update',
        { op: '>=', target: 0.7 },
      );
      figure('delivery-latency-p50', kernel.p50, 'ms write→receiver');
      figure('delivery-latency-p99', kernel.p99, 'ms write→receiver');
    } finally {
      await receiver.stop();
    }
  },
};
