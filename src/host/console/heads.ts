// Follows the log heads of every twin on a store — whichever process appended — by reading each
// twin's head (one indexed read per twin) on a short wall-time interval, never the history. The
// console's server-sent events and `twinworld tail` both hang off it. Head polling paces I/O; it
// decides nothing, so wall time is right here.
import type { World } from '../../world/world.js';

export type Heads = Readonly<Record<string, number>>;

export interface HeadWatcher {
  /** The heads last read (read once now if never read). */
  current(): Promise<Heads>;
  /** Called with the previous and new heads whenever one moved or a twin appeared. */
  subscribe(listener: (now: Heads, before: Heads) => void): () => void;
  close(): Promise<void>;
}

export async function readHeads(world: World): Promise<Heads> {
  const out: Record<string, number> = {};
  for (const name of await world.twinNames()) out[name] = await world.twin(name).head();
  return out;
}

function moved(a: Heads, b: Heads): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (a[k] !== b[k]) return true;
  return false;
}

/** Polls only while someone listens; `pollMs` defaults to 100 ms. */
export function watchHeads(
  world: World,
  options: { pollMs?: number; onError?: (error: unknown) => void } = {},
): HeadWatcher {
  const pollMs = options.pollMs ?? 100;
  const listeners = new Set<(now: Heads, before: Heads) => void>();
  let last: Heads | undefined;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  /** A poll is running: its end schedules the next, so a subscriber must not start another loop. */
  let inFlight = false;
  let closed = false;

  const poll = async (): Promise<void> => {
    try {
      const now = await readHeads(world);
      const before = last ?? {};
      last = now;
      if (moved(before, now)) for (const l of listeners) l(now, before);
    } catch (error) {
      if (!closed) (options.onError ?? ((e) => world.reportError(e, 'console heads')))(error);
    }
  };
  const schedule = (): void => {
    if (closed || listeners.size === 0) {
      timer = undefined;
      return;
    }
    timer = setTimeout(() => {
      inFlight = true;
      polling = poll().finally(() => {
        inFlight = false;
        schedule();
      });
    }, pollMs);
  };

  return {
    async current() {
      if (last === undefined) last = await readHeads(world);
      return last;
    },
    subscribe(listener) {
      listeners.add(listener);
      if (listeners.size === 1 && timer === undefined && !inFlight) schedule();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== undefined) {
          clearTimeout(timer);
          timer = undefined;
        }
      };
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await polling;
    },
  };
}
