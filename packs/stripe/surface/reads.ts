// Small shared pieces of the Stripe routes: retrieving one live object (or Stripe's 404), and
// dropping unset parameters before a pack operation sees its input.
import type { JsonObject } from '../../../src/index.js';
import { StripeApiError } from './errors.js';
import { apiObject, type StripeContext } from './route.js';

export function missing(kind: string, id: string): StripeApiError {
  return new StripeApiError(
    404,
    'invalid_request_error',
    'resource_missing',
    `No such ${kind}: '${id}'`,
    {},
    'id',
  );
}

export async function retrieve(
  ctx: StripeContext,
  type: string,
  kind: string,
): Promise<JsonObject> {
  const r = await ctx.twin.get(type, ctx.params.id!);
  if (r === undefined || r.deleted) throw missing(kind, ctx.params.id!);
  return apiObject(r.fields);
}

/** The input without `expand` and without parameters unset by `""` (null). */
export function definedOnly(input: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input))
    if (k !== 'expand' && v !== null && v !== undefined) out[k] = v;
  return out;
}
