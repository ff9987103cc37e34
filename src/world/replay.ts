// Replay: fold a log into plain in-memory state and report each twin's state hash, so a recorded
// log can be checked against the hashes it must reach. It is its own tight loop — parse, check,
// fold — with no store, no undo journal and no index upkeep, since nothing is kept but the state.
import { TwinError } from '../errors.js';
import { validateEntry, type Entry } from '../log/write.js';
import { foldEntry, plainProducer, resourceKey, type Resource } from '../state/resource.js';
import { compareResources, stateHash } from '../state/state-hash.js';
import type { ImportProgress } from './twin.js';

export interface ReplayResult {
  /** State hash of each twin the log holds, by twin name. */
  readonly hashes: Readonly<Record<string, string>>;
  readonly entries: number;
  /** The hash when the log holds one twin (the common case); for several, see `hashes`. */
  readonly hash: string;
}

const PROGRESS_EVERY = 10_000;

function malformed(lineNo: number, message: string, path: string, entries: number): TwinError {
  return new TwinError('IMPORT_MALFORMED_LINE', `replay stopped at line ${lineNo}: ${message}`, { path, details: { line: lineNo, appended: entries } });
}

/**
 * Replays JSONL lines. Each line goes to the twin its entry names, so one file may hold a whole
 * world's logs (a walk's golden log); each twin's entries must be dense and in order.
 */
export async function replayLines(lines: Iterable<string> | AsyncIterable<string>, onProgress?: (p: ImportProgress) => void): Promise<ReplayResult> {
  const twins = new Map<string, { head: number; resources: Map<string, Resource> }>();
  let lineNo = 0;
  let entries = 0;
  const fold = (raw: string): void => {
    lineNo++;
    if (raw.trim() === '') return;
    let entry: Entry;
    try {
      entry = validateEntry(JSON.parse(raw), `line ${lineNo}`);
    } catch (error) {
      const reason = error instanceof TwinError ? error.message : `it is not valid JSON (${(error as Error).message})`;
      throw malformed(lineNo, reason, error instanceof TwinError && error.path !== undefined ? error.path : `line ${lineNo}`, entries);
    }
    let twin = twins.get(entry.twin);
    if (twin === undefined) twins.set(entry.twin, (twin = { head: 0, resources: new Map() }));
    if (entry.seq !== twin.head + 1) {
      throw malformed(lineNo, `seq ${entry.seq} of twin "${entry.twin}" does not follow ${twin.head}; a twin's entries must be dense and in order`, `line ${lineNo}.seq`, entries);
    }
    const resources = twin.resources;
    for (const next of foldEntry(entry, (type, id) => resources.get(resourceKey(type, id)), plainProducer)) resources.set(resourceKey(next.type, next.id), next);
    twin.head = entry.seq;
    entries++;
    if (onProgress !== undefined && entries % PROGRESS_EVERY === 0) onProgress({ line: lineNo, appended: entries, skipped: 0 });
  };
  // An in-memory log is folded in a plain loop: `for await` would cost a promise per line.
  if (Symbol.iterator in lines) for (const raw of lines) fold(raw);
  else for await (const raw of lines) fold(raw);
  onProgress?.({ line: lineNo, appended: entries, skipped: 0 });
  const hashes: Record<string, string> = {};
  for (const name of [...twins.keys()].sort()) {
    const live = [...twins.get(name)!.resources.values()].filter((r) => !r.deleted).sort(compareResources);
    hashes[name] = stateHash(live);
  }
  const names = Object.keys(hashes);
  return { hashes, entries, hash: names.length === 1 ? hashes[names[0]!]! : names.length === 0 ? stateHash([]) : '' };
}
