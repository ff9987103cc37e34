// Following what any process appends to a store, entry by entry: the log heads are read on a
// short interval (src/host/console/heads.ts) and, for a twin whose head moved, only the entries
// after the last one seen are read — never the history. `twinworld tail` and `twinworld listen`
// are built on it. See docs/console.md.
import type { Entry } from '../log/write.js';
import type { World } from '../world/world.js';
import { readHeads, watchHeads, type Heads } from './console/heads.js';

export interface Follower {
  /** Reads the heads now and hands over every entry up to them; resolves once that is done. */
  catchUp(): Promise<void>;
  /** Stops reading; resolves once the entries being handed over are done. */
  stop(): Promise<void>;
}

export interface FollowOptions {
  /** Only these twins (default: every twin, including ones that appear later). */
  readonly twins?: readonly string[];
  readonly pollMs?: number;
  /** Where to start: each twin's head now (default), or these heads. */
  readonly from?: Heads;
  /** Called with each new entry, in seq order per twin; awaited before the next. */
  onEntry(entry: Entry): void | Promise<void>;
  onError?(error: unknown): void;
}

const PAGE = 500;

export async function followEntries(world: World, options: FollowOptions): Promise<Follower> {
  const seen = new Map(Object.entries(options.from ?? (await readHeads(world))));
  const wanted = (twin: string): boolean =>
    options.twins === undefined || options.twins.includes(twin);
  const watcher = watchHeads(world, {
    pollMs: options.pollMs ?? 100,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
  const pollMs = options.pollMs ?? 100;
  let chain = Promise.resolve();
  const drain = async (heads: Heads): Promise<void> => {
    for (const [twin, head] of Object.entries(heads)) {
      if (!wanted(twin)) continue;
      let after = seen.get(twin) ?? 0;
      while (after < head) {
        const entries = await world.twin(twin).entries({ after, limit: PAGE });
        if (entries.length === 0) break;
        // Entry by entry: a failure part way hands over none of those before it again.
        for (const e of entries) {
          await options.onEntry(e);
          after = e.seq;
          seen.set(twin, after);
        }
      }
    }
  };
  // A read or a hand-over that failed is tried again after a poll's pause, not only when the
  // next append moves a head (which may never come).
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const follow = (heads: Heads): void => {
    chain = chain
      .then(() => drain(heads))
      .catch((error: unknown) => {
        (options.onError ?? ((e) => world.reportError(e, 'follow')))(error);
        if (!stopped && retry === undefined)
          retry = setTimeout(() => {
            retry = undefined;
            follow(heads);
          }, pollMs);
      });
  };
  const off = watcher.subscribe(follow);
  return {
    async catchUp() {
      follow(await readHeads(world));
      await chain;
    },
    async stop() {
      stopped = true;
      if (retry !== undefined) clearTimeout(retry);
      off();
      await watcher.close();
      await chain;
    },
  };
}
