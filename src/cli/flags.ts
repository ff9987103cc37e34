// The one flag-value layer every command shares: each string option declares what its value is
// (a count, seconds, JSON, a time, one of a few words, a URL, or free text), and the dispatcher
// checks every given value against that before the command runs. A value that is not of its kind
// is a usage error (exit 2) whichever flag it is; only a refusal by the kernel is exit 1
// (docs/cli.md, "Exit status").
import { TwinError } from '../errors.js';
import { readTimeText } from '../log/iso-time.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../log/json-value.js';
import { UsageError } from './usage-error.js';

/** Longest URL a flag takes; longer ones are refused before anything is stored or sent. */
const MAX_URL_LENGTH = 2048;

export type FlagValue =
  /** Names, ids, paths, secrets: any text (not empty when `nonEmpty`). */
  | { readonly kind: 'text'; readonly nonEmpty?: boolean }
  /** A whole number, 0 or more, within [min, max]. */
  | { readonly kind: 'count'; readonly min?: number; readonly max?: number }
  /** A positive number of seconds, decimals allowed (at least 1 ms). */
  | { readonly kind: 'seconds' }
  /** JSON text; `object` asks for a JSON object. `example` is shown when it is malformed. */
  | { readonly kind: 'json'; readonly object?: boolean; readonly example: string }
  /** An ISO 8601 time such as 2026-03-01T03:00:00Z, or a date YYYY-MM-DD (midnight UTC). */
  | { readonly kind: 'time' }
  /** One of a fixed set of words. */
  | { readonly kind: 'choice'; readonly choices: readonly string[] }
  /** An absolute http(s) URL, no CR/LF, at most MAX_URL_LENGTH characters. */
  | { readonly kind: 'url' }
  /** Checked by the kernel's own parser; what it throws becomes the usage message. */
  | { readonly kind: 'check'; readonly check: (raw: string) => unknown };

function usage(flag: string, what: string, raw: string): UsageError {
  return new UsageError(`--${flag} must be ${what}, got ${JSON.stringify(raw)}`);
}

/** The value `raw` of `--flag` as its kind, or a UsageError saying what it must be. */
export function parseFlagValue(flag: string, value: FlagValue, raw: string): unknown {
  switch (value.kind) {
    case 'text':
      if (value.nonEmpty === true && raw === '')
        throw new UsageError(`--${flag} must not be empty`);
      return raw;
    case 'count': {
      const min = value.min ?? 0;
      const range =
        value.max === undefined ? `an integer ${min} or more` : `an integer ${min}–${value.max}`;
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw usage(flag, range, raw);
      const n = Number(raw);
      if (n < min || (value.max !== undefined && n > value.max)) throw usage(flag, range, raw);
      return n;
    }
    case 'seconds': {
      const seconds = Number(raw);
      if (!/^\d+(\.\d+)?$/.test(raw) || !(seconds * 1000 >= 1))
        throw usage(flag, 'a positive number of seconds (at least 0.001)', raw);
      return Math.round(seconds * 1000);
    }
    case 'json': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch (error) {
        throw new UsageError(
          `--${flag} is not valid JSON (${(error as Error).message}); pass e.g. '${value.example}'`,
        );
      }
      if (value.object === true && !isPlainObject(parsed))
        throw new UsageError(
          `--${flag} must be a JSON object such as '${value.example}', got ${Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed)}`,
        );
      return parsed;
    }
    case 'time':
      return parseTimeFlag(flag, raw);
    case 'choice':
      if (!value.choices.includes(raw))
        throw usage(flag, `one of ${value.choices.join(', ')}`, raw);
      return raw;
    case 'url':
      return checkUrlText(flag, raw);
    case 'check':
      try {
        return value.check(raw);
      } catch (error) {
        if (error instanceof TwinError || error instanceof UsageError)
          throw new UsageError(`--${flag}: ${error.message}`);
        throw error;
      }
  }
}

/**
 * A time flag as a UTC ISO string. Date.parse alone would roll "2026-02-30" into March and read a
 * time without a zone in this machine's zone, so the same command would mean another instant on
 * another host: both are refused, each saying what to write instead.
 */
function parseTimeFlag(flag: string, raw: string): string {
  const read = readTimeText(raw);
  if ('iso' in read) return read.iso;
  if (read.problem === 'shape')
    throw usage(flag, 'an ISO 8601 time such as 2026-03-01T03:00:00Z, or YYYY-MM-DD', raw);
  if (read.problem === 'zone')
    throw new UsageError(
      `--${flag} ${JSON.stringify(raw)} has no time zone, so it would be read in this machine's zone; add Z for UTC (${read.withZ}) or an offset such as +01:00`,
    );
  throw new UsageError(
    `--${flag} ${JSON.stringify(raw)} is not a time on the calendar (a month 01–12, a day the month has, hours 00–23, minutes and seconds 00–59)`,
  );
}

function checkUrlText(flag: string, raw: string): string {
  const example = 'http://127.0.0.1:3000/webhooks';
  if (/[\r\n]/.test(raw))
    throw new UsageError(`--${flag} must not hold a line break (CR or LF); give one URL`);
  if (raw.length > MAX_URL_LENGTH)
    throw new UsageError(
      `--${flag} is ${raw.length} characters, over the ${MAX_URL_LENGTH} a URL may have`,
    );
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw usage(flag, `an http(s) URL such as ${example}`, raw);
  return raw;
}

/** Every given value of every string flag checked against its kind (repeatable flags each). */
export function checkFlagValues(
  specs: Readonly<Record<string, { readonly type: string; readonly value?: FlagValue }>>,
  values: Readonly<Record<string, unknown>>,
): void {
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.value === undefined) continue;
    const given = values[name];
    for (const raw of Array.isArray(given) ? given : [given])
      if (typeof raw === 'string') parseFlagValue(name, spec.value, raw);
  }
}

// Typed readers for commands. The dispatcher checked the values already; reading through the same
// parser keeps one definition of what each kind means.
type Values = Readonly<Record<string, unknown>>;

function raw(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function jsonFlag(values: Values, name: string, example: string): JsonValue | undefined {
  const text = raw(values, name);
  return text === undefined
    ? undefined
    : (parseFlagValue(name, { kind: 'json', example }, text) as JsonValue);
}

export function jsonObjectFlag(
  values: Values,
  name: string,
  example: string,
): JsonObject | undefined {
  const text = raw(values, name);
  return text === undefined
    ? undefined
    : (parseFlagValue(name, { kind: 'json', object: true, example }, text) as JsonObject);
}

/** The flag as an ISO time string (a date becomes midnight UTC). */
export function timeFlag(values: Values, name: string): string | undefined {
  const text = raw(values, name);
  return text === undefined ? undefined : (parseFlagValue(name, { kind: 'time' }, text) as string);
}

/** The flag in seconds, as whole milliseconds. */
export function secondsFlag(values: Values, name: string): number | undefined {
  const text = raw(values, name);
  return text === undefined
    ? undefined
    : (parseFlagValue(name, { kind: 'seconds' }, text) as number);
}
