// What the first line of a log file says about the file before any line is parsed: a byte order
// mark to drop (Notepad and some Windows tools write one; it is no part of the entry), or a file
// that is no JSONL log at all — a twin's database, a compressed export, UTF-16 text (what
// PowerShell 5's `>` writes) — refused as what it is, instead of as "line 1 is not valid JSON".
import { TwinError } from '../errors.js';

const BOM = 0xfeff;
const REPLACEMENT = '\ufffd';

/** Why a first line shows its file is no log, with what to do instead; undefined when it may be one. */
function notALog(first: string): string | undefined {
  if (first.startsWith('SQLite format 3\u0000'))
    return "is a SQLite database (a twin's .db file), not a log; write the twin's log with `twinworld export <twin> --root DIR --out FILE` and pass that";
  if (first.startsWith('\u001f\ufffd'))
    return 'is gzip-compressed; decompress it first (gunzip -k FILE), or pipe it in: gunzip -c FILE | twinworld … -';
  // FF FE / FE FF decode as two replacement characters; the text after them is full of NULs.
  if (first.startsWith(REPLACEMENT + REPLACEMENT) && first.includes('\u0000'))
    return "is UTF-16 text (as PowerShell 5's `>` writes), not UTF-8; write it with `twinworld export <twin> --out FILE`, or convert it to UTF-8";
  return undefined;
}

/** The first line as an entry's text, or the refusal of a file it shows is no log. */
function firstLine(line: string, file: string): string {
  const why = notALog(line);
  if (why !== undefined)
    throw new TwinError('LOG_FILE_UNREADABLE', `${file === '-' ? 'stdin' : file}: ${why}`, {
      path: 'file',
      details: { file },
    });
  return line.charCodeAt(0) === BOM ? line.slice(1) : line;
}

/**
 * The lines of a log file with a leading byte order mark dropped; a file whose first line shows
 * it is no log is refused with LOG_FILE_UNREADABLE naming `file` before any line is handed on.
 * Only the first line is looked at: every later one is the source's own step, with no generator
 * between (an async generator per line cost about 0.3 s a million lines of a replay).
 */
export function logFileLines(lines: AsyncIterable<string>, file: string): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<string> {
      const source = lines[Symbol.asyncIterator]();
      let first = true;
      return {
        next() {
          if (!first) return source.next();
          first = false;
          return source
            .next()
            .then((step) =>
              step.done === true ? step : { done: false, value: firstLine(step.value, file) },
            );
        },
        return: (value?: unknown) =>
          source.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}
