// Child process for bench/pg-queues.ts: one worker process of one system (twinworld, pg-boss with
// fetch 1 or 16, graphile-worker) on a database the parent filled. Connects and says "ready", starts
// working on "go"; on "mark" and on "stop" it reports the queries (round trips) its `pg` clients
// sent and the CPU it spent since "go", and on "stop" then stops and exits. Every job is one signed
// or plain POST to the same receiver.
import pg from 'pg';
import { HttpTransport } from '../src/index.js';

const [system, url, queue, receiverUrl] = process.argv.slice(2) as [
  'twinworld' | 'pg-boss-1' | 'pg-boss-16' | 'graphile-worker',
  string,
  string,
  string,
];
const IN_FLIGHT = 16;
/** BENCH_CLAIM_AHEAD=n: twinworld's worker claims n deliveries beyond its free slots (WorkerOptions.claimAhead). */
const CLAIM_AHEAD = Number(process.env.BENCH_CLAIM_AHEAD ?? 0);

// Round trips: every query a `pg` client sends (a pool's query goes through one client's query;
// a multi-statement text is one round trip). Counted from "go" only.
let queries = 0;
let counting = false;
/** BENCH_TRACE=1: what the queries were, by their first characters, printed on stop. */
const trace = process.env.BENCH_TRACE === '1' ? new Map<string, number>() : undefined;
/** With BENCH_TRACE=1: the characters of query text sent, and the longest one. */
let textChars = 0;
let longestText = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    queries++;
    if (trace !== undefined) {
      const first = args[0] as string | { text?: string } | undefined;
      const text = (typeof first === 'string' ? first : (first?.text ?? '?'))
        .replace(/\s+/g, ' ')
        .slice(0, 90);
      trace.set(text, (trace.get(text) ?? 0) + 1);
      const length = typeof first === 'string' ? first.length : (first?.text?.length ?? 0);
      textChars += length;
      longestText = Math.max(longestText, length);
    }
  }
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

const transport = new HttpTransport();
async function post(id: string, body: string): Promise<void> {
  const res = await transport.send({
    url: `${receiverUrl}/${system}`,
    headers: { 'content-type': 'application/json', 'x-bench-id': id },
    body,
    timeoutMs: 10_000,
  });
  if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
}

interface Running {
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function prepare(): Promise<Running> {
  if (system === 'twinworld') {
    const { Dispatcher, registerPack } = await import('../src/index.js');
    const { deliveryWork } = await import('../src/events/delivery-work.js');
    const { Worker } = await import('../src/work/worker.js');
    const { pack } = await import('./delivery.js');
    const { pgWorld } = await import('./postgres.js');
    const world = pgWorld(url, queue);
    const twin = registerPack(world, pack);
    await twin.head();
    const dispatcher = new Dispatcher(world, {
      concurrency: IN_FLIGHT + CLAIM_AHEAD,
      autoDispatch: false,
    });
    const worker = new Worker(world, deliveryWork(dispatcher), {
      owner: dispatcher.owner,
      concurrency: IN_FLIGHT,
      claimAhead: CLAIM_AHEAD,
    });
    return {
      start: async () => worker.start(),
      stop: async () => {
        await worker.stop();
        await dispatcher.close();
        await world.close();
      },
    };
  }
  if (system === 'graphile-worker') {
    const { run } = await import('graphile-worker');
    const pool = new pg.Pool({ connectionString: url, max: IN_FLIGHT + 2 });
    await pool.query('SELECT 1');
    let runner: Awaited<ReturnType<typeof run>> | undefined;
    return {
      start: async () => {
        runner = await run({
          pgPool: pool,
          concurrency: IN_FLIGHT,
          noHandleSignals: true,
          pollInterval: 1000,
          logger: new (await import('graphile-worker')).Logger(() => () => {}),
          taskList: {
            [queue]: async (payload) => {
              const p = payload as { id: string; body: string };
              await post(p.id, p.body);
            },
          },
        });
      },
      stop: async () => {
        await runner?.stop();
        await pool.end();
      },
    };
  }
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString: url,
    max: IN_FLIGHT + 2,
    supervise: false,
    schedule: false,
  });
  boss.on('error', () => {});
  await boss.start();
  return {
    start: async () => {
      const work = (batchSize: number): Promise<string> =>
        boss.work<{ id: string; body: string }>(
          queue,
          { batchSize, pollingIntervalSeconds: 0.5 },
          async (jobs) => {
            await Promise.all(jobs.map((job) => post(job.data.id, job.data.body)));
          },
        );
      // fetch 1: as many workers as deliveries in flight, one job each; fetch 16: one worker, 16 at a time.
      if (system === 'pg-boss-1') for (let i = 0; i < IN_FLIGHT; i++) await work(1);
      else await work(IN_FLIGHT);
    },
    stop: async () => {
      await boss.stop({ graceful: true, wait: true, timeout: 5_000 });
    },
  };
}

const running = await prepare();
process.send!({ ready: true });
/** CPU this process spent from the release on: what its deliveries cost it. */
let cpuFrom: NodeJS.CpuUsage | undefined;
process.on('message', (message: string) => {
  if (message === 'go') {
    cpuFrom = process.cpuUsage();
    counting = true;
    void running.start();
  } else if (message === 'mark') {
    // The warm-up is over (bench/pg-queues.ts BENCH_WARMUP): what was spent so far is left out.
    const cpu = process.cpuUsage(cpuFrom);
    process.send!({ queries, cpuMs: (cpu.user + cpu.system) / 1000, kernelMs: cpu.system / 1000 });
  } else if (message === 'stop') {
    counting = false;
    const sent = queries;
    const cpu = process.cpuUsage(cpuFrom);
    if (trace !== undefined) {
      for (const [text, n] of [...trace].sort((a, b) => b[1] - a[1]).slice(0, 25))
        console.error(`${String(n).padStart(6)}  ${text}`);
      console.error(
        `  query text: ${textChars} characters in ${sent} queries, the longest ${longestText}`,
      );
    }
    void running
      .stop()
      .catch(() => undefined)
      .then(() => {
        transport.close();
        process.send!(
          { queries: sent, cpuMs: (cpu.user + cpu.system) / 1000, kernelMs: cpu.system / 1000 },
          () => process.disconnect(),
        );
      });
  }
});
