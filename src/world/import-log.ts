// Importing a JSONL log into a twin, line by line: each line is held to the limits of a write, its
// seq must continue the twin's log (an entry already there, same seq and writeId, is skipped, so an
// interrupted import can run again), and its `prev` must be the hash of the line before it. A line
// is appended only once the next line has confirmed its hash (the last line, which nothing follows,
// is taken as it is), so a changed line is never imported. Lines from before the chain (no `prev`)
// are accepted. Every entry is stored linked to the twin's own chain: when the file's bytes are the
// twin's (same name, same chain) they are kept as they are, else `twin` and `prev` are rewritten.
import { TwinError } from '../errors.js';
import { canonicalJson } from '../log/canonical-json.js';
import { GENESIS, lineHash } from '../log/chain.js';
import { validateEntry, type Entry } from '../log/write.js';

export interface ImportProgress {
  readonly line: number;
  readonly appended: number;
  readonly skipped: number;
}

interface ImportItem {
  readonly entry: Entry;
  readonly body: string;
  readonly hash: string;
}

/** What an import needs of the twin it writes to. */
export interface ImportTarget {
  readonly name: string;
  head(): Promise<number>;
  /** The hash of the twin's entry `seq` (GENESIS for 0): what entry seq + 1 links to. */
  hashAt(seq: number): Promise<string>;
  entryAt(seq: number): Promise<Entry | undefined>;
  /** Appends the items in one commit; their seqs continue the log. */
  append(items: readonly ImportItem[]): Promise<void>;
}

const IMPORT_BATCH = 1_000;

interface Line {
  readonly no: number;
  readonly entry: Entry;
  /** Hash of the file's line as canonical JSON (what the next line's prev must be). */
  readonly hash: string;
  readonly canonical: string;
  /** Already in the twin, or to be appended. */
  readonly skip: boolean;
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}

function toIterator(
  lines: Iterable<string> | AsyncIterable<string>,
): AsyncIterator<string> | Iterator<string> {
  return Symbol.asyncIterator in lines
    ? lines[Symbol.asyncIterator]()
    : (lines as Iterable<string>)[Symbol.iterator]();
}

export async function importLog(
  target: ImportTarget,
  lines: Iterable<string> | AsyncIterable<string>,
  onProgress?: (p: ImportProgress) => void,
): Promise<ImportProgress> {
  const source = toIterator(lines);
  const name = target.name;
  let lineNo = 0;
  let appended = 0;
  let skipped = 0;
  let batch: ImportItem[] = [];
  let expected = (await target.head()) + 1;
  /** Our hash of the entry before `expected` (loaded on the first append). */
  let ours: string | undefined;
  /** The line read before, waiting for this one to confirm its hash. */
  let held: Line | undefined;
  let chained = false;
  /** The twin the file's first line names: a line of another is refused (several twins' logs). */
  let from: string | undefined;
  /** The line of the newest entry committed or skipped, for progress. */
  let done = 0;

  const next = async (): Promise<{ no: number; text: string } | undefined> => {
    for (;;) {
      const step = await source.next();
      if (step.done === true) return undefined;
      lineNo++;
      const text = step.value.trim();
      if (text !== '') return { no: lineNo, text };
    }
  };
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    await target.append(items);
    appended += items.length;
  };
  const stop = async (
    code: 'IMPORT_MALFORMED_LINE' | 'IMPORT_CONFLICT' | 'IMPORT_CHAIN_BROKEN',
    no: number,
    reason: string,
    path: string,
    extra: Record<string, unknown> = {},
  ): Promise<never> => {
    await flush();
    throw new TwinError(
      code,
      `import into twin "${name}" stopped at line ${no}: ${reason}; lines before it were kept (${appended} appended)`,
      { path, details: { line: no, appended, ...extra } },
    );
  };
  const parse = async (no: number, text: string): Promise<Entry> => {
    try {
      return validateEntry(JSON.parse(text), `line ${no}`);
    } catch (error) {
      // The line before is kept, as it always was: a malformed line stops the import where it is.
      if (held !== undefined) await commit(held);
      const reason =
        error instanceof TwinError
          ? error.message
          : `it is not valid JSON (${(error as Error).message})`;
      return stop(
        'IMPORT_MALFORMED_LINE',
        no,
        reason,
        error instanceof TwinError && error.path !== undefined ? error.path : `line ${no}`,
      );
    }
  };
  /** Appends (or counts as skipped) a line whose hash the next line confirmed. */
  const commit = async (line: Line): Promise<void> => {
    done = line.no;
    if (line.skip) {
      skipped++;
      return;
    }
    ours ??= await target.hashAt(line.entry.seq - 1);
    const same = line.entry.twin === name && line.entry.prev === ours;
    const entry = same ? line.entry : { ...line.entry, twin: name, prev: ours };
    const body = same ? line.canonical : canonicalJson(entry);
    const hash = same ? line.hash : lineHash(body);
    batch.push({ entry, body, hash });
    ours = hash;
    if (batch.length >= IMPORT_BATCH) {
      await flush();
      onProgress?.({ line: done, appended, skipped });
    }
  };
  /** The line a broken link is to be blamed on: the one before, when the one after vouches for this. */
  const blame = async (line: Line, before: Line): Promise<Line> => {
    const after = await next();
    if (after === undefined) return line;
    try {
      const entry = JSON.parse(after.text) as { prev?: unknown };
      return entry.prev === line.hash ? before : line;
    } catch {
      return line;
    }
  };

  try {
    for (let raw = await next(); raw !== undefined; raw = await next()) {
      const entry = await parse(raw.no, raw.text);
      from ??= entry.twin;
      if (entry.twin !== from) {
        // A walk's saved log holds several twins' logs one after the other: the next twin's seq 1
        // would otherwise be blamed as a changed line.
        if (held !== undefined) await commit(held);
        await stop(
          'IMPORT_MALFORMED_LINE',
          raw.no,
          `it is an entry of twin "${entry.twin}", but the lines before it are of twin "${from}": the input holds the logs of several twins (as a walk's saved log does), and an import takes one twin's log — export one twin at the source, or check the whole file with \`twinworld replay\``,
          `line ${raw.no}.twin`,
          { twin: entry.twin, before: from },
        );
      }
      const canonical = canonicalJson(entry);
      const line: Line = {
        no: raw.no,
        entry,
        canonical,
        hash: lineHash(canonical),
        skip: entry.seq < expected,
      };
      if (!line.skip && entry.seq !== expected) {
        // A gap says more than the broken link it also makes; the line before is kept, as it was.
        if (held !== undefined) await commit(held);
        await stop(
          'IMPORT_MALFORMED_LINE',
          line.no,
          `seq ${entry.seq} leaves a gap after ${expected - 1}; entries must be dense`,
          `line ${line.no}.seq`,
        );
      }
      // The link to the line before (or, for the file's first line, to what it must continue).
      if (entry.prev === undefined) {
        if (chained)
          await stop(
            'IMPORT_CHAIN_BROKEN',
            line.no,
            `seq ${entry.seq} has no prev, though the lines before it are chained; the line was changed — export the log again from its source`,
            `line ${line.no}.prev`,
            { seq: entry.seq },
          );
      } else {
        chained = true;
        let want: string | undefined;
        if (held !== undefined) want = held.hash;
        else if (entry.seq === 1) want = GENESIS;
        else if (entry.seq === expected && entry.twin === name)
          want = ours ??= await target.hashAt(entry.seq - 1);
        if (want !== undefined && entry.prev !== want) {
          if (held === undefined) {
            await stop(
              'IMPORT_CHAIN_BROKEN',
              line.no,
              entry.seq === 1
                ? `seq 1 has prev ${short(entry.prev)}, but the first entry of a log links to ${short(GENESIS)} (64 zeros); the line was changed — export the log again from its source`
                : `seq ${entry.seq} links to an entry ${entry.seq - 1} that hashes to ${short(entry.prev)}, but this twin's entry ${entry.seq - 1} hashes to ${short(want)}: the file does not continue this twin's log — import it into an empty twin instead`,
              `line ${line.no}.prev`,
              { seq: entry.seq, expected: want, found: entry.prev },
            );
          }
          const culprit = await blame(line, held!);
          if (culprit === line) {
            await stop(
              'IMPORT_CHAIN_BROKEN',
              line.no,
              `seq ${entry.seq}'s prev ${short(entry.prev)} is not the hash ${short(want)} of line ${held!.no} (seq ${held!.entry.seq}) before it: this line was changed, or lines between them were removed or reordered — export the log again from its source, or check the source with \`twinworld verify\``,
              `line ${line.no}.prev`,
              { seq: entry.seq, expected: want, found: entry.prev },
            );
          }
          await stop(
            'IMPORT_CHAIN_BROKEN',
            culprit.no,
            `seq ${culprit.entry.seq} was changed after it was written: it hashes to ${short(culprit.hash)}, but line ${line.no} (seq ${entry.seq}), which the lines after it vouch for, records ${short(entry.prev)} — export the log again from its source, or check the source with \`twinworld verify\``,
            `line ${culprit.no}`,
            { seq: culprit.entry.seq, expected: entry.prev, found: culprit.hash },
          );
        }
      }
      if (held !== undefined) await commit(held);
      if (line.skip) {
        const existing = await target.entryAt(entry.seq);
        if (existing?.writeId !== entry.writeId) {
          await stop(
            'IMPORT_CONFLICT',
            line.no,
            `seq ${entry.seq} is already taken by a different entry (writeId ${existing?.writeId ?? '?'}); import into an empty twin instead`,
            `line ${line.no}.seq`,
          );
        }
      } else expected++;
      held = line;
    }
  } finally {
    // Stopped early: let a file's stream go.
    await source.return?.();
  }
  if (held !== undefined) await commit(held);
  await flush();
  const progress = { line: lineNo, appended, skipped };
  onProgress?.(progress);
  return progress;
}
