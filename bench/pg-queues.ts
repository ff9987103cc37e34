// pg-queues: deliveries drained by 1, 2 and 4 worker processes on one PostgreSQL server, twinworld
// against the job queues people would pick instead — pg-boss 10 fetching 1 job per worker (16
// workers) and 16 jobs at a time, and graphile-worker 0.16 (concurrency 16) — same server, same
// receiver in its own process, rounds interleaved. Beside each rate: round trips (queries the
// worker processes' `pg` clients sent) and write commits (transaction ids used) per delivery, and
// how many of the machine's cores were busy through the window (every process on it).
//   npm run build && node dist/bench/run.js pg-queues      (BENCH_N=… jobs measured per run; default 2,000, pg-boss 600;
//   BENCH_WARMUP=… jobs per worker process drained first, default 10,000, pg-boss a hundredth)
import { fork, type ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { registerPack } from '../src/index.js';
import { DUE_INDEX } from '../src/state/indexes.js';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { pack, SECRET, startReceiver, type ReceiverProcess } from './delivery.js';
import { fmt, median, method, note, settle, type Benchmark } from './measure.js';
import { pgWorld } from './postgres.js';
import { serverCpuMs } from './server-cpu.js';
import { coresBusy, machineCpu } from './machine-cpu.js';

/**
 * Jobs per run. pg-boss drains about 32 jobs a second per process here (its workers wait on their
 * own polling), so its runs take 600; the others take 2,000, which a noisy 2-core machine turns
 * into steadier rates than 600 did. BENCH_N sets both.
 */
const JOBS_POLLED = Number(process.env.BENCH_N ?? 600);
const JOBS = Number(process.env.BENCH_N ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The machine's cores: what "cores busy" is out of. */
const CORES = availableParallelism();
/**
 * BENCH_WARMUP=n: jobs per worker process drained before the measurement starts, so that the
 * figures are the steady state of a long-lived worker and not its JIT warm-up, which would
 * otherwise be paid once per process and so weigh on more processes more. Both graphile-worker's
 * and twinworld's CPU per job still fell by about a half between 1,000 and 10,000 jobs, and not
 * after (docs/throughput.md). pg-boss drains a hundredth: bound by its own polling, it runs at the
 * same rate cold or warm, at 32 jobs a second. 0: measured cold, from the release on.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10_000);
if (!Number.isSafeInteger(WARMUP) || WARMUP < 0)
  throw new Error(
    `BENCH_WARMUP must be a whole number of jobs, 0 or more (got ${process.env.BENCH_WARMUP})`,
  );
/** BENCH_PROCESSES=1,2: the worker process counts to run (default 1, 2 and 4). */
const PROCESSES = (process.env.BENCH_PROCESSES ?? '1,2,4').split(',').map(Number);
const SYSTEMS = ['pg-boss-1', 'pg-boss-16', 'graphile-worker', 'twinworld'] as const;
/** BENCH_ONLY=twinworld (comma-separated): run only these systems, for a look at one. */
const ONLY = process.env.BENCH_ONLY?.split(',');
type System = (typeof SYSTEMS)[number];
const LABEL: Record<System, string> = {
  'pg-boss-1': 'pg-boss fetch-1',
  'pg-boss-16': 'pg-boss fetch-16',
  'graphile-worker': 'graphile-worker',
  twinworld: 'twinworld',
};

interface Run {
  rate: number;
  roundTrips: number;
  commits: number;
  /** CPU milliseconds the worker processes spent per job, from the release until told to stop. */
  workerCpu: number;
  /** Of workerCpu, the operating system kernel's share (system time: system calls, wake-ups). */
  workerKernel: number;
  /** CPU milliseconds the PostgreSQL server (postmaster and backends) spent per job, release to done. */
  serverCpu: number;
  /** Cores the whole machine kept busy on average through the window (every process, not only ours). */
  busy: number;
}

const BODY = JSON.stringify({
  type: 'customer.created',
  data: { object: { id: 'cus_1', email: 'a@example.com' } },
});

let runs = 0;

/**
 * BENCH_EXPLAIN=<ms>: the server logs the plan of every statement that ran that long (auto_explain),
 * and BENCH_SERVER_LOG=<file> keeps the server's log there when the run ends: what a slow round ran.
 */
const EXPLAIN_MS = process.env.BENCH_EXPLAIN;
const SERVER_LOG = process.env.BENCH_SERVER_LOG;
/** BENCH_TRACE=1: the worker sessions' wait events, sampled through the run. */
const TRACE = process.env.BENCH_TRACE === '1';
const PROFILE = process.env.BENCH_CPU_PROF;
/**
 * BENCH_STATEMENTS=<n>: the server counts its statements (pg_stat_statements, nested ones too), and
 * each run prints the n that took the most of its execution time in the measured window, per job.
 */
const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 0);
if (!Number.isInteger(STATEMENTS) || STATEMENTS < 0)
  throw new Error(
    `BENCH_STATEMENTS: want a count of statements, got "${process.env.BENCH_STATEMENTS}"`,
  );
/** BENCH_SERVER_SETTINGS=name=value,…: more settings for the bench's server (autovacuum_naptime=1s). */
const SERVER_SETTINGS = Object.fromEntries(
  (process.env.BENCH_SERVER_SETTINGS ?? '')
    .split(',')
    .filter((s) => s !== '')
    .map((s) => {
      const at = s.indexOf('=');
      if (at < 1) throw new Error(`BENCH_SERVER_SETTINGS: want name=value, got "${s}"`);
      return [s.slice(0, at), s.slice(at + 1)];
    }),
);

/**
 * Samples pg_stat_activity every few ms on a connection of its own until the answer is asked for,
 * then says how many of the other sessions were, on average, waiting on what (Lock:advisory is
 * the twin's section lock), running a query, or idle in a transaction (waiting for their client's
 * next statement: a section holding the lock while its process decides).
 */
async function sampleWaits(url: string): Promise<() => Promise<string>> {
  const probe = new pg.Client(url);
  await probe.connect();
  const counts = new Map<string, number>();
  let samples = 0;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const { rows } = await probe.query<{ w: string; n: string }>(
        "SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type || ':' || wait_event, 'running') ELSE 'idle in transaction' END AS w, count(*) AS n FROM pg_stat_activity " +
          "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction') AND query NOT LIKE '%pg_stat_activity%' GROUP BY 1",
      );
      samples++;
      for (const r of rows) counts.set(r.w, (counts.get(r.w) ?? 0) + Number(r.n));
      await new Promise((r) => setTimeout(r, 3));
    }
  })();
  return async () => {
    stop = true;
    await loop;
    await probe.end();
    return `sessions active per sample (${samples} samples): ${[...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([w, n]) => `${w} ${(n / samples).toFixed(2)}`)
      .join(', ')}`;
  };
}

async function xid(db: pg.Client): Promise<number> {
  return Number(
    (await db.query<{ x: string }>('SELECT pg_current_xact_id()::text AS x')).rows[0]!.x,
  );
}

function jobsOf(system: System): number {
  return system.startsWith('pg-boss') ? JOBS_POLLED : JOBS;
}

function warmupOf(system: System, processes: number): number {
  return processes * (system.startsWith('pg-boss') ? Math.round(WARMUP / 100) : WARMUP);
}

interface Counted {
  queries: number;
  cpuMs: number;
  /** Of cpuMs, what the operating system kernel spent on the process's behalf (system calls: sockets, wake-ups). */
  kernelMs: number;
}

/** Sends `message` to each of `system`'s workers and waits for each one's counts. */
function ask(
  system: System,
  children: readonly ChildProcess[],
  message: 'mark' | 'stop',
): Promise<Counted[]> {
  return Promise.all(
    children.map(
      (c) =>
        new Promise<Counted>((resolve, reject) => {
          c.once('message', resolve);
          if (message === 'stop')
            c.once('exit', (code) => {
              if (code !== 0) reject(new Error(`${system} worker exited ${code}`));
            });
          c.send(message);
        }),
    ),
  );
}

/**
 * How a run's progress is read: `done` is polled to end the measured window, so it must cost the
 * server little however many rows the run has; `succeeded`, asked once after the window, checks
 * that every job really ended well.
 */
interface Progress {
  done(): Promise<number>;
  succeeded(): Promise<number>;
}

/** Fills the queue for one run and answers how to count what is done. */
async function fill(
  db: pg.Client,
  url: string,
  system: System,
  queue: string,
  receiverUrl: string,
  N: number,
): Promise<Progress> {
  const jobs = Array.from({ length: N }, (_, i) => ({ id: `${queue}_${i}`, body: BODY }));
  if (system === 'twinworld') {
    const world = pgWorld(url, queue);
    try {
      const twin = registerPack(world, pack);
      await world.secrets.set('ep', SECRET);
      await twin.applyWrite({
        operation: 'endpoint.create',
        subjectType: 'endpoint',
        subjectId: 'ep',
        fields: { url: `${receiverUrl}/twinworld`, secret_ref: 'ep', events: ['*'] },
      });
      for (let i = 0; i < N; i += 50)
        await Promise.all(
          jobs.slice(i, i + 50).map((_, j) =>
            twin.applyWrite({
              operation: 'customer.create',
              subjectType: 'customer',
              subjectId: `cus_${i + j}`,
              fields: { i: i + j },
            }),
          ),
        );
    } finally {
      await world.close();
    }
    const count = async (sql: string): Promise<number> =>
      Number((await db.query<{ n: string }>(sql, [queue])).rows[0]!.n);
    return {
      // A delivery keeps a key in the due index until it is finished (queued: its due time; sending:
      // its lease's end), so those keys are what is left: an index range. Counting succeeded
      // deliveries parses every row's JSON, warm-up included: up to a second of server CPU per ask
      // at four processes, inside the window, so that count is asked once, after it. Counted from
      // the index's floor (every live key is at or after it), not through every key removed.
      done: async () => {
        const index = `world = $1 AND twin = '${pack.name}' AND type = 'delivery' AND name = '${DUE_INDEX}'`;
        return (
          N -
          (await count(
            `SELECT count(*) AS n FROM twinworld.lookups WHERE ${index} AND key >= ` +
              `COALESCE((SELECT floor FROM twinworld.index_floors WHERE ${index}), '')`,
          ))
        );
      },
      succeeded: () =>
        count(
          "SELECT count(*) AS n FROM twinworld.resources WHERE world = $1 AND type = 'delivery' AND fields::jsonb->>'state' = 'succeeded'",
        ),
    };
  }
  if (system === 'graphile-worker') {
    const { makeWorkerUtils } = await import('graphile-worker');
    const utils = await makeWorkerUtils({ connectionString: url });
    try {
      await utils.migrate();
      await db.query(
        'SELECT graphile_worker.add_jobs(array_agg(($1::text, p, null, null, null, null, null, null)::graphile_worker.job_spec)) FROM unnest($2::json[]) AS p',
        [queue, jobs.map((j) => JSON.stringify(j))],
      );
    } finally {
      await utils.release();
    }
    // A job's row is deleted when it succeeds (a failed one stays, with its error).
    const done = async (): Promise<number> =>
      N -
      Number(
        (
          await db.query<{ n: string }>(
            'SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier = $1',
            [queue],
          )
        ).rows[0]!.n,
      );
    return { done, succeeded: done };
  }
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false });
  boss.on('error', () => {});
  await boss.start();
  try {
    await boss.createQueue(queue);
    await boss.insert(jobs.map((data) => ({ name: queue, data })));
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
  const done = async (): Promise<number> =>
    Number(
      (
        await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'",
          [queue],
        )
      ).rows[0]!.n,
    );
  return { done, succeeded: done };
}

/**
 * The statements that took the most server time since the last reset (executing, and planning: a
 * prepared statement the server plans again at every EXECUTE shows only there), per job.
 */
async function statements(db: pg.Client, jobs: number): Promise<string> {
  const { rows } = await db.query<{
    calls: string;
    ms: number;
    plan_ms: number;
    plans: string;
    rows: string;
    query: string;
  }>(
    'SELECT calls, total_exec_time AS ms, total_plan_time AS plan_ms, plans, rows, query FROM pg_stat_statements ' +
      "WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT $1",
    [STATEMENTS],
  );
  const perJob = (x: number | string): string => (Number(x) / jobs).toFixed(2);
  return rows
    .map(
      (r) =>
        `  ${((r.ms * 1000) / jobs).toFixed(1).padStart(7)} µs/job  planned ${((r.plan_ms * 1000) / jobs).toFixed(1)} µs/job ` +
        `(${perJob(r.plans)} plans/job)  ${perJob(r.calls)} calls/job  ` +
        `${perJob(r.rows)} rows/job  ${r.query.replace(/\s+/g, ' ').slice(0, 110)}`,
    )
    .join('\n');
}

async function measure(
  db: pg.Client,
  server: { url: string; pid: number },
  receiver: ReceiverProcess,
  system: System,
  n: number,
): Promise<Run> {
  const queue = `q${++runs}_${system.replace(/-/g, '_')}`;
  const N = jobsOf(system);
  const W = warmupOf(system, n);
  const arrived = await receiver.count();
  const url = server.url;
  const progress = await fill(db, url, system, queue, receiver.url, W + N);
  const worker = join(fileURLToPath(new URL('.', import.meta.url)), 'pg-queues-worker.js');
  const children: ChildProcess[] = Array.from({ length: n }, () =>
    fork(worker, [system, url, queue, receiver.url], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // BENCH_CPU_PROF=<dir>: each worker process writes a V8 CPU profile there when it exits.
      ...(PROFILE === undefined
        ? {}
        : {
            execArgv: [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${join(PROFILE, queue)}`],
          }),
    }),
  );
  await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))));
  await settle();
  let xid0 = await xid(db);
  let t0 = performance.now();
  let cpu0 = serverCpuMs(server.pid);
  let machine0 = machineCpu();
  for (const c of children) c.send('go');
  let marks: Counted[] = children.map(() => ({ queries: 0, cpuMs: 0, kernelMs: 0 }));
  if (W > 0) {
    while ((await receiver.count()) < arrived + W) await new Promise((r) => setTimeout(r, 5));
    t0 = performance.now();
    cpu0 = serverCpuMs(server.pid);
    machine0 = machineCpu();
    xid0 = await xid(db);
    marks = await ask(system, children, 'mark');
  }
  if (STATEMENTS > 0) await db.query('SELECT pg_stat_statements_reset()');
  const waits = TRACE ? await sampleWaits(url) : undefined;
  // The database is asked only once every job reached the receiver: asked every 5 ms from the
  // start, even a cheap count takes the server's CPU from the systems being measured.
  while ((await receiver.count()) < arrived + W + N) await new Promise((r) => setTimeout(r, 5));
  while ((await progress.done()) < W + N) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - t0) / 1000;
  const serverCpu = (serverCpuMs(server.pid) - cpu0) / N;
  const busy = coresBusy(machine0, machineCpu(), CORES);
  if (STATEMENTS > 0) note(`${system} ${n}p statements:\n${await statements(db, N)}`);
  const succeeded = await progress.succeeded();
  if (succeeded !== W + N)
    throw new Error(`${system}, ${n} process(es): ${succeeded} of ${W + N} jobs succeeded`);
  if (waits !== undefined) note(`${system} ${n}p: ${await waits()}`);
  const xid1 = await xid(db);
  const reports = (await ask(system, children, 'stop')).map((r, i) => ({
    queries: r.queries - marks[i]!.queries,
    cpuMs: r.cpuMs - marks[i]!.cpuMs,
    kernelMs: r.kernelMs - marks[i]!.kernelMs,
  }));
  await Promise.all(
    children.map((c) =>
      c.exitCode === null
        ? new Promise((resolve) => c.once('exit', resolve))
        : Promise.resolve(undefined),
    ),
  );
  return {
    rate: N / seconds,
    roundTrips: reports.reduce((a, r) => a + r.queries, 0) / N,
    workerCpu: reports.reduce((a, r) => a + r.cpuMs, 0) / N,
    workerKernel: reports.reduce((a, r) => a + r.kernelMs, 0) / N,
    // the two pg_current_xact_id() calls use one id each
    commits: (xid1 - xid0 - 1) / N,
    serverCpu,
    busy,
  };
}

export const bench: Benchmark = {
  name: 'pg-queues',
  async run() {
    method(
      `${JOBS} jobs measured per run (pg-boss: ${JOBS_POLLED}), filled${WARMUP > 0 ? ' with the warm-up jobs' : ''} before the workers start; 1, 2, 4 worker processes forked, connected, then released together; ` +
        (WARMUP > 0
          ? `the workers first drain ${WARMUP} jobs per process (pg-boss ${Math.round(WARMUP / 100)}; BENCH_WARMUP=0: measured cold), so the figures are a long-lived worker's steady state, not its JIT warm-up; ` +
            'rate = jobs / (the receiver has the warm-up jobs → the database shows all done, polled every 5 ms once the receiver has them all); the counts below start at the same moment. '
          : 'rate = jobs / (release → the database shows all done, polled every 5 ms once the receiver has them all). ') +
        '16 deliveries in flight per process: ' +
        'twinworld Worker + Dispatcher (concurrency 16, Standard Webhooks signature); pg-boss 10 fetch-1 = 16 work() loops of batchSize 1, fetch-16 = one loop of batchSize 16; ' +
        `graphile-worker 0.16 run() concurrency 16. Median of ${ROUNDS} rounds, systems and process counts interleaved. ` +
        'round trips = queries sent by the worker processes\u2019 pg clients per job (idle polling included); commits = transaction ids used per job (write transactions); ' +
        'worker cpu/job = CPU (user + system) the worker processes spent from the start of the measurement until stopped, per job; ' +
        'server cpu/job = CPU the PostgreSQL server (postmaster and backends) spent from the start of the measurement until all were done, per job.' +
        (process.env.BENCH_LATENCY_MS === undefined
          ? ' The receiver answers at once (BENCH_LATENCY_MS=n: after n ms, as a real endpoint would).'
          : ` The receiver answers each request after ${process.env.BENCH_LATENCY_MS} ms.`) +
        (process.env.BENCH_CLAIM_AHEAD === undefined
          ? ''
          : ` twinworld's worker claims ${process.env.BENCH_CLAIM_AHEAD} ahead of its free slots.`),
    );
    const server = await startPostgresServer({
      settings: {
        ...(STATEMENTS > 0
          ? {
              shared_preload_libraries: 'pg_stat_statements',
              'pg_stat_statements.track': 'all',
              'pg_stat_statements.track_planning': 'on',
            }
          : {}),
        ...SERVER_SETTINGS,
      },
    });
    const receiver = await startReceiver();
    const db = new pg.Client(server.url);
    await db.connect();
    if (STATEMENTS > 0) await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    if (EXPLAIN_MS !== undefined) {
      for (const sql of [
        "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'",
        `ALTER SYSTEM SET auto_explain.log_min_duration = ${Number(EXPLAIN_MS)}`,
        'SELECT pg_reload_conf()',
      ])
        await db.query(sql);
    }
    try {
      note(
        `server: ${server.binaries}, fsync off; load average before: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
      const results = new Map<string, Run[]>();
      for (let round = 0; round < ROUNDS; round++)
        for (const n of PROCESSES)
          // Every other round runs the systems in reverse order, so that no system always runs right
          // after the same other one (and on what that one left the server to clean up).
          for (const system of round % 2 === 0 ? SYSTEMS : [...SYSTEMS].reverse()) {
            if (ONLY !== undefined && !ONLY.includes(system)) continue;
            const key = `${system}/${n}`;
            const run = await measure(db, server, receiver, system, n);
            results.set(key, [...(results.get(key) ?? []), run]);
            note(
              `round ${round + 1}: ${LABEL[system]}, ${n} process(es)  ${fmt(run.rate)} jobs/s  round trips/job ${run.roundTrips.toFixed(2)}  commits/job ${run.commits.toFixed(2)}  worker cpu/job ${run.workerCpu.toFixed(2)} ms (kernel ${run.workerKernel.toFixed(2)})  server cpu/job ${run.serverCpu.toFixed(2)} ms  cores busy ${run.busy.toFixed(2)} of ${CORES}  load ${loadavg()[0]!.toFixed(1)}`,
            );
          }
      const m = (system: System, n: number, field: keyof Run): number =>
        results.has(`${system}/${n}`)
          ? median(results.get(`${system}/${n}`)!.map((r) => r[field]))
          : NaN;
      for (const n of PROCESSES) {
        const tw = m('twinworld', n, 'rate');
        // Only the peers that ran (BENCH_ONLY may leave some, or all, out).
        const vs = (['pg-boss-1', 'graphile-worker', 'pg-boss-16'] as const)
          .filter((s) => results.has(`${s}/${n}`))
          .map((s) => `${(tw / m(s, n, 'rate')).toFixed(2)}x ${LABEL[s]}`)
          .join(', ');
        for (const system of SYSTEMS) {
          if (!results.has(`${system}/${n}`)) continue;
          const rate = m(system, n, 'rate');
          console.log(
            `pg-queues ${LABEL[system]}, ${n} process(es)  ${fmt(rate)} jobs/s  (${(rate / m(system, 1, 'rate')).toFixed(2)}x 1 process)  round trips/job ${m(system, n, 'roundTrips').toFixed(2)}  commits/job ${m(system, n, 'commits').toFixed(2)}  worker cpu/job ${m(system, n, 'workerCpu').toFixed(2)} ms (kernel ${m(system, n, 'workerKernel').toFixed(2)})  server cpu/job ${m(system, n, 'serverCpu').toFixed(2)} ms  cores busy ${m(system, n, 'busy').toFixed(2)} of ${CORES}`,
          );
        }
        if (vs !== '' && results.has(`twinworld/${n}`))
          console.log(
            `pg-queues twinworld vs peers, ${n} process(es)  ${fmt(tw)} deliveries/s  (${vs})`,
          );
      }
      note(
        `load average after: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
    } finally {
      await db.end();
      await receiver.stop();
      if (SERVER_LOG !== undefined) copyFileSync(server.log, SERVER_LOG);
      await server.stop();
    }
  },
};
