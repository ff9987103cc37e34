// Logs as files: JSONL, one canonical entry per line, streamed both ways.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { TwinError } from '../errors.js';

export function readLines(file: string): AsyncIterable<string> {
  return (async function* () {
    // Opened when reading starts, not before: a caller that awaits something else first (a
    // network store's head) must not miss the 'open' event and wait on it forever.
    const stream = createReadStream(file, { encoding: 'utf8' });
    stream.on('error', () => {});
    try {
      await once(stream, 'open');
    } catch (error) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `cannot read log file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { path: 'file' },
      );
    }
    yield* createInterface({ input: stream, crlfDelay: Infinity });
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
