// Time-zone arithmetic for the calendar trigger, on top of Intl only. Pure: every function
// takes the instant it works on; nothing reads the host clock or the host time zone.
//
// Two axes are used throughout:
// - an *instant* is epoch milliseconds (UTC);
// - a *wall time* is the local clock reading in a zone, encoded as the epoch milliseconds at
//   which a UTC clock would show the same fields (so 2026-03-08 02:30 local is
//   Date.UTC(2026, 2, 8, 2, 30)). Wall times can be compared and stepped like instants but are
//   not instants: in a DST gap some wall times have no instant, in a fold some have two.
//
// Assumption (checked with zdump against every zone1970.tab zone, 1900-2100): two offset
// transitions of one zone are always more than 48 hours apart, and offsets stay within
// ±16 hours. So any window of at most 48 hours holds at most one transition, and two probes
// at its ends are enough to tell whether it holds one.

const HOUR_MS = 3_600_000;
/** Offsets never exceed this in magnitude (tzdata max is +14:00, LMT up to about ±15:57). */
const MAX_OFFSET_MS = 16 * HOUR_MS;
/** A wall time's instants lie within ±MAX_OFFSET_MS of it: a 32-hour window. */
const RESOLVE_WINDOW_MS = MAX_OFFSET_MS;
/** Looking back this far finds every earlier instant whose wall time could exceed the current one. */
const HIGH_WATER_WINDOW_MS = 2 * MAX_OFFSET_MS + HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      numberingSystem: 'latn',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** True when Intl knows the zone (an IANA name or alias such as 'UTC'). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone.length === 0) return false;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

interface Fields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function fieldsAt(zone: string, ms: number): Fields {
  const out: Fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(zone).formatToParts(ms)) {
    switch (part.type) {
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        out[part.type] = Number(part.value);
        break;
      default:
        break;
    }
  }
  if (out.hour === 24) out.hour = 0; // defensive: some ICU builds print midnight as 24 in h23
  return out;
}

/** Date.UTC that also means it for years 0-99. */
function utcFromFields(f: Fields): number {
  const d = new Date(0);
  d.setUTCFullYear(f.year, f.month - 1, f.day);
  d.setUTCHours(f.hour, f.minute, f.second, 0);
  return d.getTime();
}

function floorToSecond(ms: number): number {
  return ms - (((ms % 1000) + 1000) % 1000);
}

/** The zone's UTC offset at an instant, in milliseconds (local = UTC + offset). */
export function zoneOffsetMs(zone: string, ms: number): number {
  const whole = floorToSecond(ms);
  return utcFromFields(fieldsAt(zone, whole)) - whole;
}

/** The wall time at an instant, on the wall axis (see the header). */
export function wallAt(zone: string, ms: number): number {
  return ms + zoneOffsetMs(zone, ms);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** 'YYYY-MM-DDTHH:mm' for a wall-axis value. */
export function formatWall(wall: number): string {
  const d = new Date(wall);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`
  );
}

interface OffsetWindow {
  /** Offset at the start of the window. */
  readonly before: number;
  /** Offset at the end of the window. */
  readonly after: number;
  /** First instant with the `after` offset, when the window holds a transition. */
  readonly at: number | undefined;
}

/**
 * The one transition in (lo, hi], if any. The window must be at most 48 hours (see the header).
 */
function transitionIn(zone: string, lo: number, hi: number): OffsetWindow {
  const before = zoneOffsetMs(zone, lo);
  const after = zoneOffsetMs(zone, hi);
  if (before === after) return { before, after, at: undefined };
  let a = lo;
  let b = hi;
  while (b - a > 1) {
    const mid = a + Math.floor((b - a) / 2);
    if (zoneOffsetMs(zone, mid) === before) a = mid;
    else b = mid;
  }
  return { before, after, at: b };
}

type WallKind = 'normal' | 'gap' | 'fold';

export interface ResolvedWall {
  /** The first instant at which the zone's clock reads `wall` or later. */
  readonly at: number;
  /**
   * 'normal': the wall time occurs exactly once. 'gap': it does not occur (clocks jumped over
   * it) and `at` is the first instant after the jump. 'fold': it occurs twice and `at` is the
   * earlier of the two.
   */
  readonly kind: WallKind;
}

/**
 * Maps a wall time to the first instant at which the zone's clock reads that time or later:
 * min { t : wallAt(zone, t) >= wall }. This one definition gives both DST rules: a wall time in
 * a gap maps to the end of the gap, an ambiguous one to its first occurrence. The map never
 * decreases, so ascending wall times give ascending (possibly equal) instants.
 */
export function resolveWall(zone: string, wall: number): ResolvedWall {
  const lo = wall - RESOLVE_WINDOW_MS;
  const hi = wall + RESOLVE_WINDOW_MS;
  const tr = transitionIn(zone, lo, hi);
  if (tr.at === undefined) return { at: wall - tr.before, kind: 'normal' };
  const early = wall - tr.before; // valid when it falls before the transition
  const late = wall - tr.after; // valid when it falls at or after the transition
  const earlyOk = early < tr.at;
  const lateOk = late >= tr.at;
  if (earlyOk && lateOk) return { at: early, kind: 'fold' };
  if (earlyOk) return { at: early, kind: 'normal' };
  if (lateOk) return { at: late, kind: 'normal' };
  return { at: tr.at, kind: 'gap' };
}

/**
 * The highest wall time the zone's clock has shown at or before `ms`:
 * max { wallAt(zone, t) : t <= ms }. It exceeds wallAt(zone, ms) only during the second pass
 * through a fold, when the clock has been set back. A wall time W maps (resolveWall) to an
 * instant after `ms` exactly when W > wallHighWater(zone, ms).
 */
export function wallHighWater(zone: string, ms: number): number {
  const now = wallAt(zone, ms);
  const tr = transitionIn(zone, ms - HIGH_WATER_WINDOW_MS, ms);
  if (tr.at === undefined || tr.after >= tr.before) return now;
  return Math.max(now, tr.at - 1 + tr.before);
}
