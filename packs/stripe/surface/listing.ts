// Stripe lists: `{object: 'list', data, has_more, url}`, newest first, paged by `limit` (1–100,
// default 10), `starting_after` and `ending_before`. Objects made in the same second keep the
// order they were made in: ties on `created` are broken by the seq of the entry that created each.
import type { JsonObject, Resource, Twin } from '../../../src/index.js';
import { cursorPage } from '../../../src/host/index.js';
import { StripeApiError } from './errors.js';
import { apiObject } from './route.js';

export const LIST_PARAMS = {
  limit: 'integer',
  starting_after: 'string',
  ending_before: 'string',
} as const;

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

/** Live resources newest first; `created` ties in creation order, newest first. */
export async function newestFirst(
  twin: Twin,
  resources: readonly Resource[],
  created: (r: Resource) => number = (r) => Number(r.fields.created ?? 0),
): Promise<Resource[]> {
  const ties = new Map<number, number>();
  for (const r of resources) ties.set(created(r), (ties.get(created(r)) ?? 0) + 1);
  const seqOf = new Map<string, number>();
  for (const r of resources) {
    if ((ties.get(created(r)) ?? 0) < 2) continue;
    const [first] = await twin.entriesFor(r.type, r.id);
    seqOf.set(r.id, first?.seq ?? r.version);
  }
  return [...resources].sort(
    (a, b) =>
      created(b) - created(a) ||
      (seqOf.get(b.id) ?? 0) - (seqOf.get(a.id) ?? 0) ||
      (a.id < b.id ? 1 : -1),
  );
}

/** One page of a list already newest first. */
export function listPage(
  ordered: readonly JsonObject[],
  input: JsonObject,
  url: string,
): JsonObject {
  const limit = limitOf(input);
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
  const page = cursorPage(ordered, (o) => String(o.id), {
    limit,
    startingAfter: startingAfter ?? undefined,
    endingBefore: endingBefore ?? undefined,
  });
  if (page === undefined) {
    const cursor = (startingAfter ?? endingBefore)!;
    throw new StripeApiError(
      404,
      'invalid_request_error',
      'resource_missing',
      `No such object: '${cursor}'`,
      {},
      startingAfter != null ? 'starting_after' : 'ending_before',
    );
  }
  return { object: 'list', data: [...page.items], has_more: page.hasMore, url };
}

/** Lists live resources of a type as the API shows them, newest first, one page. */
export async function listOf(
  twin: Twin,
  type: string,
  input: JsonObject,
  url: string,
  keep: (r: Resource) => boolean = () => true,
): Promise<JsonObject> {
  const all = (await twin.list(type)).filter(keep);
  const ordered = await newestFirst(twin, all);
  return listPage(
    ordered.map((r) => apiObject(r.fields)),
    input,
    url,
  );
}
