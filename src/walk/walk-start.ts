// Where a walk's clock starts, checked as the CLI checks --start: a walk names the same instant,
// and so writes the same log, on every machine.
import { TwinError } from '../errors.js';
import { readTimeText } from '../log/iso-time.js';
import type { ClockTime } from '../world/clock.js';

const EXAMPLE = "e.g. start: '2026-03-02T09:00:00Z'";

/**
 * The start as the virtual clock takes it. A string goes through the kernel's own reading:
 * Date.parse would take "2026-03-02T09:00" in this machine's zone (another log on a host in
 * another zone) and roll "2026-02-30" over into March without a word. Epoch ms and a Date pass as
 * they are; the clock checks they name a time.
 */
export function walkStart(start: ClockTime): ClockTime {
  if (typeof start !== 'string') return start;
  const read = readTimeText(start);
  if ('iso' in read) return read.iso;
  const why =
    read.problem === 'zone'
      ? `has no time zone, so it would be read in this machine's zone and the walk would write another log on another host; add Z for UTC (${read.withZ}) or an offset such as +01:00`
      : read.problem === 'calendar'
        ? 'is not a time on the calendar (a month 01–12, a day the month has, hours 00–23, minutes and seconds 00–59)'
        : `is not an ISO 8601 time; give one with its zone, or a date YYYY-MM-DD for midnight UTC (${EXAMPLE})`;
  throw new TwinError('INVALID_ARGUMENT', `the walk's start ${JSON.stringify(start)} ${why}`, {
    path: 'start',
  });
}
