// write-vs-size: cost of one atomic write (update of a random existing resource) in a twin
// holding 1k live resources against one holding 1M. The fold is per resource, so the cost
// should not grow with the twin.
import { openWorld, type JsonObject, type Twin } from '../src/index.js';
import { BIG, customerId, SMALL, sizedWorld } from './fixtures.js';
import {
  compared,
  count,
  figure,
  median,
  method,
  nowNs,
  settle,
  sinceNs,
  type Benchmark,
} from './measure.js';

const WRITES = 2_000;
const ROUNDS = 9;
/**
 * More writes than a process caches resources (20,000, src/world/twin-state.ts): the big twin's
 * rounds run with its cache full and evicting, as in a process that has been up for a while.
 */
const WARMUP = 25_000;

function randomIds(size: number, count: number, seed: number): string[] {
  let state = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out.push(customerId(((state >>> 0) % size) + 1));
  }
  return out;
}

async function update(twin: Twin, id: string): Promise<void> {
  await twin.applyAtomic((view) => {
    const current = view.get('customer', id);
    if (current === undefined || current.deleted)
      throw new Error(`bench: customer ${id} should exist`);
    const n = (current.fields as JsonObject).n;
    return {
      operation: 'customer.update',
      subjectType: 'customer',
      subjectId: id,
      fields: { n: (typeof n === 'number' ? n : 0) + 1 },
    };
  });
}

/** µs per write over `ids`. */
async function round(twin: Twin, ids: readonly string[]): Promise<number> {
  const start = nowNs();
  for (const id of ids) await update(twin, id);
  return sinceNs(start) / 1e3 / ids.length;
}

export const bench: Benchmark = {
  name: 'write-vs-size',
  async run() {
    method(
      `${count(SMALL)}- and ${count(BIG)}-resource twins built with importLines (1 create entry per resource; build time printed). Per round ${WRITES} applyAtomic actions, each reads a uniformly random existing customer and writes it back updated (one write); ` +
        `µs/write = round time / ${WRITES}; median of ${ROUNDS} rounds, small and big rounds interleaved, after ${WARMUP} warm-up writes each; SQLite root, default pragmas.`,
    );
    const sized = await sizedWorld();
    const world = openWorld({ root: sized.root });
    try {
      const small = world.twin(sized.small);
      const big = world.twin(sized.big);
      await round(small, randomIds(sized.smallSize, WARMUP, 7));
      await round(big, randomIds(sized.bigSize, WARMUP, 7));
      const smallUs: number[] = [];
      const bigUs: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        await settle();
        smallUs.push(await round(small, randomIds(sized.smallSize, WRITES, 100 + r)));
        await settle();
        bigUs.push(await round(big, randomIds(sized.bigSize, WRITES, 100 + r)));
      }
      const s = median(smallUs);
      const b = median(bigUs);
      figure(`write-vs-size baseline: ${count(sized.smallSize)}-resource twin`, s, 'µs/write');
      compared(
        'write-vs-size',
        b,
        'µs/write',
        b / s,
        `${count(sized.smallSize)}-resource twin; this one holds ${count(sized.bigSize)}`,
        { op: '<=', target: 1.5 },
      );
    } finally {
      await world.close();
    }
  },
};
