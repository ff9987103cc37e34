// delivery-peer: our deliveries against the plain SQLite job queue people would pick instead
// (plainjob), same process, same durability (WAL, synchronous NORMAL), rounds interleaved. Its
// enqueue + claim + complete against our write (its delivery record in the same commit) + claim +
// signed send + finish; the receiver in process, then over loopback HTTP in a child process. Beside
// each rate, the WAL pages and bytes one delivery (one job) wrote, and the commits.
//
// Writes arrive 8 per turn of the event loop, in two shapes: one at a time (each awaited before the
// next starts, as one client would send them) and 8 in flight (8 clients at once). With 8 in flight
// plainjob enqueues them with `addMany` (one transaction, its batched API) and twinworld's group
// commit takes the concurrent actions together: each system at its best for the same arrivals.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { better, defineQueue, type Queue } from 'plainjob';
import {
  Dispatcher,
  HttpTransport,
  openWorld,
  registerPack,
  type Transport,
} from '../src/index.js';
import { getScheme } from '../src/events/signing/index.js';
import { SqliteBackend } from '../src/storage/sqlite/sqlite-backend.js';
import { pack, pool, SECRET, startReceiver } from './delivery.js';
import {
  bounded,
  compared,
  figure,
  median,
  method,
  note,
  removeTemp,
  settle,
  tempDir,
  WalMeter,
  type Benchmark,
} from './measure.js';

const N = 2_000;
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * BENCH_PAD=n: each event carries an n-character text field more, on both sides (real vendor events
 * run to kilobytes; the default event is ~150 bytes).
 */
const PAD = Number(process.env.BENCH_PAD ?? 0);
const pad: Record<string, string> = PAD > 0 ? { note: 'x'.repeat(PAD) } : {};
/** BENCH_WRITERS=1,8: the shapes to run (writes in flight per turn; 1 = one at a time). */
const WRITERS = (process.env.BENCH_WRITERS ?? '1,8').split(',').map(Number);
/** Writes per turn of the event loop, whatever the shape. */
const PER_TURN = 8;

interface RoundFigures {
  rate: number;
  pages: number;
  bytes: number;
  commits: number;
}

interface Side {
  /** One round: N deliveries, answered as deliveries per second, with WAL pages, bytes and commits each. */
  round(): Promise<RoundFigures>;
  /** The last round's WAL pages per delivery, per B-tree: where the pages go. */
  breakdown(): string;
  close(): Promise<void>;
}

function perDelivery(pages: Map<string, number>): string {
  return [...pages]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${(n / N).toFixed(2)}`)
    .join(', ');
}

interface Sent {
  readonly url: string;
  readonly body: string;
  readonly messageId: string;
}

const silent = { error() {}, warn() {}, info() {}, debug() {} };

function eventBody(i: number): string {
  return JSON.stringify({
    id: `evt_${i}`,
    type: 'customer.created',
    created: 1_772_366_400,
    data: { object: { id: `cus_${i}`, i, ...pad } },
  });
}

/** plainjob: `add` per delivery, CONCURRENCY loops claiming, signing and sending, then `markJobAsDone`. */
function plainjobSide(dir: string, url: string, transport: Transport, writers: number): Side {
  const file = join(dir, 'plainjob.db');
  const db = new Database(file);
  const queue: Queue = defineQueue({
    connection: better(db),
    logger: silent,
    maintenanceInterval: 3_600_000,
  });
  db.pragma('wal_autocheckpoint = 0');
  const wal = new WalMeter(Database, file);
  const scheme = getScheme('standard-webhooks');
  let round = 0;
  return {
    async round() {
      round++;
      wal.reset();
      const start = performance.now();
      let produced = 0;
      let done = 0;
      const produce = async (): Promise<void> => {
        const job = (i: number): Sent => ({
          url,
          body: eventBody(i),
          messageId: `msg_${round}_${i}`,
        });
        for (let i = 0; i < N; i += writers) {
          const n = Math.min(writers, N - i);
          if (n === 1) queue.add('deliver', job(i));
          else
            queue.addMany(
              'deliver',
              Array.from({ length: n }, (_, k) => job(i + k)),
            );
          produced += n;
          if ((i + n) % PER_TURN === 0) await new Promise((r) => setImmediate(r));
        }
      };
      const consume = async (): Promise<void> => {
        while (done < N) {
          const claimed = queue.getAndMarkJobAsProcessing('deliver');
          if (claimed === undefined) {
            if (produced === N && done >= N) return;
            await new Promise((r) => setImmediate(r));
            continue;
          }
          const job = queue.getJobById(claimed.id)!;
          const sent = JSON.parse(job.data) as Sent;
          const headers = scheme.sign({
            body: sent.body,
            secrets: [SECRET],
            timestampSec: Math.floor(Date.now() / 1000),
            messageId: sent.messageId,
          });
          const res = await transport.send({
            url: sent.url,
            headers: { 'content-type': 'application/json', ...headers },
            body: sent.body,
            timeoutMs: 10_000,
          });
          if (res.status >= 200 && res.status < 300) queue.markJobAsDone(claimed.id);
          else queue.markJobAsFailed(claimed.id, `status ${res.status}`);
          done++;
        }
      };
      await Promise.all([produce(), ...Array.from({ length: CONCURRENCY }, () => consume())]);
      const rate = N / ((performance.now() - start) / 1000);
      const { pages, bytes } = wal.frames();
      return { rate, pages: pages / N, bytes: bytes / N, commits: wal.commits() / N };
    },
    breakdown: () => perDelivery(wal.byBtree()),
    async close() {
      wal.close();
      queue.close();
      db.close();
    },
  };
}

/** twinworld: one applyAtomic write per delivery (record in the same commit), the dispatcher sends. */
async function twinSide(
  dir: string,
  url: string,
  transport: Transport,
  writers: number,
): Promise<Side> {
  const root = join(dir, 'world');
  const backend = new SqliteBackend(root, { walAutocheckpoint: 0 });
  const world = openWorld({ root, backend });
  const twin = registerPack(world, pack);
  const dispatcher = new Dispatcher(world, {
    concurrency: CONCURRENCY,
    routes: [{ prefix: url, transport }],
  });
  await world.secrets.set('ep', SECRET);
  await twin.applyWrite({
    operation: 'endpoint.create',
    subjectType: 'endpoint',
    subjectId: 'ep',
    fields: { url, secret_ref: 'ep', events: ['*'] },
  });
  const wal = new WalMeter(Database, join(root, 'twins', `${pack.name}.db`));
  let round = 0;
  return {
    async round() {
      round++;
      wal.reset();
      const start = performance.now();
      // Writes arrive the way a busy API's would: a few per turn of the event loop, never waiting
      // for delivery; `writers` of them in flight at once.
      const write = (i: number) =>
        twin.applyAtomic(() => [
          {
            operation: 'customer.create',
            subjectType: 'customer',
            subjectId: `cus_${round}_${i}`,
            fields: { i, ...pad },
          },
        ]);
      for (let i = 0; i < N; i += writers) {
        const n = Math.min(writers, N - i);
        if (n === 1) await write(i);
        else await Promise.all(Array.from({ length: n }, (_, k) => write(i + k)));
        if ((i + n) % PER_TURN === 0) await new Promise((r) => setImmediate(r));
      }
      await dispatcher.idle();
      const rate = N / ((performance.now() - start) / 1000);
      const { pages, bytes } = wal.frames();
      return { rate, pages: pages / N, bytes: bytes / N, commits: wal.commits() / N };
    },
    breakdown: () => perDelivery(wal.byBtree()),
    async close() {
      const states = new Set((await twin.list('delivery')).map((d) => d.fields.state));
      wal.close();
      await world.close();
      if (states.size !== 1 || !states.has('succeeded'))
        throw new Error(`deliveries did not all succeed: ${[...states].join(', ')}`);
    },
  };
}

async function compare(
  where: string,
  url: string,
  transport: Transport,
  writers: number,
): Promise<void> {
  const label = writers === 1 ? where : `${where}, ${writers} writes in flight`;
  const dir = tempDir(`delivery-peer-${where.replace(/ /g, '-')}-${writers}`);
  const peer = plainjobSide(dir, url, transport, writers);
  const ours = await twinSide(dir, url, transport, writers);
  try {
    await peer.round();
    await ours.round();
    const p: RoundFigures[] = [];
    const o: RoundFigures[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate who goes first, so neither always runs on the warmer (or noisier) half.
      const pair = r % 2 === 0 ? [peer, ours] : [ours, peer];
      for (const side of pair) {
        await settle();
        (side === peer ? p : o).push(await side.round());
      }
    }
    const pick = (xs: typeof p, k: keyof RoundFigures): number => median(xs.map((x) => x[k]));
    const peerRate = pick(p, 'rate');
    const ourRate = pick(o, 'rate');
    figure(`plainjob ${label}: add + claim + send + done`, peerRate, 'jobs/s');
    compared(
      `delivery ${label}: write + record + claim + send + finish`,
      ourRate,
      'deliveries/s',
      ourRate / peerRate,
      'plainjob',
      { op: '>=', target: 1 },
    );
    figure(`plainjob ${label} WAL per job`, pick(p, 'pages'), 'pages');
    bounded(
      `delivery ${label} WAL per delivery`,
      pick(o, 'pages'),
      'pages',
      `plainjob ${pick(p, 'pages').toFixed(1)}`,
      // Issue 29's goal (issue 16 asked for 5 and ended with it unmet; 29 restated it as 6).
      { op: '<=', target: 6 },
    );
    figure(`plainjob ${label} commits per job`, pick(p, 'commits'), 'commits');
    figure(`delivery ${label} commits per delivery`, pick(o, 'commits'), 'commits');
    figure(`plainjob ${label} WAL bytes per job`, pick(p, 'bytes'), 'bytes');
    figure(`delivery ${label} WAL bytes per delivery`, pick(o, 'bytes'), 'bytes');
    note(`plainjob ${label} WAL pages per job by B-tree (last round): ${peer.breakdown()}`);
    note(`delivery ${label} WAL pages per delivery by B-tree (last round): ${ours.breakdown()}`);
  } finally {
    await peer.close();
    await ours.close();
    removeTemp(dir);
  }
}

export const bench: Benchmark = {
  name: 'delivery-peer',
  async run() {
    method(
      `${N} deliveries per round, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds after a warm-up round each, the two sides alternating. ` +
        `Writes ${PER_TURN} per turn, ${WRITERS.join(' and ')} in flight (plainjob: add each, or addMany per group in flight). ` +
        `plainjob 0.0.14: queue.add per delivery; ${CONCURRENCY} loops of getAndMarkJobAsProcessing → getJobById → standard-webhooks signature → send → markJobAsDone. ` +
        `twinworld: one applyAtomic write per delivery on a SQLite root (its record in the same commit), dispatcher claim → signature → send → finish. ` +
        `Both WAL + synchronous NORMAL, autocheckpoint off during a round (WAL pages = frames appended ÷ deliveries). ` +
        `in-process: the receiver is a function answering 200; HTTP: node:http keep-alive to one receiver in a child process on 127.0.0.1.`,
    );
    // A receiver that answers 200 at once: what is left is the queue's own work and the signing.
    const inProcess: Transport = {
      name: 'in-process',
      now: () => Date.now(),
      send: async () => ({ status: 200 }),
    };
    for (const writers of WRITERS)
      await compare('in-process', 'inproc://receiver/', inProcess, writers);
    const receiver = await startReceiver();
    const http = new HttpTransport();
    try {
      for (const writers of WRITERS) await compare('over HTTP', `${receiver.url}/k`, http, writers);
    } finally {
      http.close();
      await receiver.stop();
    }
  },
};
