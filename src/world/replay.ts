// Replay: fold a log into a fresh in-memory twin and report its state hash, so a recorded log
// can be checked against the hash it must reach.
import type { Entry } from '../log/write.js';
import type { ImportProgress } from './twin.js';
import { World } from './world.js';
import { VirtualClock } from './clock.js';

export interface ReplayResult {
  readonly hash: string;
  readonly entries: number;
  readonly twin: string | undefined;
}

/** Replays JSONL lines of one twin's log. The twin name is taken from the first entry. */
export async function replayLines(lines: Iterable<string> | AsyncIterable<string>, onProgress?: (p: ImportProgress) => void): Promise<ReplayResult> {
  const world = new World({ root: ':memory:', clock: new VirtualClock(0), seed: 'replay' });
  try {
    let name: string | undefined;
    const peeked = (async function* () {
      for await (const line of lines) {
        if (name === undefined && line.trim() !== '') {
          try {
            name = (JSON.parse(line) as Entry).twin;
          } catch {
            name = 'replay';
          }
          if (typeof name !== 'string' || name === '') name = 'replay';
        }
        yield line;
      }
    })();
    // The twin must exist before the first line arrives; its name only matters for reporting.
    const twin = world.twin('replay');
    const progress = await twin.importLines(peeked, onProgress);
    return { hash: twin.hash(), entries: progress.appended, twin: name };
  } finally {
    await world.close();
  }
}
