// Where a walk's clock starts and what seeds it, checked as the CLI checks --start and --seed: a
// walk names the same instant and the same seed, and so writes the same log, on every machine.
import { describeValue, TwinError } from '../errors.js';
import { readTimeText, timeTextProblem } from '../log/iso-time.js';
import type { ClockTime } from '../world/clock.js';

const EXAMPLE = "e.g. start: '2026-03-02T09:00:00Z'";

/**
 * The start as the virtual clock takes it, refused in the walk's words: the clock reads text the
 * same way (a zone required, the calendar checked) but would name itself, not the walk's start.
 * Epoch ms must be whole: the log records times to the millisecond, so 1.5 would start a clock no
 * entry can name. A Date goes to the clock, which checks it names a date. `path` and `subject`
 * name where the value came from.
 */
export function walkStart(start: unknown, path = 'start', subject = "the walk's start"): ClockTime {
  const refuse = (why: string): TwinError =>
    new TwinError('INVALID_ARGUMENT', `${subject} ${why}`, { path });
  if (start instanceof Date) return start;
  if (typeof start === 'number') {
    if (!Number.isSafeInteger(start))
      throw refuse(
        `${describeValue(start)} is no whole number of epoch ms; give an ISO time with its zone (${EXAMPLE}) or whole ms`,
      );
    return start;
  }
  if (typeof start !== 'string')
    throw refuse(
      `must be an ISO time with its zone or epoch ms (${EXAMPLE}), got ${describeValue(start)}`,
    );
  const read = readTimeText(start);
  if ('iso' in read) return read.iso;
  throw refuse(`${JSON.stringify(start)} ${timeTextProblem(read, EXAMPLE)}`);
}

/**
 * The seed as the walk hashes it: its text. A number is taken only as a whole number 0–2^53 − 1,
 * as `--seed` takes it: NaN, 1e21 or -1 would seed the walk with "NaN", "1e+21" or "-1", text no
 * `--seed` names, and past 2^53 − 1 the number typed is not the number held. A string is its own
 * text, so a walk seeded by an odd number is still reached by that number's text.
 */
export function walkSeed(seed: unknown, path = 'seed', subject = "the walk's seed"): string {
  if (typeof seed === 'string' && seed !== '') return seed;
  if (typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0) return String(seed);
  const asText =
    typeof seed === 'number'
      ? `; a walk seeded ${String(seed)} before is the walk of the text ${JSON.stringify(String(seed))}`
      : '';
  throw new TwinError(
    'INVALID_ARGUMENT',
    `${subject} must be a whole number 0–${Number.MAX_SAFE_INTEGER} or non-empty text, got ${describeValue(seed)} (the same seed gives the same log)${asText}`,
    { path },
  );
}
