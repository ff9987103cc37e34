// replay: entries per second folded by replayLines over the exported lines of a ~100k-entry log
// held in memory, against a raw scan of the same rows from SQLite with JSON.parse of each body.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openWorld, replayLines } from '../src/index.js';
import { mixedLines } from './fixtures.js';
import {
  compared,
  figure,
  median,
  method,
  nowNs,
  removeTemp,
  settle,
  sinceNs,
  type Benchmark,
  tempDir,
} from './measure.js';

const ENTRIES = 100_000;
const RESOURCES = 20_000;
const ROUNDS = 5;

export const bench: Benchmark = {
  name: 'replay',
  async run() {
    method(
      `log: ${ENTRIES} entries over ${RESOURCES} customers (creates, then merge-updates to random customers, 1 in 50 a delete), imported into a SQLite twin and exported with twin.exportLines() into an in-memory array. ` +
        `replay: replayLines(array) (fold into a fresh in-memory twin + state hash). baseline: better-sqlite3 SELECT body FROM entries ORDER BY seq on that twin's file, JSON.parse of each body. ` +
        `entries/s, median of ${ROUNDS} rounds, interleaved.`,
    );
    const dir = tempDir('replay');
    try {
      const world = openWorld({ root: dir });
      let lines: string[];
      let expectedHash: string;
      try {
        const twin = world.twin('log');
        await twin.importLines(mixedLines('log', ENTRIES, RESOURCES));
        lines = [];
        for await (const line of twin.exportLines()) lines.push(line);
        expectedHash = await twin.hash();
      } finally {
        await world.close();
      }
      if (lines.length !== ENTRIES)
        throw new Error(`exported ${lines.length} lines, expected ${ENTRIES}`);
      const db = new Database(join(dir, 'twins', 'log.db'), { readonly: true });
      const scan = db.prepare('SELECT body FROM entries ORDER BY seq').pluck();
      const rawRound = (): number => {
        const start = nowNs();
        let n = 0;
        let check = 0;
        for (const body of scan.iterate() as Iterable<string>) {
          const entry = JSON.parse(body) as { seq: number };
          check += entry.seq;
          n++;
        }
        const ns = sinceNs(start);
        if (n !== ENTRIES || check !== (ENTRIES * (ENTRIES + 1)) / 2)
          throw new Error('raw scan read the wrong rows');
        return n / (ns / 1e9);
      };
      const replayRound = async (): Promise<number> => {
        const start = nowNs();
        const result = await replayLines(lines);
        const ns = sinceNs(start);
        if (result.entries !== ENTRIES)
          throw new Error(`replay folded ${result.entries} entries, expected ${ENTRIES}`);
        if (result.hash !== expectedHash)
          throw new Error(
            `replay hash ${result.hash} differs from the live state hash ${expectedHash}`,
          );
        return result.entries / (ns / 1e9);
      };
      rawRound();
      const rawRates: number[] = [];
      const replayRates: number[] = [];
      try {
        for (let r = 0; r < ROUNDS; r++) {
          await settle();
          rawRates.push(rawRound());
          await settle();
          replayRates.push(await replayRound());
        }
      } finally {
        db.close();
      }
      const raw = median(rawRates);
      const rep = median(replayRates);
      figure('replay baseline: raw SQLite scan + JSON.parse', raw, 'entries/s');
      compared('replay', rep, 'entries/s', rep / raw, 'raw SQLite scan + JSON.parse', {
        op: '>=',
        target: 0.5,
      });
    } finally {
      removeTemp(dir);
    }
  },
};
