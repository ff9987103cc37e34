// postgres-scale: scaling out — the same workload from 1, 2 and 4 processes on one PostgreSQL
// database, each process with its own pool, as separate hosts would be. Atomic read-increment-
// write actions on a twin of each process's own (advisory locks apart: throughput should grow) and
// on one twin they all share (one lock: throughput should hold, not collapse), against raw one-row
// INSERTs per transaction from as many processes through `pg`. Starts its own throwaway server.
//   npm run bench:postgres   (or: npm run build && node dist/bench/run.js postgres-scale)
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgresServer } from '../test/support/postgres-server.js';
import { compared, fmt, median, method, note, settle, type Benchmark } from './measure.js';

const OPS = 400;
const WARMUP = 50;
const ROUNDS = 3;
const PROCESSES = [1, 2, 4];

type Workload = 'own twins' | 'one shared twin' | 'raw pg';

interface Report {
  start: number;
  end: number;
}

let runs = 0;

/** `n` processes, started and warmed up, then released together; the total rate over the wall span. */
async function measure(url: string, workload: Workload, n: number): Promise<number> {
  const run = ++runs;
  const worker = join(fileURLToPath(new URL('.', import.meta.url)), 'postgres-scale-worker.js');
  const children = Array.from({ length: n }, (_, i) => {
    const twin = workload === 'one shared twin' ? `shared-${run}` : `p${run}-${i}`;
    return fork(
      worker,
      [workload === 'raw pg' ? 'raw' : 'twin', url, 'scale', twin, String(OPS), String(WARMUP)],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
  });
  const exited = children.map(
    (child) =>
      new Promise<void>((resolve, reject) =>
        child.on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`scale worker exited ${code}`)),
        ),
      ),
  );
  await Promise.all(
    children.map((child) => new Promise((resolve) => child.once('message', resolve))),
  );
  const reports = children.map(
    (child) => new Promise<Report>((resolve) => child.once('message', (m: Report) => resolve(m))),
  );
  for (const child of children) child.send('go');
  const done = await Promise.all(reports);
  await Promise.all(exited);
  const span = Math.max(...done.map((r) => r.end)) - Math.min(...done.map((r) => r.start));
  return (n * OPS) / (span / 1000);
}

export const bench: Benchmark = {
  name: 'postgres-scale',
  async run() {
    method(
      `${OPS} actions per process per round after ${WARMUP} warm-up actions, median of ${ROUNDS} rounds, rounds interleaved; processes forked and warmed up, then released together; ` +
        'rate = all actions / (last end − first start). Each process opens its own PostgresBackend (pool of 10). ' +
        'own twins: each process increments a counter in a twin of its own; one shared twin: all processes increment one counter (one advisory lock); ' +
        'baseline: raw `pg` one-row INSERT per transaction from as many processes, one connection each.',
    );
    const server = await startPostgresServer();
    try {
      note(
        `server: ${server.binaries}, running as ${server.runAs}, fsync off; ${PROCESSES.join(', ')} processes on a machine with the cores listed above`,
      );
      const admin = new pg.Client(server.url);
      await admin.connect();
      await admin.query(
        'CREATE TABLE raw_scale (writer text NOT NULL, seq bigint NOT NULL, body text NOT NULL, PRIMARY KEY (writer, seq))',
      );
      await admin.end();
      const workloads: Workload[] = ['raw pg', 'own twins', 'one shared twin'];
      const rates = new Map<string, number[]>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const n of PROCESSES) {
          for (const w of workloads) {
            await settle();
            const key = `${w}/${n}`;
            rates.set(key, [...(rates.get(key) ?? []), await measure(server.url, w, n)]);
          }
        }
      }
      const m = (w: Workload, n: number): number => median(rates.get(`${w}/${n}`)!);
      for (const n of PROCESSES) {
        const raw = m('raw pg', n);
        console.log(
          `pg-scale raw pg insert-per-tx, ${n} process(es)  ${fmt(raw)} rows/s  (${(raw / m('raw pg', 1)).toFixed(2)}x 1 process)`,
        );
      }
      for (const w of ['own twins', 'one shared twin'] as const) {
        for (const n of PROCESSES) {
          const value = m(w, n);
          const label = `pg-scale ${w}, ${n} process(es)`;
          if (n === 1) {
            console.log(
              `${label}  ${fmt(value)} actions/s  (${(value / m('raw pg', 1)).toFixed(2)}x raw pg insert-per-tx, 1 process)`,
            );
            continue;
          }
          // Own twins should grow with processes; one shared twin should hold, not collapse on its lock.
          compared(label, value, 'actions/s', value / m(w, 1), '1 process', {
            op: '>=',
            target: w === 'own twins' ? 1 : 0.8,
          });
        }
      }
    } finally {
      await server.stop();
    }
  },
};
