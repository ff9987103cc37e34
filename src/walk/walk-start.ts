// Where a walk's clock starts, checked as the CLI checks --start: a walk names the same instant,
// and so writes the same log, on every machine.
import { TwinError } from '../errors.js';
import { readTimeText, timeTextProblem } from '../log/iso-time.js';
import type { ClockTime } from '../world/clock.js';

const EXAMPLE = "e.g. start: '2026-03-02T09:00:00Z'";

/**
 * The start as the virtual clock takes it, refused in the walk's words: the clock reads text the
 * same way (a zone required, the calendar checked) but would name itself, not the walk's start.
 */
export function walkStart(start: ClockTime): ClockTime {
  if (typeof start !== 'string') return start;
  const read = readTimeText(start);
  if ('iso' in read) return read.iso;
  throw new TwinError(
    'INVALID_ARGUMENT',
    `the walk's start ${JSON.stringify(start)} ${timeTextProblem(read, EXAMPLE)}`,
    {
      path: 'start',
    },
  );
}
