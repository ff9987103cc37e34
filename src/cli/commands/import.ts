// `twinworld import`: appends a JSONL log (a file, or stdin with "-") to a twin. Entries already
// present are skipped, so an interrupted import can simply be run again; a malformed line stops
// the import at that line and keeps everything before it.
import { createInterface } from 'node:readline';
import { TwinError } from '../../errors.js';
import { GENESIS } from '../../log/chain.js';
import { logFileLines } from '../../log/first-line.js';
import { checkLogFile, readLines } from '../../log/jsonl.js';
import { stateHash } from '../../state/state-hash.js';
import { importLog } from '../../world/import-log.js';
import type { ImportProgress } from '../../world/twin.js';
import { validateTwinName } from '../../world/world.js';
import { withTwin, withWorld, type CliIO, type Command, type ParsedArgs } from '../command.js';
import { storeMayHoldWorld } from '../store.js';
import { checkOneTwin } from '../one-twin-log.js';
import { printJson, progressLine, write } from '../output.js';

/**
 * Said on stderr when a log holds no entry: valid (the empty state), but most often an export
 * that failed into a file the shell had already made.
 */
export function emptyLogNote(file: string): string {
  return `note: ${file === '-' ? 'stdin' : file} holds no entries; if it was written by \`twinworld export <twin> > FILE\`, check that the export succeeded (or write it with --out FILE, which leaves no file when it fails)\n`;
}

/** Lines of a log file, or of stdin for "-". */
export function inputLines(file: string, io: CliIO): AsyncIterable<string> {
  return file === '-'
    ? logFileLines(createInterface({ input: io.stdin, crlfDelay: Infinity }), file)
    : readLines(file);
}

/** The lines read so far are kept, so that what a trial run read is read again by the import. */
function replayable(lines: AsyncIterable<string>): {
  trial: AsyncIterable<string>;
  rest: () => AsyncIterable<string>;
} {
  const source = lines[Symbol.asyncIterator]();
  const seen: string[] = [];
  return {
    trial: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const step = await source.next();
          if (step.done === true) return;
          seen.push(step.value);
          yield step.value;
        }
      },
    },
    async *rest() {
      yield* seen;
      for (;;) {
        const step = await source.next();
        if (step.done === true) return;
        yield step.value;
      }
    },
  };
}

const WOULD_APPEND = Symbol('would append');

/**
 * Runs the import's own checks against an empty twin until the first entry it would append: true
 * when it would append one, false when the log holds no entry; a refusal of the first lines is
 * thrown as the import would throw it. So an import into a new twin that would append nothing
 * opens no world: a refused import leaves no empty twin (nor a root) behind.
 */
async function wouldAppend(name: string, lines: AsyncIterable<string>): Promise<boolean> {
  try {
    await importLog(
      {
        name,
        head: async () => 0,
        hashAt: async () => GENESIS,
        entryAt: async () => undefined,
        append: async () => {
          throw WOULD_APPEND;
        },
      },
      lines,
    );
    return false;
  } catch (error) {
    if (error === WOULD_APPEND) return true;
    throw error;
  }
}

async function twinExists(args: ParsedArgs, name: string): Promise<boolean> {
  if (!storeMayHoldWorld(args.store)) return false;
  return (await withWorld(args.store, (world) => world.twinNames(), { create: false })).includes(
    name,
  );
}

/**
 * Another process appending to the twin while it imports makes the store refuse an entry whose
 * seq was just taken (SQLite: a constraint code; PostgreSQL: a seq that no longer follows the
 * head): that is an import conflict to report as one, not the store's own words.
 */
function raced(error: unknown, twin: string, last: ImportProgress): TwinError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const taken =
    typeof code === 'string' &&
    (code.startsWith('SQLITE_CONSTRAINT') ||
      (error instanceof TwinError && code === 'INVALID_ARGUMENT' && error.path === 'entry.seq'));
  if (!taken) return undefined;
  return new TwinError(
    'IMPORT_CONFLICT',
    `import into twin "${twin}" stopped: another process appended to it while the import ran, so the next entry's seq was taken; ${last.appended} entries were kept — import into a twin nothing else writes to (re-running skips what is already there, and stops where the histories differ)`,
    { path: 'twin', details: { appended: last.appended, line: last.line } },
  );
}

export const importCommand: Command = {
  name: 'import',
  summary: 'Append a JSONL log to a twin',
  usage: 'import <twin> <file.jsonl> [--root DIR | --store URL] [--json]',
  description: [
    'Appends the entries of <file.jsonl> (as written by `twinworld export`) to <twin>, creating',
    'it if needed. Entries already present (same seq and writeId) are skipped, so a stopped',
    'import can be re-run. A malformed line stops the import with IMPORT_MALFORMED_LINE naming',
    "its line number (exit 1); every line before it stays imported. Each line's prev must be the",
    'hash of the line before it: a changed line stops the import with IMPORT_CHAIN_BROKEN naming',
    'it, and is not imported. A log from before the chain (no prev) is accepted and chained.',
    "The file holds one twin's log: one of several twins' logs (a walk's saved log, which",
    '`twinworld replay` reads) is refused before anything is imported.',
    'Shows progress on stderr when stderr is a terminal.',
  ].join('\n'),
  arguments: [
    ['<twin>', 'twin name, e.g. stripe'],
    ['<file.jsonl>', 'the log to import, or - for stdin'],
  ],
  positionals: { min: 2, max: 2 },
  options: {},
  jsonHelp:
    'print {"twin", "lines", "appended", "skipped", "head", "hash", "chain"} (chain: the newest entry\'s hash)',
  async run(args, io) {
    const [name, file] = args.positionals as [string, string];
    // Before the world opens: a missing file, a folder or a file of several twins' logs leaves no
    // root or twin behind (stdin cannot be read twice: there the import stops at the first line
    // of another twin, keeping the lines before it).
    if (file !== '-') {
      await checkLogFile(file);
      await checkOneTwin(file, name, readLines(file));
    }
    validateTwinName(name);
    const input = replayable(inputLines(file, io));
    if (!(await twinExists(args, name)) && !(await wouldAppend(name, input.trial))) {
      const empty = { twin: name, lines: 0, appended: 0, skipped: 0, head: 0 };
      await write(io.stderr, emptyLogNote(file));
      const hash = stateHash([]);
      if (args.json) await printJson(io, { ...empty, hash, chain: null });
      else
        await write(
          io.stdout,
          `imported 0 entries: twin "${name}" was not made, as the log holds none; ${hash}\n`,
        );
      return 0;
    }
    return withTwin(args, name, { mustExist: false }, async (twin) => {
      const progress = progressLine(io, 'importing', args.json);
      let last: ImportProgress = { line: 0, appended: 0, skipped: 0 };
      let result;
      try {
        result = await twin.importLines(input.rest(), (p) => {
          last = p;
          progress.onProgress?.(p);
        });
      } catch (error) {
        throw raced(error, name, last) ?? error;
      } finally {
        progress.done();
      }
      const summary = {
        twin: name,
        lines: result.line,
        appended: result.appended,
        skipped: result.skipped,
        head: await twin.head(),
        hash: await twin.hash(),
        // The newest entry's chain hash: what `twinworld verify` at the source prints for it.
        chain: (await twin.chainHead())?.hash ?? null,
      };
      if (result.appended + result.skipped === 0) await write(io.stderr, emptyLogNote(file));
      if (args.json) await printJson(io, summary);
      else {
        const skipped = summary.skipped > 0 ? ` (${summary.skipped} already present, skipped)` : '';
        await write(
          io.stdout,
          `imported ${summary.appended} entries into twin "${name}"${skipped}; head ${summary.head}${summary.chain === null ? '' : ` (chain ${summary.chain.slice(0, 16)}…)`}, ${summary.hash}\n`,
        );
      }
      return 0;
    });
  },
};
