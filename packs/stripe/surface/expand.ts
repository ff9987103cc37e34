// `expand[]`: each dotted path names fields holding an id (`latest_charge`, `data.customer` in a
// list) that the answer carries as the whole object instead, read from the account's twin. Every
// level of a path is expanded (`latest_invoice.confirmation_secret` expands the invoice, then
// includes its secret, includable.ts); a path through a list's `data` expands every item. As
// Stripe: at most four levels (`data` counts), and a path naming something that cannot be
// expanded is refused, naming the path up to that field, never ignored.
import type { JsonObject, JsonValue, ReadView, Twin } from '../../../src/index.js';
import type { RouteAnswer } from '../../../src/host/index.js';
import { StripeApiError } from './errors.js';
import { included } from './includable.js';
import { INLINE_PRICE, INLINE_PRODUCT } from '../catalog.js';

const MAX_LEVELS = 4;

const BY_PREFIX: readonly (readonly [string, string])[] = [
  ['cus_', 'customer'],
  ['pi_', 'payment_intent'],
  ['ch_', 'charge'],
  ['pm_', 'payment_method'],
  ['in_', 'invoice'],
  ['sub_', 'subscription'],
  ['price_', 'price'],
  ['prod_', 'product'],
  ['re_', 'refund'],
  ['cs_test_', 'checkout_session'],
  ['seti_', 'setup_intent'],
  ['du_', 'dispute'],
];

/**
 * Hashes inside an object (no `object` of their own) that hold expandable ids, so a path may go
 * through them (`invoice_settings.default_payment_method`, an invoice payment's
 * `payment.payment_intent`). Any other hash (`metadata`, `address`) cannot be expanded.
 */
const THROUGH = new Set([
  'invoice_settings',
  'parent',
  'subscription_details',
  'payment',
  'pricing',
  'price_details',
]);

/** Where the same ids live under a second type: Checkout's inline prices and products (catalog.ts). */
const INLINE: Readonly<Record<string, string>> = {
  price: INLINE_PRICE,
  product: INLINE_PRODUCT,
};

function typeOf(id: string): string | undefined {
  return BY_PREFIX.find(([prefix]) => id.startsWith(prefix))?.[1];
}

interface Walk {
  readonly view: ReadView;
  readonly levels: readonly string[];
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Stripe's refusal, naming the path as far as the level it could not expand. */
function cannotExpand(walk: Walk, at: number, hint?: string): StripeApiError {
  const named = walk.levels.slice(0, at + 1).join('.');
  return new StripeApiError(
    400,
    'invalid_request_error',
    'parameter_invalid',
    `This property cannot be expanded (${named}).` +
      (hint === undefined ? '' : ` You may want to try expanding '${hint}' instead.`),
    {},
    'expand',
  );
}

/** A field's value with its id(s) replaced by the object(s); what cannot be expanded is refused. */
function expandValue(walk: Walk, value: JsonValue, at: number): JsonValue {
  if (value === null) return null; // nothing to expand, as Stripe
  if (Array.isArray(value)) return value.map((v) => expandValue(walk, v, at));
  if (typeof value === 'string') {
    const type = typeOf(value);
    if (type === undefined) throw cannotExpand(walk, at); // `email`, `status`: not a reference
    const found =
      walk.view.get(type, value) ??
      (Object.hasOwn(INLINE, type) ? walk.view.get(INLINE[type]!, value) : undefined);
    if (found === undefined || found.deleted) return value;
    const expanded: Record<string, JsonValue> = { ...found.fields };
    delete expanded.secret_ref;
    return expanded;
  }
  // An object already (expanded by an earlier path, or a list such as a subscription's `items`).
  if (isObject(value) && (typeof value.object === 'string' || THROUGH.has(walk.levels[at]!)))
    return value;
  throw cannotExpand(walk, at);
}

/** Goes on below a level: into an object, each item of an array; an id left as is stops there. */
function descend(walk: Walk, value: JsonValue, at: number): JsonValue {
  if (Array.isArray(value)) return value.map((v) => descend(walk, v, at));
  return isObject(value) ? expandAt(walk, value, at) : value;
}

function expandAt(walk: Walk, obj: JsonObject, at: number): JsonObject {
  const head = walk.levels[at]!;
  const last = at === walk.levels.length - 1;
  if (obj.object === 'list' && Array.isArray(obj.data)) {
    if (head !== 'data') throw cannotExpand(walk, at, at === 0 ? `data.${head}` : undefined);
    return last ? obj : { ...obj, data: obj.data.map((item) => descend(walk, item, at + 1)) };
  }
  // Own properties only: a level is the caller's text (`constructor`, `__proto__`).
  const own = Object.hasOwn(obj, head) ? obj[head] : undefined;
  const extra = own === undefined ? included(walk.view, obj, head) : undefined;
  if (own === undefined && extra === undefined) throw cannotExpand(walk, at);
  const value = own === undefined ? extra! : expandValue(walk, own, at);
  return { ...obj, [head]: last ? value : descend(walk, value, at + 1) };
}

function expandPath(view: ReadView, body: JsonValue, path: string): JsonValue {
  const levels = path.split('.');
  if (levels.length > MAX_LEVELS)
    throw new StripeApiError(
      400,
      'invalid_request_error',
      'property_expansion_max_depth',
      `You cannot expand more than ${MAX_LEVELS} levels of a property. Property: ${path}`,
    );
  const walk = { view, levels };
  if (levels.includes('')) throw cannotExpand(walk, levels.length - 1);
  return isObject(body) ? expandAt(walk, body, 0) : body;
}

export async function expandAnswer(
  twin: Twin,
  answered: JsonValue,
  paths: readonly string[],
): Promise<RouteAnswer> {
  const wrapped =
    answered !== null &&
    typeof answered === 'object' &&
    (answered as { answer?: unknown }).answer === true;
  const body = wrapped ? (answered as { body: JsonValue }).body : answered;
  const out = await twin.read((view) =>
    paths.reduce<JsonValue>((v, p) => expandPath(view, v, p), body),
  );
  return wrapped ? ({ ...(answered as object), body: out } as RouteAnswer) : out;
}
