// Child process for bench/postgres-scale.ts: opens one database, warms up, says "ready", waits for
// "go", then runs its share of the workload and reports when it started and ended (wall clock, so
// the parent can compare processes). Modes: `twin` — applyAtomic read-increment-write actions on
// one twin; `raw` — one-row INSERTs, each its own transaction, through `pg` directly.
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../src/index.js';
import { entryLine } from './fixtures.js';
import { pgWorld } from './postgres.js';

const [mode, url, world, twinName, opsText, warmupText] = process.argv.slice(2) as [
  'twin' | 'raw',
  string,
  string,
  string,
  string,
  string,
];
const ops = Number(opsText);
const warmup = Number(warmupText);

function wall(): number {
  return performance.timeOrigin + performance.now();
}

async function prepare(): Promise<{ one: () => Promise<void>; close: () => Promise<void> }> {
  if (mode === 'twin') {
    const w = pgWorld(url, world);
    const twin = w.twin(twinName);
    return {
      one: async () => {
        await twin.applyAtomic((view) => {
          const value = (view.get('counter', 'c1')?.fields as JsonObject | undefined)?.value;
          return {
            operation: 'counter.increment',
            subjectType: 'counter',
            subjectId: 'c1',
            fields: { value: (typeof value === 'number' ? value : 0) + 1 },
          };
        });
      },
      close: () => w.close(),
    };
  }
  const client = new pg.Client(url);
  await client.connect();
  let seq = 0;
  return {
    one: async () => {
      seq++;
      await client.query({
        name: 'raw_scale_insert',
        text: 'INSERT INTO raw_scale (writer, seq, body) VALUES ($1, $2, $3)',
        values: [
          twinName,
          seq,
          entryLine(seq, twinName, 'counter.increment', 'counter', 'c1', { value: seq }),
        ],
      });
    },
    close: () => client.end(),
  };
}

const work = await prepare();
for (let i = 0; i < warmup; i++) await work.one();
process.send!({ ready: true });
await new Promise<void>((resolve) => process.once('message', () => resolve()));
const start = wall();
for (let i = 0; i < ops; i++) await work.one();
const end = wall();
await work.close();
process.send!({ start, end }, () => process.disconnect());
