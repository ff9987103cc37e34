// atomic-write: single-write atomic actions per second on a SQLite root (default pragmas: WAL,
// synchronous NORMAL) against raw better-sqlite3 inserts of a comparable row, one per transaction.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openWorld, type JsonObject } from '../src/index.js';
import { entryLine } from './fixtures.js';
import {
  compared,
  figure,
  median,
  method,
  nowNs,
  opsRate,
  removeTemp,
  settle,
  sinceNs,
  tempDir,
  type Benchmark,
} from './measure.js';

const OPS = 4_000;
const ROUNDS = 7;
const WARMUP = 500;

function rawRate(file: string, explicitTx: boolean): { round: () => number; close: () => void } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE entries (seq INTEGER PRIMARY KEY, subject_type TEXT NOT NULL, subject_id TEXT NOT NULL, body TEXT NOT NULL)',
  );
  const insert = db.prepare(
    'INSERT INTO entries (seq, subject_type, subject_id, body) VALUES (?, ?, ?, ?)',
  );
  const insertTx = db.transaction((seq: number, body: string) =>
    insert.run(seq, 'counter', 'c1', body),
  );
  let seq = 0;
  const one = (): void => {
    seq++;
    // the same canonical entry line the twin would store for this write
    const body = entryLine(seq, 'bench', 'counter.increment', 'counter', 'c1', { value: seq });
    if (explicitTx) insertTx.immediate(seq, body);
    else insert.run(seq, 'counter', 'c1', body);
  };
  return { round: opsRate(one, OPS, WARMUP), close: () => db.close() };
}

export const bench: Benchmark = {
  name: 'atomic-write',
  async run() {
    method(
      `${OPS} ops per round, median of ${ROUNDS} rounds, rounds interleaved. twin: applyAtomic(view => read counter, write value+1), one write per action, SQLite root (WAL, synchronous NORMAL). ` +
        `baseline: raw better-sqlite3 INSERT of the same entry line into an entries(seq pk, subject_type, subject_id, body) table, autocommit (one row per transaction), same pragmas; also shown: the same insert inside an explicit BEGIN IMMEDIATE transaction.`,
    );
    const dir = tempDir('atomic');
    const world = openWorld({ root: join(dir, 'world') });
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
      for (let i = 0; i < WARMUP; i++) await step();
      const twinRound = async (): Promise<number> => {
        const start = nowNs();
        for (let i = 0; i < OPS; i++) await step();
        return OPS / (sinceNs(start) / 1e9);
      };
      const rawAuto = rawRate(join(dir, 'raw-auto.db'), false);
      const rawTx = rawRate(join(dir, 'raw-tx.db'), true);
      const twinRates: number[] = [];
      const autoRates: number[] = [];
      const txRates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await settle();
        autoRates.push(rawAuto.round());
        await settle();
        txRates.push(rawTx.round());
        await settle();
        twinRates.push(await twinRound());
      }
      const twinOps = median(twinRates);
      const autoOps = median(autoRates);
      const txOps = median(txRates);
      const value = ((await twin.get('counter', 'c1'))?.fields as JsonObject).value;
      if (value !== WARMUP + ROUNDS * OPS)
        throw new Error(`counter is ${String(value)}, expected ${WARMUP + ROUNDS * OPS}`);
      rawAuto.close();
      rawTx.close();
      figure(
        'atomic-write baseline: raw better-sqlite3 insert-per-tx (autocommit)',
        autoOps,
        'ops/s',
      );
      figure(
        'atomic-write baseline: raw better-sqlite3 insert-per-tx (BEGIN IMMEDIATE)',
        txOps,
        'ops/s',
      );
      compared(
        'atomic-write',
        twinOps,
        'ops/s',
        twinOps / autoOps,
        'raw better-sqlite3 insert-per-tx',
        { op: '>=', target: 0.5 },
      );
    } finally {
      await world.close();
      removeTemp(dir);
    }
  },
};
