// Products and prices: create, retrieve, list — the pack's catalog operations (product.created,
// price.created). Retrieve finds Checkout's inline prices and products too; the lists, as
// Stripe's, leave them out (they are records of their own types, in no list index: catalog.ts).
import {
  createPrice,
  createProduct,
  INLINE_PRICE,
  INLINE_PRODUCT,
  type CreatePriceInput,
  type CreateProductInput,
} from '../catalog.js';
import type { JsonObject, ReadView, Resource } from '../../../src/index.js';
import { StripeApiError } from './errors.js';
import { BY_LOOKUP_KEY, BY_PRODUCT } from './indexes.js';
import { CREATED_LIST_PARAMS, gatheredListOf, listOf, orderedList } from './listing.js';
import { apiObject, stripeRoute } from './route.js';
import { packInput, retrieve } from './reads.js';

export const catalogRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/products',
    sdk: 'products.create',
    kind: 'write',
    events: ['product.created'],
    params: { name: 'string', description: 'string', metadata: 'metadata' },
    required: ['name'],
    handle: async ({ twin, input }) =>
      apiObject(await createProduct(twin, packInput<CreateProductInput>(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/products/:id',
    sdk: 'products.retrieve',
    kind: 'read',
    notIds: ['search'],
    handle: (ctx) => retrieve(ctx, 'product', 'product', INLINE_PRODUCT),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/products',
    sdk: 'products.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, active: 'boolean' },
    handle: ({ twin, input, url }) =>
      listOf(
        twin,
        {
          ...orderedList('product', input),
          keep: () => (r) => input.active == null || r.fields.active === input.active,
        },
        input,
        url,
      ),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/prices',
    sdk: 'prices.create',
    kind: 'write',
    events: ['price.created'],
    params: {
      product: 'string',
      unit_amount: 'integer',
      currency: 'string',
      recurring: { interval: 'string', interval_count: 'integer', trial_period_days: 'integer' },
      nickname: 'string',
      lookup_key: 'string',
      metadata: 'metadata',
    },
    required: ['currency'],
    handle: async ({ twin, input }) =>
      apiObject(await createPrice(twin, packInput<CreatePriceInput>(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/prices/:id',
    sdk: 'prices.retrieve',
    kind: 'read',
    notIds: ['search'],
    handle: (ctx) => retrieve(ctx, 'price', 'price', INLINE_PRICE),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/prices',
    sdk: 'prices.list',
    kind: 'read',
    params: {
      ...CREATED_LIST_PARAMS,
      product: 'string',
      active: 'boolean',
      currency: 'string',
      type: 'string',
      lookup_keys: { list: 'string' },
      recurring: { interval: 'string', usage_type: 'string' },
    },
    handle: ({ twin, input, url }) => {
      const keep = priceFilter(input);
      const keys = lookupKeys(input);
      if (keys !== undefined && keys.length > 1)
        return gatheredListOf(twin, (view) => pricesUnder(view, keys).filter(keep), input, url);
      const by = { ...input, lookup_key: keys?.[0] ?? null };
      return listOf(
        twin,
        {
          ...orderedList('price', by, [
            ['lookup_key', BY_LOOKUP_KEY],
            ['product', BY_PRODUCT],
          ]),
          keep: () => keep,
        },
        input,
        url,
      );
    },
  }),
];

/** Stripe's refusal of a value outside a parameter's enum. */
function notOneOf(param: string, allowed: readonly string[]): StripeApiError {
  const listed =
    allowed.length === 2
      ? allowed.join(' or ')
      : `${allowed.slice(0, -1).join(', ')}, or ${allowed[allowed.length - 1]}`;
  return new StripeApiError(
    400,
    'invalid_request_error',
    'parameter_invalid',
    `Invalid ${param}: must be one of ${listed}`,
    {},
    param,
  );
}

function oneOf(value: unknown, param: string, allowed: readonly string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!allowed.includes(String(value))) throw notOneOf(param, allowed);
  return String(value);
}

/** `lookup_keys[]`, unset entries dropped and repeats once: at most 10, as Stripe takes. */
function lookupKeys(input: JsonObject): string[] | undefined {
  const given = input.lookup_keys as (string | null)[] | null | undefined;
  if (given == null) return undefined;
  const keys = [...new Set(given.filter((k): k is string => k !== null))];
  if (given.length > 10)
    throw new StripeApiError(
      400,
      'invalid_request_error',
      'parameter_invalid',
      'Array lookup_keys exceeded maximum 10 allowed elements.',
      {},
      'lookup_keys',
    );
  return keys.length === 0 ? undefined : keys;
}

/**
 * prices.list's filters, every one a price must pass (the one an index serves too): `product`,
 * `active`, `currency`, `type`, `lookup_keys`, `recurring[interval]`, `recurring[usage_type]`.
 */
function priceFilter(input: JsonObject): (r: Resource) => boolean {
  const type = oneOf(input.type, 'type', ['one_time', 'recurring']);
  const recurring = (input.recurring ?? {}) as JsonObject;
  const interval = oneOf(recurring.interval, 'recurring[interval]', [
    'day',
    'month',
    'week',
    'year',
  ]);
  const usage = oneOf(recurring.usage_type, 'recurring[usage_type]', ['licensed', 'metered']);
  const keys = lookupKeys(input);
  const currency = typeof input.currency === 'string' ? input.currency.toLowerCase() : undefined;
  return (r) => {
    const f = r.fields;
    const every = (f.recurring ?? null) as JsonObject | null;
    return (
      (input.product == null || f.product === input.product) &&
      (input.active == null || f.active === input.active) &&
      (currency === undefined || f.currency === currency) &&
      (type === undefined || f.type === type) &&
      (keys === undefined || keys.includes(String(f.lookup_key))) &&
      (interval === undefined || every?.interval === interval) &&
      (usage === undefined || every?.usage_type === usage)
    );
  };
}

/**
 * The prices under several lookup keys, newest first: each key's own rows (Stripe holds one price
 * per key; the twin does not enforce that, so at most 1000 a key are read) merged by `created`,
 * then by the entry that made them, as the ordered index breaks ties (prices are never rewritten).
 */
function pricesUnder(view: ReadView, keys: readonly string[]): Resource[] {
  return keys
    .flatMap((key) => view.range!('price', BY_LOOKUP_KEY, { key, limit: 1000, descending: true }))
    .sort((a, b) => Number(b.fields.created) - Number(a.fields.created) || b.version - a.version);
}
