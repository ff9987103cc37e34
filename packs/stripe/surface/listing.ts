// Stripe lists: `{object: 'list', data, has_more, url}`, newest first, paged by `limit` (1–100,
// default 10), `starting_after` and `ending_before`. A page is read from an ordered index
// (indexes.ts: `created`, ties in the order the objects were made) starting at the cursor, so its
// cost is the page, not the number of objects the account holds. Lists Stripe lets filter by
// `created` (`{gt, gte, lt, lte}` or one integer) read the same index: reading ends at the first
// row past the window's far end, so a window of recent objects costs its page; rows on the near
// side (newer than `lt`/`lte`) are read and skipped, the index having no seek by time.
import type { JsonObject, ReadView, Resource, Twin } from '../../../src/index.js';
import { cursorPage } from '../../../src/host/index.js';
import { StripeApiError } from './errors.js';
import { ALL, OBJECT_OF } from './indexes.js';
import { apiObject } from './route.js';

export const LIST_PARAMS = {
  limit: 'integer',
  starting_after: 'string',
  ending_before: 'string',
} as const;

/** A list's parameters where Stripe also filters it by `created` (read by listOf, not the codec). */
export const CREATED_LIST_PARAMS = { ...LIST_PARAMS, created: 'id_or_object' } as const;

/** Where a list reads: a type, one of its ordered indexes and the key listed under it. */
export interface OrderedList {
  readonly type: string;
  readonly index: string;
  readonly key: string;
  /**
   * A filter the index cannot express, made fresh for each page (it may remember what it saw, the
   * page's cursor first);
   * rows it drops are read and skipped, so a list's common filters get an index of their own.
   */
  readonly keep?: (cursor: string | undefined) => (r: Resource) => boolean;
  /** The id in the index a cursor stands for (default: the object itself, when it is live). */
  readonly cursor?: (view: ReadView, id: string) => string | undefined;
  /** What the API shows of a row (default: the object). */
  readonly show?: (r: Resource) => JsonObject;
  /**
   * The row's `created` as shown (default: the object's), for the `created` filter; it must follow
   * the index's order, since reading ends at the first row past the window.
   */
  readonly created?: (r: Resource) => number;
}

/** Every object of a type, or those under the first filter given that has an index. */
export function orderedList(
  type: string,
  input: JsonObject,
  filters: readonly (readonly [param: string, index: string])[] = [],
): Pick<OrderedList, 'type' | 'index' | 'key'> {
  for (const [param, index] of filters) {
    const value = input[param];
    if (typeof value === 'string') return { type, index, key: value };
  }
  return { type, index: ALL, key: OBJECT_OF[type] ?? type };
}

function limitOf(input: JsonObject): number {
  const limit = input.limit ?? 10;
  if (typeof limit !== 'number' || limit < 1 || limit > 100)
    throw new StripeApiError(
      400,
      'invalid_request_error',
      'parameter_invalid',
      'Invalid integer: limit must be between 1 and 100',
      {},
      'limit',
    );
  return limit;
}

/** A `created` filter as inclusive bounds in seconds; open ends are infinite. */
interface Window {
  readonly min: number;
  readonly max: number;
}

const BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;

/** Stripe's answer to a bound that is not an integer: `Invalid integer: abc`, param `created[gte]`. */
function integerAt(value: unknown, param: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  throw new StripeApiError(
    400,
    'invalid_request_error',
    'parameter_invalid_integer',
    `Invalid integer: ${shown}`,
    {},
    param,
  );
}

/** `created` as Stripe takes it on a list: one integer (equal to), or `{gt, gte, lt, lte}`. */
function windowOf(input: JsonObject): Window | undefined {
  const created = input.created;
  if (created === undefined || created === null) return undefined;
  if (typeof created !== 'object' || Array.isArray(created)) {
    const at = integerAt(created, 'created');
    return { min: at, max: at };
  }
  let min = -Infinity;
  let max = Infinity;
  for (const [bound, value] of Object.entries(created)) {
    if (!(BOUNDS as readonly string[]).includes(bound))
      throw new StripeApiError(
        400,
        'invalid_request_error',
        'parameter_unknown',
        `Received unknown parameter: created[${bound}]`,
        {},
        `created[${bound}]`,
      );
    // `created[gte]=` unsets the bound, as `""` unsets any parameter
    if (value === '' || value === null) continue;
    const at = integerAt(value, `created[${bound}]`);
    if (bound === 'gt') min = Math.max(min, at + 1);
    else if (bound === 'gte') min = Math.max(min, at);
    else if (bound === 'lt') max = Math.min(max, at - 1);
    else max = Math.min(max, at);
  }
  return { min, max };
}

/** At most this many rows a read skips at once on the near side of a `created` window. */
const SKIP_BATCH = 1000;

interface Cursor {
  readonly id: string;
  readonly param: 'starting_after' | 'ending_before';
}

/** Stripe's answer to a cursor that names no object of the list. */
function missingCursor(cursor: Cursor): StripeApiError {
  return new StripeApiError(
    404,
    'invalid_request_error',
    'resource_missing',
    `No such object: '${cursor.id}'`,
    {},
    cursor.param,
  );
}

function cursorOf(input: JsonObject): Cursor | undefined {
  const startingAfter = input.starting_after as string | null | undefined;
  const endingBefore = input.ending_before as string | null | undefined;
  if (startingAfter != null && endingBefore != null)
    throw new StripeApiError(
      400,
      'invalid_request_error',
      'parameter_invalid',
      'You may only specify one of these parameters: ending_before, starting_after.',
      {},
      'starting_after',
    );
  if (startingAfter != null) return { id: startingAfter, param: 'starting_after' };
  if (endingBefore != null) return { id: endingBefore, param: 'ending_before' };
  return undefined;
}

/**
 * One page, read in one consistent view: rows in the direction read (older for `starting_after`,
 * newer for `ending_before`), `limit + 1` at a time until a page and one more are kept, or until a
 * row past the `created` window's far end (older than its start reading older, newer than its end
 * reading newer): the index is in `created` order, so no later row is in the window. Rows on the
 * window's near side are skipped, in batches that grow while a whole batch is skipped.
 */
function readPage(
  view: ReadView,
  list: OrderedList,
  limit: number,
  cursor: Cursor | undefined,
  window: Window | undefined,
): { items: Resource[]; hasMore: boolean } | undefined {
  let after: string | undefined;
  if (cursor !== undefined) {
    after = list.cursor
      ? list.cursor(view, cursor.id)
      : view.get(list.type, cursor.id)?.deleted === false
        ? cursor.id
        : undefined;
    if (after === undefined) return undefined;
  }
  const keep = list.keep?.(cursor?.id) ?? (() => true);
  const descending = cursor?.param !== 'ending_before';
  const createdOf = list.created ?? ((r: Resource) => Number(r.fields.created));
  const kept: Resource[] = [];
  let batch = limit + 1;
  let past = false;
  for (;;) {
    const rows = view.range!(list.type, list.index, {
      key: list.key,
      ...(after === undefined ? {} : { after }),
      limit: batch,
      descending,
    });
    let skipped = 0;
    for (const r of rows) {
      if (window !== undefined) {
        const at = createdOf(r);
        if (descending ? at < window.min : at > window.max) {
          past = true;
          break;
        }
        if (at < window.min || at > window.max) {
          skipped++;
          continue;
        }
      }
      if (kept.length <= limit && keep(r)) kept.push(r);
    }
    if (past || kept.length > limit || rows.length < batch) break;
    after = rows[rows.length - 1]!.id;
    if (skipped === rows.length) batch = Math.min(batch * 2, SKIP_BATCH);
  }
  const items = kept.slice(0, limit);
  return { items: descending ? items : items.reverse(), hasMore: kept.length > limit };
}

/** One page of a list as the API shows it. */
export async function listOf(
  twin: Twin,
  list: OrderedList,
  input: JsonObject,
  url: string,
): Promise<JsonObject> {
  const limit = limitOf(input);
  const cursor = cursorOf(input);
  const window = windowOf(input);
  const page = await twin.read((view) => readPage(view, list, limit, cursor, window));
  if (page === undefined) throw missingCursor(cursor!);
  const show = list.show ?? ((r: Resource) => apiObject(r.fields));
  return { object: 'list', data: page.items.map(show), has_more: page.hasMore, url };
}

/**
 * One page of a list gathered whole in one read (the rows under a few index keys), newest first:
 * the `created` window applies as on listOf, then the cursor and `limit`.
 */
export async function gatheredListOf(
  twin: Twin,
  gather: (view: ReadView) => Resource[],
  input: JsonObject,
  url: string,
): Promise<JsonObject> {
  const window = windowOf(input);
  const rows = await twin.read(gather);
  const within = (r: Resource) => {
    if (window === undefined) return true;
    const at = Number(r.fields.created);
    return at >= window.min && at <= window.max;
  };
  return listPage(
    rows.filter(within).map((r) => apiObject(r.fields)),
    input,
    url,
  );
}

/** One page of a short list held whole (a session's line items), already newest first. */
export function listPage(
  ordered: readonly JsonObject[],
  input: JsonObject,
  url: string,
): JsonObject {
  const limit = limitOf(input);
  const cursor = cursorOf(input);
  const page = cursorPage(ordered, (o) => String(o.id), {
    limit,
    startingAfter: cursor?.param === 'starting_after' ? cursor.id : undefined,
    endingBefore: cursor?.param === 'ending_before' ? cursor.id : undefined,
  });
  if (page === undefined) throw missingCursor(cursor!);
  return { object: 'list', data: [...page.items], has_more: page.hasMore, url };
}
