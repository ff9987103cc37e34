// open-vs-history: time to open a twin (a new World on the same root, world.twin(name)) and read
// one resource, with 1k against 1M entries in its log. The folded state is kept beside the log,
// so opening should never replay.
import { openWorld } from '../src/index.js';
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

const ROUNDS = 21;

async function openAndRead(root: string, twinName: string, id: string): Promise<number> {
  const start = nowNs();
  const world = openWorld({ root });
  const resource = await world.twin(twinName).get('customer', id);
  const ns = sinceNs(start);
  await world.close();
  if (resource === undefined) throw new Error(`bench: ${twinName} has no customer ${id}`);
  return ns;
}

export const bench: Benchmark = {
  name: 'open-vs-history',
  async run() {
    method(
      `per round: new World on the same SQLite root, world.twin(name), twin.get of one customer (id varies by round); world.close() not timed. ` +
        `Median of ${ROUNDS} rounds, ${count(SMALL)}-entry and ${count(BIG)}-entry twins interleaved, after one warm-up open each (OS page cache warm); the twins are the ones write-vs-size builds.`,
    );
    const sized = await sizedWorld();
    await openAndRead(sized.root, sized.small, customerId(1));
    await openAndRead(sized.root, sized.big, customerId(1));
    const smallNs: number[] = [];
    const bigNs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await settle();
      smallNs.push(
        await openAndRead(sized.root, sized.small, customerId(((r * 7919) % sized.smallSize) + 1)),
      );
      await settle();
      bigNs.push(
        await openAndRead(sized.root, sized.big, customerId(((r * 104_729) % sized.bigSize) + 1)),
      );
    }
    const s = median(smallNs) / 1e6;
    const b = median(bigNs) / 1e6;
    figure(`open-vs-history baseline: ${count(sized.smallSize)}-entry twin`, s, 'ms');
    compared(
      'open-vs-history',
      b,
      'ms',
      b / s,
      `${count(sized.smallSize)}-entry twin; this one has ${count(sized.bigSize)}`,
      { op: '<=', target: 2 },
    );
  },
};
