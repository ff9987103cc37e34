// Arguments of a twin's reads that no store could answer, refused before any store sees them, so
// every backend says the same thing (PostgreSQL would otherwise answer with its own words): the
// twin's own reads and the view a decide or read() sees check them alike.
import { checkOptionKeys, describeValue, TwinError } from '../errors.js';

/**
 * A resource's type is non-empty text and its id text. A store answers anything else with nothing found
 * (get() → undefined, list() → []), which reads as "no such resource" rather than a wrong call.
 */
export function checkResourceRef(
  call: 'get' | 'list' | 'entriesFor',
  type: unknown,
  id?: unknown,
): void {
  const usage =
    call === 'list'
      ? 'list(type), e.g. list("customer")'
      : `${call}(type, id), e.g. ${call}("customer", "cus_1")`;
  if (typeof type !== 'string' || type === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: type must be a non-empty string, got ${describeValue(type)}`,
      { path: 'type' },
    );
  // An empty id is a question with an answer (no such resource): a route's path segment may be one.
  if (call !== 'list' && typeof id !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: id must be a string, got ${describeValue(id)}`,
      { path: 'id' },
    );
}

function checkName(usage: string, path: 'type' | 'index', value: unknown): void {
  if (typeof value !== 'string' || value === '')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: ${path} must be a non-empty string, got ${describeValue(value)}`,
      { path },
    );
}

/**
 * A lookup's type and index name non-empty text, and its key is text: a number field's key is its
 * decimal string. Asked in the order given, so lookup("customer") blames the index, not the key.
 */
export function checkLookup(type: unknown, index: unknown, key: unknown): void {
  const usage = 'lookup(type, index, key), e.g. lookup("customer", "byPlan", "pro")';
  checkName(usage, 'type', type);
  checkName(usage, 'index', index);
  if (typeof key === 'string') return;
  throw new TwinError(
    'INVALID_ARGUMENT',
    `lookup(${JSON.stringify(type)}, ${JSON.stringify(index)}, key): key must be a string, got ${describeValue(key)}; index keys are text (a number field's key is String(value))`,
    { path: 'key' },
  );
}

/** getMany's ids: an array of text, each checked as get's id is. */
export function checkGetMany(type: unknown, ids: unknown): void {
  const usage = 'getMany(type, ids), e.g. getMany("customer", ["cus_1", "cus_2"])';
  checkName(usage, 'type', type);
  if (!Array.isArray(ids))
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: ids must be an array, got ${describeValue(ids)}`,
      {
        path: 'ids',
      },
    );
  ids.forEach((id: unknown, i) => {
    if (typeof id !== 'string')
      throw new TwinError(
        'INVALID_ARGUMENT',
        `${usage}: ids[${i}] must be a string, got ${describeValue(id)}`,
        { path: `ids[${i}]` },
      );
  });
}

/**
 * lookupUpTo's bound is text (keys compare as text) and its limit a whole number: a NaN limit made
 * every comparison with it false, so the memory store answered the whole index.
 */
export function checkUpTo(
  call: string,
  type: unknown,
  index: unknown,
  maxKey: unknown,
  limit: unknown,
): void {
  const usage = `${call}(type, index, maxKey, limit)`;
  checkName(usage, 'type', type);
  checkName(usage, 'index', index);
  if (typeof maxKey !== 'string')
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: maxKey must be a string (keys compare as text; an ISO time for a due index), got ${describeValue(maxKey)}`,
      { path: 'maxKey' },
    );
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0)
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: limit must be a whole number, 0 or more, got ${describeValue(limit)}`,
      { path: 'limit' },
    );
}

const RANGE_PAGE = ['key', 'after', 'limit', 'descending'];

/**
 * A range's page: a NaN limit went to the store as given, a key or cursor that is no text matched
 * nothing, and a misspelt key was dropped (`{afer: id}` served the first page again, so a caller
 * paging on it never ended; `{decending: true}` answered in ascending order).
 */
export function checkRange(type: unknown, index: unknown, page: unknown): void {
  const usage =
    'range(type, index, page), e.g. range("customer", "byCreated", {key: "", limit: 10})';
  checkName(usage, 'type', type);
  checkName(usage, 'index', index);
  checkOptionKeys(usage, page, RANGE_PAGE, 'page', true);
  const { key, after, limit, descending } = page as Record<string, unknown>;
  const refuse = (path: string, what: string, value: unknown): never => {
    throw new TwinError(
      'INVALID_ARGUMENT',
      `${usage}: page.${path} must be ${what}, got ${describeValue(value)}`,
      { path: `page.${path}` },
    );
  };
  if (typeof key !== 'string') refuse('key', 'a string (the index key; "" for all)', key);
  if (after !== undefined && typeof after !== 'string')
    refuse('after', 'a resource id (the last one of the page before)', after);
  if (typeof limit !== 'number' || Number.isNaN(limit))
    refuse('limit', 'a number of resources, 0 or more', limit);
  if (descending !== undefined && typeof descending !== 'boolean')
    refuse('descending', 'true or false', descending);
}

const ENTRIES_OPTIONS = ['after', 'limit'];

/** entries' options: {after?, limit?}. A misspelt one ({lmit: 5}) read the whole log. */
export function checkEntriesOptions(options: unknown): void {
  checkOptionKeys('entries(options)', options, ENTRIES_OPTIONS, 'options', true);
  const { after, limit } = options as { after?: number; limit?: number };
  checkLogCount(after, 'after', 0);
  checkLogCount(limit, 'limit', 1);
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
