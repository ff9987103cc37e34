// Billing periods on the calendar, as Stripe counts them: every boundary is the anchor plus a whole
// number of intervals, and a month boundary that falls past a month's end is clamped to its last
// day (an anchor on Jan 31 bills on Feb 28, then Mar 31). All times are Unix seconds, UTC.
import type { Interval } from './catalog.js';

const DAY = 86_400;

/** The k-th boundary after `anchor` for a price billed every `count` `interval`s. */
function boundary(anchor: number, interval: Interval, count: number, k: number): number {
  if (interval === 'day') return anchor + k * count * DAY;
  if (interval === 'week') return anchor + k * count * 7 * DAY;
  const d = new Date(anchor * 1000);
  const months = (interval === 'year' ? 12 : 1) * count * k;
  const year = d.getUTCFullYear() + Math.floor((d.getUTCMonth() + months) / 12);
  const month = (d.getUTCMonth() + months) % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), last);
  return Math.floor(
    Date.UTC(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000,
  );
}

/** The first boundary strictly after `after`. */
export function nextBoundary(
  anchor: number,
  interval: Interval,
  count: number,
  after: number,
): number {
  for (let k = 1; ; k++) {
    const at = boundary(anchor, interval, count, k);
    if (at > after) return at;
  }
}

export const DAYS = (n: number) => n * DAY;
