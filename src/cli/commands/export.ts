// `twinworld export`: a twin's whole log as JSONL, one canonical entry per line, streamed to
// stdout (`twinworld export stripe > stripe.jsonl`) or to a file with --out.
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { realpath, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isTwinError, TwinError } from '../../errors.js';
import { fileSystemReason } from '../../log/file-system.js';
import { chainCheckedLines } from '../../world/chain-guard.js';
import type { Twin } from '../../world/twin.js';
import { stringOption, withTwin, type Command } from '../command.js';
import { printJson, write, writeLines } from '../output.js';

function code(error: unknown): string {
  const c = (error as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : 'error';
}

/** Writes one line, waiting for 'drain' when asked; a stream error rejects instead of crashing. */
function put(
  out: WriteStream,
  line: string,
  failed: () => Error | undefined,
): Promise<void> | undefined {
  const error = failed();
  if (error !== undefined) throw error;
  if (out.write(line)) return undefined;
  return once(out, 'drain').then(() => undefined);
}

/**
 * Writes beside the target and renames at the end, so an interrupted export never leaves a
 * file that looks like a complete (shorter) log. A read or write that fails midway is an
 * EXPORT_FAILED refusal that names where it stopped, and the temporary file is removed. A target
 * that is no regular file (a pipe, /dev/stdout) is written in place: renaming over it would
 * replace the device or pipe with a file.
 */
async function exportToFile(
  twin: string,
  file: string,
  target: OutTarget,
  lines: () => AsyncIterable<string>,
): Promise<number> {
  const temp = target.inPlace ? target.path : `${target.path}.${process.pid}.partial`;
  const left = target.inPlace ? '' : `; nothing was left at ${file}`;
  const out = createWriteStream(temp, { encoding: 'utf8' });
  let streamError: Error | undefined;
  // Listened for from the start: an 'error' nobody listens to would crash the process.
  out.on('error', (error) => (streamError ??= error));
  try {
    await once(out, 'open');
  } catch (error) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `cannot write ${file}: ${fileSystemReason(error, 'writing')}; check that its folder exists and this user can write in it, or pick another --out`,
      { path: 'out', details: { file, reason: code(error) }, cause: error },
    );
  }
  let count = 0;
  let reading = true;
  try {
    // Lines are started only now: an open SQLite statement would keep the world from closing.
    for await (const line of lines()) {
      reading = false;
      const wait = put(out, `${line}\n`, () => streamError);
      if (wait !== undefined) await wait;
      count++;
      reading = true;
    }
    reading = false;
    if (streamError !== undefined) throw streamError;
    out.end();
    await once(out, 'finish');
    if (!target.inPlace) await rename(temp, target.path);
    return count;
  } catch (error) {
    out.destroy();
    if (!target.inPlace) await rm(temp, { force: true });
    if (isTwinError(error, 'IMPORT_CHAIN_BROKEN'))
      throw new TwinError(error.code, `${error.message}${left}`, {
        ...(error.path === undefined ? {} : { path: error.path }),
        ...(error.details === undefined ? {} : { details: { ...error.details } }),
      });
    const what = reading
      ? `reading the twin's log failed (${code(error)}; the database may be damaged)`
      : `writing ${file} failed (${code(error)}; is the disk full, or the file too large for this process?)`;
    throw new TwinError(
      'EXPORT_FAILED',
      `export of twin "${twin}" stopped after ${count} entries: ${what}${left}`,
      {
        path: reading ? 'twin' : 'out',
        details: { entries: count, cause: code(error) },
      },
    );
  }
}

function written(entries: number): string {
  if (entries === 0) return 'nothing was written to stdout';
  return `${entries === 1 ? 'entry 1 was' : `entries 1–${entries} were`} written to stdout`;
}

interface OutTarget {
  /** Where the bytes go: a link to a file is followed, so the link stays and its file is written. */
  readonly path: string;
  readonly inPlace: boolean;
}

/**
 * A folder given as --out is refused before the world opens: the export would be written beside
 * it and its rename refused (EISDIR), reported as a disk that might be full.
 */
async function checkOutFile(file: string, twin: string): Promise<OutTarget> {
  const found = await stat(file).catch(() => undefined);
  if (found?.isDirectory() === true)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `--out ${file} is a folder; give the file to write, e.g. --out ${join(file, `${twin}.jsonl`)}`,
      { path: 'out' },
    );
  if (found === undefined) return { path: file, inPlace: false };
  if (!found.isFile()) return { path: file, inPlace: true };
  return { path: await realpath(file), inPlace: false };
}

export const exportCommand: Command = {
  name: 'export',
  summary: "Write a twin's log as JSONL (stdout or --out FILE)",
  usage: 'export <twin> [--out FILE] [--allow-broken] [--root DIR | --store URL] [--json]',
  description: [
    "Writes every entry of <twin>'s log as canonical JSONL, one entry per line, oldest first:",
    '  twinworld export stripe > stripe.jsonl      (stdout, the default)',
    '  twinworld export stripe --out stripe.jsonl  (written whole, then renamed into place)',
    'Each line carries prev, the SHA-256 of the line before it, so `twinworld import` notices a',
    'changed, removed or reordered line. The file can be loaded with `twinworld import` or',
    'checked with `twinworld replay`.',
    'Refused (exit 1, UNKNOWN_TWIN) when the twin does not exist; stopped (exit 1,',
    'IMPORT_CHAIN_BROKEN naming the entry) where the stored chain is broken — the entries before',
    'it are on stdout already, and --out leaves no file — unless --allow-broken is given.',
  ].join('\n'),
  arguments: [['<twin>', 'twin name, e.g. stripe']],
  positionals: { min: 1, max: 1 },
  options: {
    out: {
      type: 'string',
      value: { kind: 'text', nonEmpty: true },
      short: 'o',
      arg: 'FILE',
      description: 'write to FILE instead of stdout (- is stdout)',
    },
    'allow-broken': {
      type: 'boolean',
      description:
        'export a log whose hash chain is broken as it is stored, to look at it\n(import and replay refuse the file at the same entry; `twinworld verify` names it)',
    },
  },
  jsonHelp:
    'with --out, print {"twin", "entries", "file"}; without --out the lines are JSON already',
  async run(args, io) {
    const [name] = args.positionals as [string];
    const out = stringOption(args, 'out');
    // "-" is stdout, as it is stdin for import and replay, not a file named "-".
    const file = out === '-' ? undefined : out;
    const target = file === undefined ? undefined : await checkOutFile(file, name);
    const lines =
      args.values['allow-broken'] === true
        ? (twin: Twin) => twin.exportLines()
        : (twin: Twin) => chainCheckedLines(twin);
    return withTwin(args, name, { mustExist: true }, async (twin) => {
      if (file === undefined || target === undefined) {
        await writeLines(io.stdout, lines(twin)).catch((error: unknown) => {
          if (!isTwinError(error, 'IMPORT_CHAIN_BROKEN')) throw error;
          throw new TwinError(
            error.code,
            `${error.message}; ${written(Number(error.details?.entries))}`,
            {
              path: 'twin',
              ...(error.details === undefined ? {} : { details: { ...error.details } }),
            },
          );
        });
        return 0;
      }
      const entries = await exportToFile(name, file, target, () => lines(twin));
      if (args.json) await printJson(io, { twin: name, entries, file });
      else await write(io.stdout, `exported ${entries} entries of twin "${name}" to ${file}\n`);
      return 0;
    });
  },
};
