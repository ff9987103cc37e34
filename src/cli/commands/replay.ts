// `twinworld replay`: folds a JSONL log into fresh in-memory twins and prints the state hash(es)
// it reaches, so a recorded log can be checked against the hashes it must give (--expect).
import { replayLines, type ReplayResult } from '../../world/replay.js';
import { TwinError } from '../../errors.js';
import { UsageError, type Command } from '../command.js';
import { printJson, progressLine, Table, write } from '../output.js';
import { emptyLogNote, inputLines } from './import.js';

interface Expectation {
  readonly twin: string | undefined;
  readonly hash: string;
}

function parseExpect(raw: readonly string[]): Expectation[] {
  return raw.map((value) => {
    const eq = value.indexOf('=');
    const twin = eq > 0 && !value.startsWith('sha256:') ? value.slice(0, eq) : undefined;
    const hash = twin === undefined ? value : value.slice(eq + 1);
    if (!/^sha256:[0-9a-f]{64}$/.test(hash))
      throw new UsageError(
        `--expect takes sha256:<64 hex digits> or <twin>=sha256:<64 hex digits>, got "${value}"`,
      );
    return { twin, hash };
  });
}

/** The first expectation the replay does not meet, as an error. */
function mismatch(
  file: string,
  result: ReplayResult,
  expectations: readonly Expectation[],
): TwinError | undefined {
  const twins = Object.keys(result.hashes);
  for (const e of expectations) {
    if (e.twin === undefined && twins.length > 1) {
      return new TwinError(
        'HASH_MISMATCH',
        `${file} holds ${twins.length} twins (${twins.join(', ')}); name the one to check with --expect <twin>=HASH`,
        { path: 'expect' },
      );
    }
    const actual = e.twin === undefined ? result.hash : result.hashes[e.twin];
    if (actual !== e.hash) {
      const what = e.twin === undefined ? file : `twin "${e.twin}" of ${file}`;
      return new TwinError(
        'HASH_MISMATCH',
        `${what} replays to ${actual ?? 'nothing (no such twin in the log)'}, not the expected ${e.hash}`,
        {
          path: 'expect',
          details: { twin: e.twin ?? null, expected: e.hash, actual: actual ?? null },
        },
      );
    }
  }
  return undefined;
}

export const replayCommand: Command = {
  name: 'replay',
  summary: 'Replay a JSONL log in memory and print its state hash',
  usage: 'replay <file.jsonl> [--expect HASH]... [--json]',
  description: [
    'Replays <file.jsonl> into fresh in-memory twins (nothing is written to disk) and prints the',
    'state hash it folds to and the number of entries, e.g.',
    '  sha256:3f2a…  12 entries (twin "stripe")',
    'A log holding several twins (each line goes to the twin it names) prints one hash per twin.',
    'With --expect, exits 1 (HASH_MISMATCH) unless the hash matches. A malformed line stops the',
    'replay (exit 1, IMPORT_MALFORMED_LINE with its line number); so does a line the hash chain',
    'does not vouch for — changed, removed or reordered (IMPORT_CHAIN_BROKEN naming the line). A log',
    'written before the chain (entries without prev) is replayed and said to be unchecked on stderr.',
    '--root is accepted and ignored.',
    'Shows progress on stderr when stderr is a terminal.',
  ].join('\n'),
  arguments: [['<file.jsonl>', 'the log to replay, or - for stdin']],
  positionals: { min: 1, max: 1 },
  options: {
    expect: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      multiple: true,
      arg: 'HASH',
      description:
        'fail unless the replay reaches HASH; for a log of several\ntwins give <twin>=HASH (repeatable)',
    },
  },
  jsonHelp:
    'print {"hash", "entries", "hashes", "unchained"}; hashes maps each twin to its hash,\nhash is the single twin\'s hash (null when the log holds several), unchained maps each\ntwin with entries without prev (a log from before the chain) to how many',
  async run(args, io) {
    const [file] = args.positionals as [string];
    const raw = args.values.expect;
    const expectations = parseExpect(Array.isArray(raw) ? raw : []);
    const progress = progressLine(io, 'replaying', args.json);
    let result: ReplayResult;
    try {
      result = await replayLines(inputLines(file, io), progress.onProgress);
    } finally {
      progress.done();
    }
    const twins = Object.keys(result.hashes);
    if (args.json) {
      await printJson(io, {
        hash: result.hash === '' ? null : result.hash,
        entries: result.entries,
        hashes: result.hashes,
        unchained: result.unchained,
      });
    } else if (twins.length <= 1) {
      await write(
        io.stdout,
        `${result.hash}  ${result.entries} entries${twins.length === 1 ? ` (twin "${twins[0]}")` : ''}\n`,
      );
    } else {
      const table = new Table(['TWIN', 'HASH']);
      await write(
        io.stdout,
        `${table.render(twins.map((t) => [t, result.hashes[t]!]))}${result.entries} entries in ${twins.length} twins\n`,
      );
    }
    if (result.entries === 0) await write(io.stderr, emptyLogNote(file));
    for (const [twin, count] of Object.entries(result.unchained))
      await write(
        io.stderr,
        `note: twin "${twin}" has ${count} ${count === 1 ? 'entry' : 'entries'} without prev (a log written before the hash chain): replayed, but not checked against the chain\n`,
      );
    const failed = mismatch(file, result, expectations);
    if (failed !== undefined) throw failed;
    return 0;
  },
};
