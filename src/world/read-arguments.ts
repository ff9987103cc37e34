// Arguments of a twin's reads that no store could answer, refused before any store sees them, so
// every backend says the same thing (PostgreSQL would otherwise answer with its own words).
import { TwinError } from '../errors.js';

/**
 * A resource's type is non-empty text and its id text. A store answers anything else with nothing found
 * (get() → undefined, list() → []), which reads as "no such resource" rather than a wrong call.
 */
export function checkResourceRef(call: 'get' | 'list', type: unknown, id?: unknown): void {
  const usage =
    call === 'get'
      ? 'get(type, id), e.g. get("customer", "cus_1")'
      : 'list(type), e.g. list("customer")';
  if (typeof type !== 'string' || type === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: type must be a non-empty string, got ${JSON.stringify(type) ?? String(type)}`,
      { path: 'type' },
    );
  // An empty id is a question with an answer (no such resource): a route's path segment may be one.
  if (call === 'get' && typeof id !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: id must be a string, got ${JSON.stringify(id) ?? String(id)}`,
      { path: 'id' },
    );
}

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
