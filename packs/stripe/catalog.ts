// The catalog: products (prod_…) and their prices (price_…), one-time or recurring. Creating each
// sends product.created / price.created; subscriptions and Checkout read them back from the log.
import { commit, skip, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import { asJson, liveFields, unixNow } from './common.js';
import { noSuch, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput, type Metadata } from './metadata.js';
import { checkCurrency } from './currencies.js';
import { recordKind } from '../../src/index.js';

interface ProductSpec {
  name: string;
  description: string | null;
  metadata: Metadata;
  /** Only products made inline (`product_data`) are given these. */
  images?: string[];
  unit_label?: string | null;
  tax_code?: string | null;
}

function productObject(twin: Twin, id: string, input: ProductSpec) {
  const created = unixNow(twin);
  return {
    id,
    object: 'product' as const,
    active: true,
    created,
    default_price: null,
    description: input.description,
    images: input.images ?? ([] as string[]),
    livemode: false as const,
    marketing_features: [],
    metadata: input.metadata,
    name: input.name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: input.tax_code ?? null,
    tax_details: null,
    type: 'service' as const,
    unit_label: input.unit_label ?? null,
    updated: created,
    url: null,
  };
}

export type StripeProduct = ReturnType<typeof productObject>;

/** The product records of the twin, typed (src/state/record-kind.ts). */
export const productKind = recordKind<StripeProduct>({ type: 'product' });

export type Interval = 'day' | 'week' | 'month' | 'year';

interface PriceSpec {
  product: string;
  unit_amount: number;
  currency: string;
  recurring: {
    interval: Interval;
    interval_count: number;
    trial_period_days: number | null;
  } | null;
  nickname: string | null;
  lookup_key: string | null;
  metadata: Metadata;
  /** Only prices made inline (`price_data`) are given one. */
  tax_behavior?: 'exclusive' | 'inclusive' | 'unspecified';
}

function priceObject(twin: Twin, id: string, spec: PriceSpec) {
  return {
    id,
    object: 'price' as const,
    active: true,
    billing_scheme: 'per_unit' as const,
    created: unixNow(twin),
    currency: spec.currency,
    custom_unit_amount: null,
    livemode: false as const,
    lookup_key: spec.lookup_key,
    metadata: spec.metadata,
    nickname: spec.nickname,
    product: spec.product,
    recurring:
      spec.recurring === null
        ? null
        : {
            interval: spec.recurring.interval,
            interval_count: spec.recurring.interval_count,
            meter: null,
            trial_period_days: spec.recurring.trial_period_days,
            usage_type: 'licensed' as const,
          },
    tax_behavior: spec.tax_behavior ?? ('unspecified' as 'exclusive' | 'inclusive' | 'unspecified'),
    tiers_mode: null,
    transform_quantity: null,
    type: spec.recurring === null ? ('one_time' as const) : ('recurring' as const),
    unit_amount: spec.unit_amount,
    // Stripe sends decimals as strings on the wire; the SDK turns them into Decimal only for API responses.
    unit_amount_decimal: String(spec.unit_amount),
  };
}

export type StripePrice = ReturnType<typeof priceObject>;

/** The price records of the twin, typed (src/state/record-kind.ts). */
export const priceKind = recordKind<StripePrice>({ type: 'price' });

/**
 * Inline prices and products: what Checkout's `line_items[].price_data` (and its `product_data`)
 * makes. Stripe makes real Price and Product objects for them, archived (`active: false`), that
 * `prices.list` leaves out ("excluding inline prices") and that no other call may reuse; so the
 * twin keeps them as records of their own types, which no list index holds, and the reads by id
 * (retrieve, expand, a line item's price, the subscription the session starts, its invoices) find
 * them through `anyPrice`/`anyProduct`. Their objects are a price's and a product's own.
 */
export const INLINE_PRICE = 'inline_price';
export const INLINE_PRODUCT = 'inline_product';
export const inlinePriceKind = recordKind<StripePrice>({ type: INLINE_PRICE });
const inlineProductKind = recordKind<StripeProduct>({ type: INLINE_PRODUCT });

/** An archived price made for one Checkout line (`price_data`). */
export function inlinePriceObject(twin: Twin, id: string, spec: PriceSpec): StripePrice {
  return { ...priceObject(twin, id, spec), active: false };
}

/** An archived product made for one Checkout line (`price_data[product_data]`). */
export function inlineProductObject(twin: Twin, id: string, spec: ProductSpec): StripeProduct {
  return { ...productObject(twin, id, spec), active: false };
}

/** A price by id, catalog or inline: the reads by id see both, as Stripe retrieves both. */
export function anyPrice(view: ReadView, id: string): StripePrice | undefined {
  return priceKind.read(view, id) ?? inlinePriceKind.read(view, id);
}

/** A product by id, catalog or inline. */
export function anyProduct(view: ReadView, id: string): StripeProduct | undefined {
  return productKind.read(view, id) ?? inlineProductKind.read(view, id);
}

/** A product by id, catalog or inline, or Stripe's "No such product" naming `path`. */
export function liveProduct(view: ReadView, id: string, path: string): StripeProduct {
  const product = anyProduct(view, id);
  if (product === undefined) throw noSuch('product', id, path);
  return product;
}

/** The legacy Plan view of a recurring price, as subscription items still carry it. */
export function planOf(price: StripePrice) {
  const recurring = price.recurring!;
  return {
    id: price.id,
    object: 'plan' as const,
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: price.billing_scheme,
    created: price.created,
    currency: price.currency,
    interval: recurring.interval,
    interval_count: recurring.interval_count,
    livemode: false as const,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: recurring.trial_period_days,
    usage_type: recurring.usage_type,
  };
}

const check = checker('stripe');
const PRODUCT_KEYS = ['name', 'description', 'metadata'] as const;
const PRICE_KEYS = [
  'product',
  'unit_amount',
  'currency',
  'recurring',
  'nickname',
  'lookup_key',
  'metadata',
] as const;
const INTERVALS: readonly Interval[] = ['day', 'week', 'month', 'year'];

export interface CreateProductInput {
  name: string;
  description?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
}

export async function createProduct(
  twin: Twin,
  input: CreateProductInput,
  options: RequestOptions = {},
): Promise<StripeProduct> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(PRODUCT_KEYS as readonly string[]).includes(key))
      throw unknownParameter(key, PRODUCT_KEYS);
  const name = check.string(input?.name, 'name');
  const description = check.optionalString(input.description, 'description');
  const metadata = mergeMetadata({}, metadataInput(input.metadata));
  const call: RequestCall = {
    method: 'POST',
    path: '/v1/products',
    params: { name, description, metadata },
  };
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(liveFields(view, productKind, prior.id));
    const product = productObject(twin, stripeIds.product(twin.world.ids), {
      name,
      description,
      metadata,
    });
    return commit(
      {
        operation: 'product.create',
        subjectType: 'product',
        subjectId: product.id,
        fields: asJson(product),
        projection: {
          creates: [requestProjection(twin, call, options, { type: 'product', id: product.id })],
        },
      },
      product,
    );
  });
  return done.result;
}

export interface CreatePriceInput {
  product: string;
  unit_amount: number;
  currency: string;
  recurring?: { interval: Interval; interval_count?: number; trial_period_days?: number };
  nickname?: string;
  lookup_key?: string;
  /** Merged key by key ("" unsets a key); null unsets every key. */
  metadata?: Record<string, string> | null;
}

/**
 * A `recurring` hash: `prices.create` takes trial_period_days too, a Checkout line's
 * `price_data[recurring]` only interval and interval_count. `at` names it in refusals.
 */
export function recurring(
  value: unknown,
  at = 'recurring',
  keys: readonly string[] = ['interval', 'interval_count', 'trial_period_days'],
): PriceSpec['recurring'] {
  if (value === undefined || value === null) return null;
  const r = check.object(value, at);
  for (const key of Object.keys(r))
    if (!keys.includes(key)) throw unknownParameter(`${at}.${key}`, keys);
  const interval = check.string(r.interval, `${at}.interval`) as Interval;
  if (!INTERVALS.includes(interval))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `${at}.interval must be one of: ${INTERVALS.join(', ')}`,
      { path: `${at}.interval` },
    );
  const count =
    r.interval_count === undefined ? 1 : check.integer(r.interval_count, `${at}.interval_count`, 1);
  // Stripe's limit: at most one year between billings.
  const perYear = { day: 365, week: 52, month: 12, year: 1 }[interval];
  if (count > perYear)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `${at}.interval_count: the maximum billing period is one year (${perYear} ${interval}s)`,
      { path: `${at}.interval_count` },
    );
  const trial =
    r.trial_period_days === undefined
      ? null
      : check.integer(r.trial_period_days, `${at}.trial_period_days`, 1);
  return { interval, interval_count: count, trial_period_days: trial };
}

export async function createPrice(
  twin: Twin,
  input: CreatePriceInput,
  options: RequestOptions = {},
): Promise<StripePrice> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!(PRICE_KEYS as readonly string[]).includes(key)) throw unknownParameter(key, PRICE_KEYS);
  const spec: PriceSpec = {
    product: check.string(input?.product, 'product'),
    unit_amount: check.integer(input.unit_amount, 'unit_amount', 0),
    currency: checkCurrency(input.currency),
    recurring: recurring(input.recurring),
    nickname: check.optionalString(input.nickname, 'nickname'),
    lookup_key: check.optionalString(input.lookup_key, 'lookup_key'),
    metadata: mergeMetadata({}, metadataInput(input.metadata)),
  };
  const call: RequestCall = {
    method: 'POST',
    path: '/v1/prices',
    params: asJson(spec) as JsonObject,
  };
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(liveFields(view, priceKind, prior.id));
    const product = liveFields(view, productKind, spec.product, 'product');
    if (!product.active)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'product_inactive',
        `The product ${spec.product} is archived; prices can only be created for active products`,
        { path: 'product' },
      );
    const price = priceObject(twin, stripeIds.price(twin.world.ids), spec);
    return commit(
      {
        operation: 'price.create',
        subjectType: 'price',
        subjectId: price.id,
        fields: asJson(price),
        projection: {
          creates: [requestProjection(twin, call, options, { type: 'price', id: price.id })],
        },
      },
      price,
    );
  });
  return done.result;
}
