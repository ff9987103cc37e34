// Replay: fold a log into plain in-memory state and report each twin's state hash, so a recorded
// log can be checked against the hashes it must reach. It is its own tight loop — parse, check,
// fold — with no store, no undo journal and no index upkeep, since nothing is kept but the state.
import { TwinError } from '../errors.js';
import { validateEntry, type Entry } from '../log/write.js';
import { foldEntry, plainProducer, type Resource } from '../state/resource.js';
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
  return new TwinError('IMPORT_MALFORMED_LINE', `replay stopped at line ${lineNo}: ${message}`, {
    path,
    details: { line: lineNo, appended: entries },
  });
}

/**
 * Replays JSONL lines. Each line goes to the twin its entry names, so one file may hold a whole
 * world's logs (a walk's golden log); each twin's entries must be dense and in order.
 */
export async function replayLines(
  lines: Iterable<string> | AsyncIterable<string>,
  onProgress?: (p: ImportProgress) => void,
): Promise<ReplayResult> {
  const twins = new Map<
    string,
    {
      head: number;
      types: Map<string, Map<string, Resource>>;
      get: (type: string, id: string) => Resource | undefined;
    }
  >();
  let lineNo = 0;
  let entries = 0;
  const fold = (raw: string): void => {
    lineNo++;
    // a line starting with "{" is not blank: skip the trim, which would copy every line
    if (raw.length === 0 || (raw.charCodeAt(0) !== 0x7b && raw.trim() === '')) return;
    let entry: Entry;
    try {
      entry = validateEntry(JSON.parse(raw), `line ${lineNo}`);
    } catch (error) {
      const reason =
        error instanceof TwinError
          ? error.message
          : `it is not valid JSON (${(error as Error).message})`;
      throw malformed(
        lineNo,
        reason,
        error instanceof TwinError && error.path !== undefined ? error.path : `line ${lineNo}`,
        entries,
      );
    }
    let twin = twins.get(entry.twin);
    if (twin === undefined) {
      const types = new Map<string, Map<string, Resource>>();
      twins.set(
        entry.twin,
        (twin = { head: 0, types, get: (type, id) => types.get(type)?.get(id) }),
      );
    }
    if (entry.seq !== twin.head + 1) {
      throw malformed(
        lineNo,
        `seq ${entry.seq} of twin "${entry.twin}" does not follow ${twin.head}; a twin's entries must be dense and in order`,
        `line ${lineNo}.seq`,
        entries,
      );
    }
    // Nested by type: no composite key string to build for every read and write.
    const types = twin.types;
    for (const next of foldEntry(entry, twin.get, plainProducer)) {
      let byId = types.get(next.type);
      if (byId === undefined) types.set(next.type, (byId = new Map()));
      byId.set(next.id, next);
    }
    twin.head = entry.seq;
    entries++;
    if (onProgress !== undefined && entries % PROGRESS_EVERY === 0)
      onProgress({ line: lineNo, appended: entries, skipped: 0 });
  };
  // An in-memory log is folded in a plain loop: `for await` would cost a promise per line.
  if (Symbol.iterator in lines) for (const raw of lines) fold(raw);
  else for await (const raw of lines) fold(raw);
  onProgress?.({ line: lineNo, appended: entries, skipped: 0 });
  const hashes: Record<string, string> = {};
  for (const name of [...twins.keys()].sort()) {
    const live: Resource[] = [];
    for (const byId of twins.get(name)!.types.values())
      for (const r of byId.values()) if (!r.deleted) live.push(r);
    live.sort(compareResources);
    hashes[name] = stateHash(live);
  }
  const names = Object.keys(hashes);
  return {
    hashes,
    entries,
    hash: names.length === 1 ? hashes[names[0]!]! : names.length === 0 ? stateHash([]) : '',
  };
}
