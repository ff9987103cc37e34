// Arguments of a twin's reads that no store could answer, refused before any store sees them, so
// every backend says the same thing (PostgreSQL would otherwise answer with its own words).
import { TwinError } from '../errors.js';

/** Index keys are text: a number field's key is its decimal string. */
export function checkLookupKey(type: string, index: string, key: unknown): void {
  if (typeof key === 'string') return;
  throw new TwinError(
    'INVALID_ARGUMENT',
    `lookup(${JSON.stringify(type)}, ${JSON.stringify(index)}, key): key must be a string, got ${typeof key}; index keys are text (a number field's key is String(value))`,
    { path: 'key' },
  );
}

/** A position in the log, or a count of entries: a whole number, `least` or more. */
export function checkLogCount(value: number | undefined, path: string, least: number): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= least)) return;
  throw new TwinError(
    'INVALID_ARGUMENT',
    `${path} must be a whole number of entries, ${least} or more; got ${JSON.stringify(value) ?? String(value)}`,
    { path },
  );
}
