// Replay: fold a log into plain in-memory state and report each twin's state hash, so a recorded
// log can be checked against the hashes it must reach. It is its own tight loop — parse, check,
// fold — with no store, no undo journal and no index upkeep, since nothing is kept but the state.
// Like import it checks each twin's hash chain (src/log/chain.ts): a changed, removed or reordered
// line stops the replay with IMPORT_CHAIN_BROKEN naming it; a log written before the chain is
// replayed and reported as unchecked (docs/cli.md, "replay").
import { describeValue, TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import { GENESIS, lineHash } from '../log/chain.js';
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
  /**
   * Twins whose entries (some or all) carry no `prev` — logs written before the hash chain — with
   * how many: those lines were folded but could not be checked against the chain.
   */
  readonly unchained: Readonly<Record<string, number>>;
}

interface Link {
  readonly line: number;
  readonly entry: Entry;
  /** SHA-256 of the line as read; the canonical form is hashed only when this does not match. */
  readonly rawHash: string;
}

interface TwinChain {
  /** A `prev` was seen: every later entry must carry one. */
  chained: boolean;
  last: Link | undefined;
  unchained: number;
  /** A link that did not hold, waiting for the twin's next line to say which line changed. */
  broken: { readonly line: Link; readonly before: Link } | undefined;
}

const short = (hash: string): string => `${hash.slice(0, 12)}…`;

function chainBroken(lineNo: number, message: string, path: string, entries: number): TwinError {
  return new TwinError('IMPORT_CHAIN_BROKEN', `replay stopped at line ${lineNo}: ${message}`, {
    path,
    details: { line: lineNo, appended: entries },
  });
}

/** Whether `prev` is the hash of `link`'s line: as read, or (if it was reformatted) canonical. */
function links(prev: string, link: Link): boolean {
  return prev === link.rawHash || prev === lineHash(canonicalJson(link.entry));
}

/** The error for a link that did not hold at `broken.line`, once `next` (or the end) is known. */
function blame(broken: NonNullable<TwinChain['broken']>, next: Link | undefined, entries: number) {
  const { line, before } = broken;
  const found = line.entry.prev!;
  if (next !== undefined && next.entry.prev !== undefined && links(next.entry.prev, line))
    return chainBroken(
      before.line,
      `seq ${before.entry.seq} of twin "${before.entry.twin}" was changed after it was written: line ${line.line} (seq ${line.entry.seq}), which the lines after it vouch for, records ${short(found)} as its hash — take the log again from its source, or check the source with \`twinworld verify\``,
      `line ${before.line}`,
      entries,
    );
  return chainBroken(
    line.line,
    `seq ${line.entry.seq} of twin "${line.entry.twin}" links to ${short(found)}, which is not the hash of line ${before.line} (seq ${before.entry.seq}) before it: this line was changed, or lines between them were removed or reordered — take the log again from its source`,
    `line ${line.line}.prev`,
    entries,
  );
}

const PROGRESS_EVERY = 10_000;

function malformed(lineNo: number, message: string, path: string, entries: number): TwinError {
  return new TwinError('IMPORT_MALFORMED_LINE', `replay stopped at line ${lineNo}: ${message}`, {
    path,
    details: { line: lineNo, appended: entries },
  });
}

/**
 * A file's whole text is the likely slip (a string is no iterable of lines here: `in` on it was a
 * TypeError), and a progress callback that is no function failed only at the 10,000th line.
 */
function checkReplayArguments(lines: unknown, onProgress: unknown): void {
  const iterable =
    typeof lines === 'object' &&
    lines !== null &&
    (Symbol.iterator in lines || Symbol.asyncIterator in lines);
  if (!iterable)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `replayLines(lines): lines must be an iterable or async iterable of JSONL lines (an array of strings, a readline interface), got ${describeValue(lines)}${typeof lines === 'string' ? "; split a file's text into lines first (text.split('\\n'))" : ''}`,
      { path: 'lines' },
    );
  if (onProgress !== undefined && typeof onProgress !== 'function')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `replayLines(lines, onProgress): onProgress must be a function when given, got ${describeValue(onProgress)}`,
      { path: 'onProgress' },
    );
}

/**
 * Replays JSONL lines. Each line goes to the twin its entry names, so one file may hold a whole
 * world's logs (a walk's golden log); each twin's entries must be dense and in order.
 */
export async function replayLines(
  lines: Iterable<string> | AsyncIterable<string>,
  onProgress?: (p: ImportProgress) => void,
): Promise<ReplayResult> {
  checkReplayArguments(lines, onProgress);
  const twins = new Map<
    string,
    {
      head: number;
      types: Map<string, Map<string, Resource>>;
      get: (type: string, id: string) => Resource | undefined;
      chain: TwinChain;
    }
  >();
  let lineNo = 0;
  let entries = 0;
  const checkLink = (chain: TwinChain, link: Link): void => {
    if (chain.broken !== undefined) throw blame(chain.broken, link, entries);
    const { entry } = link;
    if (entry.prev === undefined) {
      if (chain.chained)
        throw chainBroken(
          link.line,
          `seq ${entry.seq} of twin "${entry.twin}" has no prev, though the lines before it are chained; the line was changed — take the log again from its source`,
          `line ${link.line}.prev`,
          entries,
        );
      chain.unchained++;
    } else {
      chain.chained = true;
      if (entry.seq === 1 && entry.prev !== GENESIS)
        throw chainBroken(
          link.line,
          `seq 1 of twin "${entry.twin}" has prev ${short(entry.prev)}, but the first entry of a log links to ${short(GENESIS)} (64 zeros); the line was changed — take the log again from its source`,
          `line ${link.line}.prev`,
          entries,
        );
      if (chain.last !== undefined && !links(entry.prev, chain.last))
        chain.broken = { line: link, before: chain.last };
    }
    chain.last = link;
  };
  const fold = (raw: string): void => {
    lineNo++;
    if (typeof raw !== 'string')
      throw malformed(
        lineNo,
        `it is ${describeValue(raw)}, not text; give the log's lines as strings`,
        `line ${lineNo}`,
        entries,
      );
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
        (twin = {
          head: 0,
          types,
          get: (type, id) => types.get(type)?.get(id),
          chain: { chained: false, last: undefined, unchained: 0, broken: undefined },
        }),
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
    checkLink(twin.chain, { line: lineNo, entry, rawHash: lineHash(raw) });
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
  for (const twin of twins.values())
    if (twin.chain.broken !== undefined) throw blame(twin.chain.broken, undefined, entries);
  onProgress?.({ line: lineNo, appended: entries, skipped: 0 });
  const hashes: Record<string, string> = {};
  const unchained: Record<string, number> = {};
  for (const name of [...twins.keys()].sort()) {
    const live: Resource[] = [];
    for (const byId of twins.get(name)!.types.values())
      for (const r of byId.values()) if (!r.deleted) live.push(r);
    live.sort(compareResources);
    hashes[name] = stateHash(live);
    const missing = twins.get(name)!.chain.unchained;
    if (missing > 0) unchained[name] = missing;
  }
  const names = Object.keys(hashes);
  return {
    hashes,
    entries,
    hash: names.length === 1 ? hashes[names[0]!]! : names.length === 0 ? stateHash([]) : '',
    unchained,
  };
}
