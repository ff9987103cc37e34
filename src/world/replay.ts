// Replay: fold a log into fresh in-memory twins and report their state hashes, so a recorded
// log can be checked against the hashes it must reach.
import { TwinError } from '../errors.js';
import type { ImportProgress } from './twin.js';
import { World } from './world.js';
import { VirtualClock } from './clock.js';

export interface ReplayResult {
  /** State hash of each twin the log holds, by twin name. */
  readonly hashes: Readonly<Record<string, string>>;
  readonly entries: number;
  /** The single twin's hash when the log holds one twin (the common case). */
  readonly hash: string;
}

const TWIN_FIELD = /"twin":"([^"\\]*)"/;

/**
 * Replays JSONL lines: each line goes to the twin its entry names, so one file may hold a whole
 * world's logs (a walk's golden log). Lines of one twin must be dense and in order.
 */
export async function replayLines(lines: Iterable<string> | AsyncIterable<string>, onProgress?: (p: ImportProgress) => void): Promise<ReplayResult> {
  const world = new World({ root: ':memory:', clock: new VirtualClock(0), seed: 'replay' });
  try {
    let lineNo = 0;
    let entries = 0;
    // Lines are buffered per twin and handed over in runs, so each import is one streaming pass.
    let run: string[] = [];
    let runTwin: string | undefined;
    let runStart = 1;
    const flush = async (): Promise<void> => {
      if (runTwin === undefined || run.length === 0) return;
      const twin = world.twin(runTwin);
      const start = runStart;
      try {
        const progress = await twin.importLines(run);
        entries += progress.appended;
      } catch (error) {
        if (error instanceof TwinError && error.code === 'IMPORT_MALFORMED_LINE' && typeof error.details?.line === 'number') {
          const line = start + error.details.line - 1;
          throw new TwinError('IMPORT_MALFORMED_LINE', error.message.replace(/line \d+/g, `line ${line}`), { path: `line ${line}`, details: { ...error.details, line } });
        }
        throw error;
      }
      onProgress?.({ line: lineNo, appended: entries, skipped: 0 });
      run = [];
    };
    for await (const raw of lines) {
      lineNo++;
      if (raw.trim() === '') {
        // kept in the run so line numbers inside it stay exact
        if (runTwin !== undefined) run.push(raw);
        continue;
      }
      const twin = TWIN_FIELD.exec(raw)?.[1] ?? 'replay';
      if (twin !== runTwin || run.length >= 5_000) {
        await flush();
        runTwin = twin;
        runStart = lineNo;
      }
      run.push(raw);
    }
    await flush();
    const hashes: Record<string, string> = {};
    for (const name of world.twinNames()) hashes[name] = world.twin(name).hash();
    const names = Object.keys(hashes);
    return { hashes, entries, hash: names.length === 1 ? hashes[names[0]!]! : (names.length === 0 ? world.twin('replay').hash() : '') };
  } finally {
    await world.close();
  }
}
