// A Checkout line item names its price one of two ways: `price`, a catalog price's id, or
// `price_data`, the price itself — currency, unit_amount (or unit_amount_decimal), an existing
// `product` or a new one from `product_data`, `recurring` for subscription mode, tax_behavior.
// For `price_data` Stripe makes an inline price (and, from `product_data`, an inline product):
// archived, left out of `prices.list`, usable only by the session that made it (catalog.ts,
// INLINE_PRICE). Here: reading a line's parameters, and making its inline objects at create.
import type { JsonObject, ProjectedResource, ReadView, Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import {
  INLINE_PRICE,
  INLINE_PRODUCT,
  inlinePriceObject,
  inlineProductObject,
  priceKind,
  productKind,
  recurring,
  type Interval,
} from './catalog.js';
import { asJson, liveFields } from './common.js';
import { checkCurrency } from './currencies.js';
import { missingParameter, stripeParam, unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, metadataInput, type Metadata } from './metadata.js';

const check = checker('stripe');

type TaxBehavior = 'exclusive' | 'inclusive' | 'unspecified';

/** A line's `price_data`, checked. */
interface PriceData {
  currency: string;
  unit_amount: number;
  product: string | null;
  product_data: {
    name: string;
    description: string | null;
    metadata: Metadata;
    images: string[];
    unit_label: string | null;
    tax_code: string | null;
  } | null;
  recurring: { interval: Interval; interval_count: number } | null;
  tax_behavior: TaxBehavior;
}

/** A line item as `checkout.sessions.create` takes it: a price by id, or inline. */
type CheckoutLineInput =
  { price: string; quantity: number } | { price_data: PriceData; quantity: number };

const LINE_KEYS = ['price', 'price_data', 'quantity'] as const;
const DATA_KEYS = [
  'currency',
  'unit_amount',
  'unit_amount_decimal',
  'product',
  'product_data',
  'recurring',
  'tax_behavior',
] as const;
const PRODUCT_DATA_KEYS = [
  'name',
  'description',
  'metadata',
  'images',
  'unit_label',
  'tax_code',
] as const;
const TAX_BEHAVIORS: readonly TaxBehavior[] = ['exclusive', 'inclusive', 'unspecified'];

/** Stripe's refusal of two parameters that exclude each other (no code, no param of its own). */
function onlyOneOf(a: string, b: string): VendorError {
  return new VendorError(
    'stripe',
    'invalid_input',
    'invalid_request_error',
    `You may only specify one of these parameters: ${a}, ${b}.`,
  );
}

const given = (value: unknown): boolean => value !== undefined && value !== null;

/** unit_amount, or unit_amount_decimal in whole cents (the twin bills whole cents only). */
function unitAmount(data: JsonObject, at: string): number {
  if (given(data.unit_amount) && given(data.unit_amount_decimal))
    throw onlyOneOf('unit_amount', 'unit_amount_decimal');
  if (given(data.unit_amount)) return check.integer(data.unit_amount, `${at}.unit_amount`, 0);
  if (!given(data.unit_amount_decimal)) throw missingParameter(`${at}.unit_amount`);
  const path = `${at}.unit_amount_decimal`;
  const text = data.unit_amount_decimal;
  const m = typeof text === 'string' ? /^(\d{1,15})(?:\.(\d{1,12}))?$/.exec(text) : null;
  if (m === null)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `Invalid decimal: ${stripeParam(path)} must be a non-negative decimal with at most 12 decimal places`,
      { path },
    );
  if (m[2] !== undefined && /[1-9]/.test(m[2]))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `${stripeParam(path)}: the twin bills whole cents; give a unit_amount_decimal without a fraction of a cent (or unit_amount)`,
      { path },
    );
  return Number(m[1]);
}

function productData(value: unknown, at: string): PriceData['product_data'] {
  const data = check.object(value, at);
  for (const key of Object.keys(data))
    if (!(PRODUCT_DATA_KEYS as readonly string[]).includes(key))
      throw unknownParameter(`${at}.${key}`, PRODUCT_DATA_KEYS);
  if (!given(data.name)) throw missingParameter(`${at}.name`);
  const images = given(data.images) ? check.stringArray(data.images, `${at}.images`) : [];
  if (images.length > 8)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `${stripeParam(`${at}.images`)}: a product takes at most 8 images`,
      { path: `${at}.images` },
    );
  return {
    name: check.string(data.name, `${at}.name`),
    description: check.optionalString(data.description, `${at}.description`),
    metadata: mergeMetadata({}, metadataInput(data.metadata)),
    images,
    unit_label: check.optionalString(data.unit_label, `${at}.unit_label`),
    tax_code: check.optionalString(data.tax_code, `${at}.tax_code`),
  };
}

function priceData(value: unknown, at: string): PriceData {
  const data = check.object(value, at);
  for (const key of Object.keys(data))
    if (!(DATA_KEYS as readonly string[]).includes(key))
      throw unknownParameter(`${at}.${key}`, DATA_KEYS);
  if (!given(data.currency)) throw missingParameter(`${at}.currency`);
  const currency = checkCurrency(data.currency, `${at}.currency`);
  const unit = unitAmount(data, at);
  if (given(data.product) && given(data.product_data)) throw onlyOneOf('product', 'product_data');
  if (!given(data.product) && !given(data.product_data))
    throw missingParameter(`${at}.product_data`);
  const every = recurring(data.recurring, `${at}.recurring`, ['interval', 'interval_count']);
  const tax = data.tax_behavior ?? 'unspecified';
  if (!TAX_BEHAVIORS.includes(tax as TaxBehavior))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `Invalid ${stripeParam(`${at}.tax_behavior`)}: must be one of exclusive, inclusive, or unspecified`,
      { path: `${at}.tax_behavior` },
    );
  return {
    currency,
    unit_amount: unit,
    product: given(data.product) ? check.string(data.product, `${at}.product`) : null,
    product_data: given(data.product_data)
      ? productData(data.product_data, `${at}.product_data`)
      : null,
    recurring:
      every === null ? null : { interval: every.interval, interval_count: every.interval_count },
    tax_behavior: tax as TaxBehavior,
  };
}

/** One `line_items[i]`: exactly one of price and price_data, and a quantity (default 1). */
export function checkoutLine(raw: unknown, i: number): CheckoutLineInput {
  const at = `line_items[${i}]`;
  const item = check.object(raw, at);
  for (const key of Object.keys(item))
    if (!(LINE_KEYS as readonly string[]).includes(key))
      throw unknownParameter(`${at}.${key}`, LINE_KEYS);
  const quantity =
    item.quantity === undefined || item.quantity === null
      ? 1
      : check.integer(item.quantity, `${at}.quantity`, 1);
  if (given(item.price) && given(item.price_data)) throw onlyOneOf('price', 'price_data');
  if (given(item.price)) return { price: check.string(item.price, `${at}.price`), quantity };
  if (!given(item.price_data))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'invalid_request_error',
      'You must provide either price or price_data for each line item when using prices.',
    );
  return { price_data: priceData(item.price_data, `${at}.price_data`), quantity };
}

/** The parameter a line's price is refused under: its `price`, or its `price_data`. */
export function linePricePath(line: CheckoutLineInput, i: number): string {
  return 'price' in line ? `line_items[${i}].price` : `line_items[${i}].price_data`;
}

/** A line's price as the create's checks need it, and how to make it once they pass. */
interface LinePrice {
  readonly currency: string;
  readonly recurring: boolean;
  readonly unitAmount: number;
  /** How the refusals name it: the catalog price's id, or the line's `price_data`. */
  readonly name: string;
  /** The price's id: the catalog price's, or an inline one made now (`creates` gets what is made). */
  make(creates: ProjectedResource[]): string;
}

/**
 * Inside the create's decide: the line's price — the catalog price it names (which must exist), or
 * the inline one its `price_data` describes (whose `product` must exist and be active). Nothing is
 * made, and no id drawn, until `make`: a refused session makes nothing.
 */
export function linePrice(
  twin: Twin,
  view: ReadView,
  line: CheckoutLineInput,
  i: number,
): LinePrice {
  if ('price' in line) {
    const price = liveFields(view, priceKind, line.price, `line_items[${i}].price`);
    return {
      currency: price.currency,
      recurring: price.recurring !== null,
      unitAmount: price.unit_amount,
      name: price.id,
      make: () => price.id,
    };
  }
  const data = line.price_data;
  const at = `line_items[${i}].price_data`;
  if (data.product !== null) {
    const existing = liveFields(view, productKind, data.product, `${at}.product`);
    if (!existing.active)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'product_inactive',
        `The product ${data.product} is archived; prices can only be created for active products`,
        { path: `${at}.product` },
      );
  }
  return {
    currency: data.currency,
    recurring: data.recurring !== null,
    unitAmount: data.unit_amount,
    name: stripeParam(at),
    make(creates) {
      let product = data.product;
      if (product === null) {
        const made = inlineProductObject(
          twin,
          stripeIds.product(twin.world.ids),
          data.product_data!,
        );
        creates.push({ type: INLINE_PRODUCT, id: made.id, fields: asJson(made) });
        product = made.id;
      }
      const price = inlinePriceObject(twin, stripeIds.price(twin.world.ids), {
        product,
        unit_amount: data.unit_amount,
        currency: data.currency,
        recurring: data.recurring === null ? null : { ...data.recurring, trial_period_days: null },
        nickname: null,
        lookup_key: null,
        metadata: {},
        tax_behavior: data.tax_behavior,
      });
      creates.push({ type: INLINE_PRICE, id: price.id, fields: asJson(price) });
      return price.id;
    },
  };
}
