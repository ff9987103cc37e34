// ISO 8601 instants as the log stores them: the shape a regex can check, plus the calendar
// facts it cannot — a month 1–12, a day that month has (leap years included), hours 0–23,
// minutes and seconds 0–59, an offset of at most ±23:59. Date.parse alone would roll
// "2026-02-30" over into March and accept it.

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS[month - 1]!;
}

/** The decimal number in value[from, from + length): the regex has checked they are digits. */
function digits(value: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) n = n * 10 + value.charCodeAt(i) - 48;
  return n;
}

/** True when `value` is an ISO 8601 timestamp such as "2026-01-01T00:00:00.000Z" naming a real instant. */
export function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO.test(value)) return false;
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(digits(value, 0, 4), month))
    return false;
  if (digits(value, 11, 2) > 23 || digits(value, 14, 2) > 59 || digits(value, 17, 2) > 59)
    return false;
  const zone = value.length - 6;
  if (
    value.charCodeAt(value.length - 1) !== 90 /* Z */ &&
    (digits(value, zone + 1, 2) > 23 || digits(value, zone + 4, 2) > 59)
  )
    return false;
  return true;
}

/** Why `value` is not an instant, for messages: the shape, or the calendar. */
export function isoProblem(value: unknown): 'shape' | 'calendar' | undefined {
  if (typeof value !== 'string' || !ISO.test(value)) return 'shape';
  return isIsoInstant(value) ? undefined : 'calendar';
}

const TIME_TEXT =
  /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(:\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/** What a time someone typed names: the instant, or why it names none ('zone' with the UTC reading). */
export type TimeText =
  | { readonly iso: string }
  | { readonly problem: 'shape' | 'calendar' }
  | { readonly problem: 'zone'; readonly withZ: string };

/**
 * A time as people type it — ISO 8601 with its zone, seconds optional, or YYYY-MM-DD for midnight
 * UTC — as a UTC ISO string. A time without a zone is refused, not read in this machine's zone,
 * so the same text names the same instant on every host; "2026-02-30" is refused, not rolled over.
 */
export function readTimeText(raw: string): TimeText {
  const m = TIME_TEXT.exec(raw);
  if (m === null) return { problem: 'shape' };
  const [, date, hm, sec, zone] = m;
  if (hm !== undefined && zone === undefined)
    return { problem: 'zone', withZ: `${date}T${hm}${sec ?? ':00'}Z` };
  const text =
    hm === undefined ? `${date}T00:00:00Z` : `${date}T${hm}${sec ?? ':00'}${zone!.toUpperCase()}`;
  if (isoProblem(text) !== undefined) return { problem: 'calendar' };
  return { iso: new Date(Date.parse(text)).toISOString() };
}

/**
 * Why a time someone typed names no instant, as a refusal says it after quoting the text;
 * `example` shows the shape wanted.
 */
export function timeTextProblem(
  read: Extract<TimeText, { readonly problem: unknown }>,
  example: string,
): string {
  if (read.problem === 'zone')
    return `has no time zone, so it would be read in this machine's zone and name another instant on another host; add Z for UTC (${read.withZ}) or an offset such as +01:00`;
  if (read.problem === 'calendar')
    return 'is not a time on the calendar (a month 01–12, a day the month has, hours 00–23, minutes and seconds 00–59)';
  return `is not an ISO 8601 time; give one with its zone, or a date YYYY-MM-DD for midnight UTC (${example})`;
}
