// Calendar occurrences: when a cron expression in an IANA time zone falls due, and what to do
// with the occurrences that fell due while nothing was running.
//
// Everything here is a pure function of its arguments. Instants are epoch milliseconds passed
// in by the caller; nothing reads the host clock, the host time zone or a random source, and
// croner is used only as a pattern matcher, never with its timers (jobs are created paused
// and without a callback).
//
// HOW OCCURRENCES ARE COMPUTED
// croner evaluates the pattern on the *wall axis*: local clock readings encoded as if they
// were UTC (see zone.ts), with utcOffset 0, so croner itself never sees a DST change. Each
// matching wall time W is then mapped to the first instant at which the zone's clock reads W
// or later. That single definition gives both DST rules below, for every kind of pattern
// (single values, lists, ranges, steps and wildcards alike), and keeps the instants ascending.
//
// DST RULES
// - Gap, rule 'shift-forward'. A matching wall time the clock jumps over fires at the first
//   instant after the jump, marked 'gap-shifted'. `30 2 * * *` in America/New_York on
//   2026-03-08 fires at 03:00 EDT (07:00Z); `15 2 * * *` in Australia/Lord_Howe on 2026-10-04
//   fires at 02:30 (+11:00). Several matching wall times in one gap collapse into one
//   occurrence. If the first wall time after the gap matches too (hourly `0 * * * *` at 03:00
//   EDT), the shifted times merge into it and it is marked 'normal': one run, at 03:00.
//   A calendar day a zone skips entirely (Pacific/Apia, 2011-12-30) is a 24-hour gap.
// - Fold, rule 'first'. A matching wall time the clock shows twice fires once, at its first
//   (earlier-offset) instant, marked 'fold-first'. Nothing fires during the second pass: an
//   hourly `0 * * * *` in America/New_York on 2026-11-01 fires at 01:00 EDT (05:00Z) but not at
//   01:00 EST (06:00Z), then at 02:00 EST (07:00Z); a `*/15` job is silent for the repeated
//   hour. A restart during the second pass does not run the repeated times again: the next
//   occurrence after an instant is always strictly after it.
// - What croner 11.0.1 does natively with a `timezone` (not used here; pinned by
//   test/triggers/calendar/croner-native.test.ts): fixed-time patterns (one value each for
//   second, minute and hour) follow the same two rules. Everything else is an "interval job":
//   its times in a gap are skipped (`30 * * * *` loses 02:30, `30 2,14 * * *` loses 02:30) and
//   its times in a fold fire on both passes (`0 * * * *` fires 01:00 EDT and 01:00 EST). A
//   skipped calendar day is skipped. Running croner in UTC on the wall axis is how this module
//   applies one rule to all patterns.
//
// OCCURRENCE FIELDS
// `nominalAt` is the instant the occurrence is due. `wallTime` ('YYYY-MM-DDTHH:mm') and
// `utcOffsetMinutes` are the zone's clock reading and offset *at nominalAt*, so
// wallTime = nominalAt + utcOffsetMinutes always holds (to the minute). For a gap-shifted
// occurrence wallTime is therefore the time after the gap ('2026-03-08T03:00'), not the
// nonexistent time the pattern named. Seconds of 6-field patterns appear only in nominalAt.
//
// CATCH-UP (planCatchUp)
// `due` holds the occurrences that have fallen due and have not been handled yet, oldest
// first; the caller, which owns the clock, collects them (for example with
// occurrencesBetween(lastHandledAt, now, ...)). Every due occurrence ends up in exactly one of
// `fire` or `missed`, and the caller then moves its cursor past the newest due occurrence, so
// the schedule carries on from the next occurrence whatever the policy. `missed` is for the
// record (a "missed" event, a counter), never to be dropped silently.
// - skip: one due occurrence is the ordinary case and fires. Two or more due means the
//   scheduler was not running when the older ones fell due: none of them fires, all are
//   missed, and the schedule resumes at its next occurrence (pg-boss `missed: skip`;
//   Trigger.dev, which computes the next slot from "now").
// - latest: only the newest due occurrence fires; the older ones are missed (pg-boss
//   `missed: once`; BullMQ's single late run after downtime).
// - all {max}: the newest min(n, max) due occurrences fire, oldest first; any older ones are
//   missed (pg-boss `missed: all` with its cap; Temporal's catch-up window, which drops the
//   oldest). The newest one therefore always fires, and all {max: 1} equals latest.
// Lateness is not judged here, because there is no clock here. A caller that wants a catch-up
// window (Temporal) or a grace period (pg-boss) records occurrences older than the window as
// missed itself and passes only the rest as `due`. With skip, a caller that evaluates less
// often than the schedule's period will see two due occurrences in ordinary operation and
// fire neither; such schedules want latest.
//
// LIMITS
// Instants are integer epoch milliseconds from 0100-01-02 to 9999-12-30 (INVALID_ARGUMENT
// otherwise). croner finds no dates after the year 2999 for 5- and 6-field patterns, so
// nextOccurrence then returns undefined. zone.ts assumes a zone's offset changes are more than
// 48 hours apart (checked with zdump for every zone1970.tab zone, 1900-2100).
import { Cron } from 'croner';
import { TwinError } from '../../errors.js';
import {
  formatWall,
  isKnownTimeZone,
  resolveWall,
  wallAt,
  wallHighWater,
  zoneOffsetMs,
} from './zone.js';

export type DstGapRule = 'shift-forward';
export type DstFoldRule = 'first';
/** The DST rules every occurrence follows (see the module header). */
export const DST_RULES: { readonly gap: DstGapRule; readonly fold: DstFoldRule } = Object.freeze({
  gap: 'shift-forward',
  fold: 'first',
});

export interface CalendarSpec {
  /** 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first). */
  cron: string;
  /** IANA zone name, e.g. 'America/New_York', or 'UTC'. */
  timezone: string;
}

export interface Occurrence {
  /** The instant the occurrence is due, epoch milliseconds. */
  nominalAt: number;
  /** The zone's clock reading at nominalAt, 'YYYY-MM-DDTHH:mm'. */
  wallTime: string;
  /** The zone's UTC offset at nominalAt, in minutes (local = UTC + offset). */
  utcOffsetMinutes: number;
  /**
   * 'normal': the wall time occurs once. 'gap-shifted': the wall time the pattern named did not
   * exist and the occurrence moved to the end of the gap. 'fold-first': the wall time occurs
   * twice and this is the first of the two; the second does not fire.
   */
  dst: 'normal' | 'gap-shifted' | 'fold-first';
}

export type CatchUpPolicy = { kind: 'skip' } | { kind: 'latest' } | { kind: 'all'; max: number };

export interface CatchUpPlan {
  /** Occurrences to run now, oldest first. */
  fire: Occurrence[];
  /** Occurrences that fell due and will not run, oldest first: record them. */
  missed: Occurrence[];
}

// Earliest and latest instants accepted: wide enough for any schedule, narrow enough that the
// zone probes (±34 h) stay inside the years Intl and croner handle.
export const MIN_INSTANT_MS = Date.UTC(100, 0, 2);
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 30);

// A matcher per pattern. Croner objects without a callback never start a timer; paused is set
// as well so that nothing could start one. Bounded, oldest evicted first.
const MATCHER_CACHE_SIZE = 256;
const matchers = new Map<string, Cron>();

function newMatcher(cron: string): Cron {
  return new Cron(cron, {
    paused: true,
    utcOffset: 0,
    mode: '5-or-6-parts',
    domAndDow: false,
    alternativeWeekdays: false,
    sloppyRanges: false,
    fixedTimeRule: 'single-value',
  });
}

/** The cached matcher for a pattern that has passed validateCalendarSpec. */
function matcherFor(cron: string): Cron {
  return matchers.get(cron) ?? compileCron(cron);
}

/** Parses a pattern (fields already counted), checks it can match, and caches it. */
function compileCron(cron: string): Cron {
  let matcher: Cron;
  try {
    matcher = newMatcher(cron);
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const reason = fieldRangeReason(raw) ?? raw.replace(/^CronPattern:\s*/, '');
    throw invalidCron(
      cron,
      `is not a valid cron expression (${reason}); write it like ${CRON_EXAMPLE}`,
    );
  }
  if (matcher.nextRun(new Date(Date.UTC(2000, 0, 1))) === null) {
    throw invalidCron(
      cron,
      'never matches a calendar date (for example the 30th of February); check the day and month fields',
    );
  }
  if (matchers.size >= MATCHER_CACHE_SIZE) {
    const oldest = matchers.keys().next();
    if (oldest.done !== true) matchers.delete(oldest.value);
  }
  matchers.set(cron, matcher);
  return matcher;
}

// croner counts day-of-month and month from 0 inside, and its range errors say the value it
// counted ("month: 12" for a 13 the user wrote); these name the field and the value as written.
const FIELD_RANGES: Readonly<Record<string, { name: string; range: string; shift: number }>> = {
  second: { name: 'second', range: '0–59', shift: 0 },
  minute: { name: 'minute', range: '0–59', shift: 0 },
  hour: { name: 'hour', range: '0–23', shift: 0 },
  day: { name: 'day-of-month', range: '1–31', shift: 1 },
  nearestWeekdays: { name: 'day-of-month', range: '1–31', shift: 1 },
  month: { name: 'month', range: '1–12 (or JAN–DEC)', shift: 1 },
  dayOfWeek: { name: 'day-of-week', range: '0–7 (or SUN–SAT; 0 and 7 are Sunday)', shift: 0 },
};

function fieldRangeReason(message: string): string | undefined {
  const m = /Invalid value for (\w+): (-?\d+)$/.exec(message);
  const field = m === null ? undefined : FIELD_RANGES[m[1]!];
  if (field === undefined) return undefined;
  const value = Number(m![2]) + field.shift;
  return `${field.name} ${value} is out of range: ${field.name} takes ${field.range}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const CRON_EXAMPLE = "'30 2 * * *' (02:30 every day) or '0 */15 9-17 * * 1-5' (with seconds)";

function invalidCron(cron: string, why: string): TwinError {
  return new TwinError('INVALID_CONFIG', `cron '${cron}' ${why}`, { path: 'cron' });
}

/**
 * Checks a calendar spec and returns it as { cron, timezone } (other keys are not copied).
 * Throws TwinError INVALID_CONFIG with path 'cron' or 'timezone' (no path when `spec` is not
 * an object).
 */
export function validateCalendarSpec(spec: unknown): CalendarSpec {
  if (!isRecord(spec)) {
    throw new TwinError(
      'INVALID_CONFIG',
      "a calendar spec must be an object such as { cron: '30 2 * * *', timezone: 'America/New_York' }",
    );
  }
  const { cron, timezone } = spec;
  if (typeof cron !== 'string' || cron.trim().length === 0) {
    throw new TwinError(
      'INVALID_CONFIG',
      `cron must be a non-empty string such as ${CRON_EXAMPLE}`,
      {
        path: 'cron',
      },
    );
  }
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    const hint = cron.trim().startsWith('@')
      ? '; nicknames are not accepted, write the fields instead ' +
        "('@daily' is '0 0 * * *', '@hourly' is '0 * * * *')"
      : '';
    throw invalidCron(
      cron,
      `has ${fields.length} field(s); use 5 (minute hour day-of-month month day-of-week) ` +
        `or 6 (second first), e.g. ${CRON_EXAMPLE}${hint}`,
    );
  }
  if (!matchers.has(cron)) compileCron(cron);
  checkZone(timezone, 'INVALID_CONFIG', 'timezone');
  return { cron, timezone };
}

function checkZone(
  zone: unknown,
  code: 'INVALID_CONFIG' | 'INVALID_ARGUMENT',
  path: string,
): asserts zone is string {
  if (typeof zone !== 'string' || zone.length === 0) {
    throw new TwinError(
      code,
      `${path} must be an IANA zone name such as 'America/New_York', 'Europe/London' or 'UTC'`,
      { path },
    );
  }
  if (!isKnownTimeZone(zone)) {
    throw new TwinError(
      code,
      `unknown time zone '${zone}'; use an IANA zone name such as 'America/New_York', ` +
        "'Europe/London' or 'UTC'",
      { path },
    );
  }
}

/**
 * The zone's clock reading at an instant, as 'YYYY-MM-DDTHH:mm'. Checked here because it is
 * public: an unknown zone or a NaN instant reached Intl and came back as its RangeError.
 */
export function wallTime(zone: string, ms: number): string {
  checkZone(zone, 'INVALID_ARGUMENT', 'zone');
  return formatWall(wallAt(zone, checkInstant(ms, 'ms')));
}

/** The zone's UTC offset at an instant, in minutes (-240 for EDT, 630 for Lord Howe standard). */
export function zoneOffsetMinutes(zone: string, ms: number): number {
  checkZone(zone, 'INVALID_ARGUMENT', 'zone');
  return zoneOffsetMs(zone, checkInstant(ms, 'ms')) / 60_000;
}

function checkInstant(value: unknown, path: string): number {
  const ok = typeof value === 'number' && Number.isSafeInteger(value);
  if (!ok || value < MIN_INSTANT_MS || value > MAX_INSTANT_MS) {
    const lo = new Date(MIN_INSTANT_MS).toISOString();
    const hi = new Date(MAX_INSTANT_MS).toISOString();
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${path} must be an integer epoch-milliseconds instant between ${lo} and ${hi}`,
      { path },
    );
  }
  return value;
}

function occurrenceAt(zone: string, at: number, dst: Occurrence['dst']): Occurrence {
  const offset = zoneOffsetMs(zone, at);
  return {
    nominalAt: at,
    wallTime: formatWall(at + offset),
    utcOffsetMinutes: offset / 60_000,
    dst,
  };
}

/** The first occurrence strictly after `after`; the spec is already valid. */
function nextAfter(matcher: Cron, zone: string, after: number): Occurrence | undefined {
  // Wall times above the high-water mark are exactly those whose instant is after `after`.
  const from = wallHighWater(zone, after);
  const next = matcher.nextRun(new Date(from));
  if (next === null) return undefined;
  const resolved = resolveWall(zone, next.getTime());
  if (resolved.kind === 'normal') return occurrenceAt(zone, resolved.at, 'normal');
  if (resolved.kind === 'fold') return occurrenceAt(zone, resolved.at, 'fold-first');
  // Shifted to the end of the gap; when the wall time there matches too, that is the run.
  const landed = matcher.match(new Date(wallAt(zone, resolved.at)));
  return occurrenceAt(zone, resolved.at, landed ? 'normal' : 'gap-shifted');
}

/** The first occurrence strictly after `afterMs`, or undefined if the pattern has no more. */
export function nextOccurrence(spec: CalendarSpec, afterMs: number): Occurrence | undefined {
  const { cron, timezone } = validateCalendarSpec(spec);
  const after = checkInstant(afterMs, 'afterMs');
  return nextAfter(matcherFor(cron), timezone, after);
}

/**
 * The occurrences with afterMs < nominalAt <= untilMs, ascending, at most `limit` of them;
 * `truncated` is true when the range holds more.
 */
export function occurrencesBetween(
  spec: CalendarSpec,
  afterMs: number,
  untilMs: number,
  limit: number,
): { occurrences: Occurrence[]; truncated: boolean } {
  const { cron, timezone } = validateCalendarSpec(spec);
  const after = checkInstant(afterMs, 'afterMs');
  const until = checkInstant(untilMs, 'untilMs');
  if (until < after) {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `untilMs (${until}) must not be before afterMs (${after})`,
      {
        path: 'untilMs',
      },
    );
  }
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
    throw new TwinError('INVALID_ARGUMENT', 'limit must be a positive integer', { path: 'limit' });
  }
  const matcher = matcherFor(cron);
  const occurrences: Occurrence[] = [];
  let cursor = after;
  for (;;) {
    const next = nextAfter(matcher, timezone, cursor);
    if (next === undefined || next.nominalAt > until) return { occurrences, truncated: false };
    if (occurrences.length === limit) return { occurrences, truncated: true };
    occurrences.push(next);
    cursor = next.nominalAt;
  }
}

/**
 * Checks a catch-up policy: { kind: 'skip' }, { kind: 'latest' } or { kind: 'all', max } with
 * max a positive integer. Throws TwinError INVALID_CONFIG with path 'kind' or 'max'.
 */
export function validateCatchUpPolicy(p: unknown): CatchUpPolicy {
  if (!isRecord(p)) {
    throw new TwinError(
      'INVALID_CONFIG',
      "a catch-up policy must be an object: { kind: 'skip' }, { kind: 'latest' } or { kind: 'all', max: 10 }",
    );
  }
  const { kind } = p;
  if (kind === 'skip' || kind === 'latest') {
    if (p['max'] !== undefined) {
      throw new TwinError(
        'INVALID_CONFIG',
        "max applies only to kind 'all'; remove it or use { kind: 'all', max: n }",
        { path: 'max' },
      );
    }
    return { kind };
  }
  if (kind === 'all') {
    const { max } = p;
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
      throw new TwinError(
        'INVALID_CONFIG',
        "kind 'all' needs max, a positive integer bounding how many missed occurrences run, " +
          "e.g. { kind: 'all', max: 10 }",
        { path: 'max' },
      );
    }
    return { kind, max };
  }
  throw new TwinError(
    'INVALID_CONFIG',
    `catch-up kind must be 'skip', 'latest' or 'all', not ${JSON.stringify(kind) ?? 'undefined'}`,
    { path: 'kind' },
  );
}

function checkDue(due: unknown): readonly Occurrence[] {
  if (!Array.isArray(due)) {
    throw new TwinError('INVALID_ARGUMENT', 'due must be an array of occurrences, oldest first', {
      path: 'due',
    });
  }
  let previous = -Infinity;
  due.forEach((occurrence: unknown, i) => {
    const at = isRecord(occurrence) ? occurrence['nominalAt'] : undefined;
    if (typeof at !== 'number' || !Number.isFinite(at)) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `due[${i}] is not an occurrence with a numeric nominalAt`,
        {
          path: `due[${i}]`,
        },
      );
    }
    if (at <= previous) {
      throw new TwinError(
        'INVALID_ARGUMENT',
        `due must be strictly ascending by nominalAt with no repeats; ` +
          `due[${i}] is at or before due[${i - 1}]`,
        { path: `due[${i}]` },
      );
    }
    previous = at;
  });
  return due as readonly Occurrence[];
}

/**
 * Splits the due occurrences (oldest first, strictly ascending) into those to fire and those to
 * record as missed, by the rules in the module header. Throws INVALID_CONFIG for a bad policy
 * and INVALID_ARGUMENT for a bad `due`.
 */
export function planCatchUp(due: readonly Occurrence[], policy: CatchUpPolicy): CatchUpPlan {
  const p = validateCatchUpPolicy(policy);
  const list = checkDue(due);
  const n = list.length;
  let firing: number;
  switch (p.kind) {
    case 'skip':
      firing = n === 1 ? 1 : 0;
      break;
    case 'latest':
      firing = Math.min(n, 1);
      break;
    case 'all':
      firing = Math.min(n, p.max);
      break;
  }
  return { fire: list.slice(n - firing), missed: list.slice(0, n - firing) };
}
