// Logs as files: JSONL, one canonical entry per line, streamed both ways.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { TwinError } from '../errors.js';
import { logFileLines } from './first-line.js';

/** Why `file` cannot be read as a log, said as what the user can check: missing, a folder, locked. */
function logFileRefusal(error: unknown, file: string): TwinError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? 'no such file; check the path (or pass - to read stdin)'
      : code === 'EISDIR'
        ? 'is a folder, not a log file; pass a .jsonl file such as `twinworld export` writes'
        : code === 'EACCES' || code === 'EPERM'
          ? 'this user may not read it; check its permissions'
          : `it cannot be read (${code ?? String(error)})`;
  return new TwinError('LOG_FILE_UNREADABLE', `${file}: ${why}`, {
    path: 'file',
    details: { file, ...(code === undefined ? {} : { reason: code }) },
    cause: error,
  });
}

/**
 * Refuses a log file that is missing or a folder before anything reads it, so a command can check
 * its input before it opens (or creates) a world.
 */
export async function checkLogFile(file: string): Promise<void> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(file)).isDirectory();
  } catch (error) {
    throw logFileRefusal(error, file);
  }
  // Opening a folder succeeds; only its first read fails, after the caller started work.
  if (isFolder)
    throw logFileRefusal(Object.assign(new Error('a folder'), { code: 'EISDIR' }), file);
}

export function readLines(file: string): AsyncIterable<string> {
  return (async function* () {
    await checkLogFile(file);
    // Opened when reading starts, not before: a caller that awaits something else first (a
    // network store's head) must not miss the 'open' event and wait on it forever.
    const stream = createReadStream(file, { encoding: 'utf8' });
    stream.on('error', () => {});
    try {
      await once(stream, 'open');
    } catch (error) {
      throw logFileRefusal(error, file);
    }
    yield* logFileLines(createInterface({ input: stream, crlfDelay: Infinity }), file);
  })();
}

export async function writeLines(
  file: string,
  lines: Iterable<string> | AsyncIterable<string>,
): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  let count = 0;
  for await (const line of lines) {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
    count++;
  }
  out.end();
  await once(out, 'finish');
  return count;
}
