// Small shared pieces of the Stripe routes: retrieving one live object (or Stripe's 404), and
// dropping unset parameters before a pack operation sees its input (typed as that input).
import type { JsonObject } from '../../../src/index.js';
import { StripeApiError } from './errors.js';
import { apiObject, type StripeContext } from './route.js';

/** Stripe's resource_missing: 404 for the URL's object (`id`), 400 for a parameter's (errors.ts). */
export function missing(kind: string, id: string, param = 'id'): StripeApiError {
  return new StripeApiError(
    404,
    'invalid_request_error',
    'resource_missing',
    `No such ${kind}: '${id}'`,
    {},
    param,
  );
}

export async function retrieve(
  ctx: StripeContext,
  type: string,
  kind: string,
  /** A second type the same ids live under (an inline price beside the catalog's, catalog.ts). */
  also?: string,
): Promise<JsonObject> {
  const r =
    (await ctx.twin.get(type, ctx.params.id!)) ??
    (also === undefined ? undefined : await ctx.twin.get(also, ctx.params.id!));
  if (r === undefined || r.deleted) throw missing(kind, ctx.params.id!);
  return apiObject(r.fields);
}

/**
 * The input without `expand` and without parameters unset by `""` (null) — but for `metadata`,
 * whose null is an instruction: unset every key.
 */
export function definedOnly(input: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input))
    if (k !== 'expand' && v !== undefined && (v !== null || k === 'metadata')) out[k] = v;
  return out;
}

/**
 * The decoded parameters (unset ones dropped) as a pack operation's input: the surface's one cast
 * from decoded JSON to an input type. Sound because every pack operation checks each field it is
 * given — type, range, unknown keys — before it writes, so its input type says what it accepts,
 * not what it trusts; `keep` narrows to the operation's own keys when the route takes more.
 */
export function packInput<T extends object>(input: JsonObject, keep?: readonly string[]): T {
  const out = definedOnly(input);
  if (keep !== undefined) for (const k of Object.keys(out)) if (!keep.includes(k)) delete out[k];
  return out as unknown as T;
}
