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

/**
 * The lines of a log file with a leading byte order mark dropped; a file whose first line shows
 * it is no log is refused with LOG_FILE_UNREADABLE naming `file` before any line is handed on.
 */
export async function* logFileLines(
  lines: AsyncIterable<string>,
  file: string,
): AsyncGenerator<string> {
  let first = true;
  for await (const line of lines) {
    if (!first) {
      yield line;
      continue;
    }
    first = false;
    const why = notALog(line);
    if (why !== undefined)
      throw new TwinError('LOG_FILE_UNREADABLE', `${file === '-' ? 'stdin' : file}: ${why}`, {
        path: 'file',
        details: { file },
      });
    yield line.charCodeAt(0) === BOM ? line.slice(1) : line;
  }
}
