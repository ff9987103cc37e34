// How the CLI prints: backpressure-aware writes, column tables, JSON, TTY progress lines, and
// the one format every error is reported in (`error CODE: message (at path)`, or toJSON()).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { TwinError } from '../errors.js';
import { fileSystemReason, isFileSystemCode } from '../log/file-system.js';
import type { ImportProgress } from '../world/twin.js';
import type { CliIO } from './command.js';

/** Writes and waits for 'drain' when the stream asks, so a big export never buffers whole in memory. */
export async function write(stream: Writable, text: string): Promise<void> {
  // A stream whose reader went away (EPIPE) takes nothing more; a command ending after it (listen
  // on its way out) writes into the void rather than fail on every line.
  if (stream.destroyed || stream.errored !== null) return;
  if (stream.write(text)) return;
  try {
    await once(stream, 'drain');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
  }
}

export async function writeLines(
  stream: Writable,
  lines: Iterable<string> | AsyncIterable<string>,
): Promise<number> {
  let count = 0;
  for await (const line of lines) {
    await write(stream, `${line}\n`);
    count++;
  }
  return count;
}

export function printJson(io: CliIO, value: unknown): Promise<void> {
  return write(io.stdout, `${JSON.stringify(value)}\n`);
}

/**
 * A left-aligned column table that can be printed page by page: widths only ever grow, so a long
 * log streams without holding every row, at the cost of later pages possibly being wider.
 */
export class Table {
  private widths: number[];
  private headerDone = false;

  constructor(private readonly header: readonly string[]) {
    this.widths = header.map((h) => h.length);
  }

  /** Rendered lines for these rows, preceded by the header the first time. */
  render(rows: readonly (readonly string[])[]): string {
    for (const row of rows)
      row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i] ?? 0, cell.length)));
    const lines = this.headerDone ? [] : [this.line(this.header)];
    this.headerDone = true;
    for (const row of rows) lines.push(this.line(row));
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  private line(cells: readonly string[]): string {
    // The last column is never padded: no trailing spaces.
    return cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(this.widths[i] ?? 0)))
      .join('  ');
  }
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

interface ErrorLike {
  code: string;
  message: string;
  path?: string | undefined;
  toJSON?: () => unknown;
}

function asErrorLike(error: unknown): ErrorLike {
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; path?: unknown; toJSON?: () => unknown };
    // Kernel errors carry a stable code; a driver error (e.g. SQLITE_BUSY) keeps its own.
    const code = typeof e.code === 'string' ? e.code : 'INTERNAL';
    return {
      code,
      message: e.message,
      path: typeof e.path === 'string' ? e.path : undefined,
      ...(typeof e.toJSON === 'function' ? { toJSON: () => e.toJSON!() } : {}),
    };
  }
  return { code: 'INTERNAL', message: String(error) };
}

// Calls that only look or read; any other (open for writing, mkdir, rename, unlink…) changes something.
const READING_CALLS = new Set([
  'stat',
  'lstat',
  'fstat',
  'read',
  'scandir',
  'opendir',
  'access',
  'readlink',
  'realpath',
]);

/**
 * A Node file-system error (ENOENT, EACCES, EISDIR, ENOSPC, EMFILE…) that reached the CLI's edge because
 * no check on its way turned it into a refusal of its own: said as a typed refusal naming the path
 * and the reason in words, never Node's `ENOENT: no such file or directory, open '…'`.
 */
function systemErrorRefusal(error: unknown): TwinError | undefined {
  if (!(error instanceof Error) || error instanceof TwinError) return undefined;
  const e = error as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof e.code !== 'string' || !isFileSystemCode(e.code) || typeof e.syscall !== 'string')
    return undefined;
  const call = e.syscall;
  // open() says nothing of its mode; Node's message for a missing file to read is the common case.
  const doing = READING_CALLS.has(call) || call === 'open' ? 'reading' : 'writing';
  const path = typeof e.path === 'string' ? e.path : undefined;
  const dest = typeof e.dest === 'string' ? ` to ${e.dest}` : '';
  const what =
    path === undefined
      ? `${call} of a file (Node did not say which) failed`
      : `${call} ${path}${dest} failed`;
  return new TwinError(
    'FILE_ACCESS_FAILED',
    `${what}: ${fileSystemReason(e, doing)}; fix that at the path named (create the folder, give this user access, free space) and run the command again`,
    {
      // The message names the file; `path` is for a field of the input, which this is not.
      details: { code: e.code, syscall: call, ...(path === undefined ? {} : { file: path }) },
      cause: error,
    },
  );
}

/** Reports a refused or failed operation on stderr; returns exit code 1. */
export async function printError(io: CliIO, error: unknown, json: boolean): Promise<number> {
  const e = asErrorLike(systemErrorRefusal(error) ?? error);
  if (json) {
    const body = e.toJSON?.() ?? {
      error: e.code,
      message: e.message,
      ...(e.path === undefined ? {} : { path: e.path }),
    };
    await write(io.stderr, `${JSON.stringify(body)}\n`);
  } else {
    await write(
      io.stderr,
      `error ${e.code}: ${e.message}${e.path === undefined ? '' : ` (at ${e.path})`}\n`,
    );
  }
  return 1;
}

/** Reports a usage mistake on stderr as one line and where help is; returns exit code 2. */
export async function printUsageError(
  io: CliIO,
  message: string,
  hint: string,
  json: boolean,
): Promise<number> {
  const line = message.replace(/\s*\n\s*/g, ' ');
  if (json)
    await write(io.stderr, `${JSON.stringify({ error: 'USAGE', message: line, help: hint })}\n`);
  else await write(io.stderr, `error USAGE: ${line}; ${hint}\n`);
  return 2;
}

/**
 * A `\r`-updated progress line on stderr for long imports and replays, shown only when stderr
 * is a terminal: piped or captured stderr must stay clean for scripts.
 */
export function progressLine(
  io: CliIO,
  verb: string,
  json = false,
): { onProgress: ((p: ImportProgress) => void) | undefined; done(): void } {
  if (json || !io.isTTY.stderr) return { onProgress: undefined, done: () => {} };
  let shown = false;
  return {
    onProgress: (p) => {
      shown = true;
      io.stderr.write(
        `\r${verb}: line ${p.line}, ${p.appended} appended${p.skipped > 0 ? `, ${p.skipped} already present` : ''}\x1b[K`,
      );
    },
    done: () => {
      if (shown) io.stderr.write('\r\x1b[K');
    },
  };
}

/**
 * A `\r`-updated line on stderr for any long loop (`trigger --count`), shown only on a terminal
 * and never with --json; `show` redraws it at most every 100 ms of wall time.
 */
export function statusLine(io: CliIO, json: boolean): { show(text: string): void; done(): void } {
  if (json || !io.isTTY.stderr) return { show: () => {}, done: () => {} };
  let shown = false;
  let last = 0;
  return {
    show(text) {
      const now = performance.now();
      if (shown && now - last < 100) return;
      last = now;
      shown = true;
      io.stderr.write(`\r${text}\x1b[K`);
    },
    done() {
      if (shown) io.stderr.write('\r\x1b[K');
    },
  };
}
