// `expand[]`: each path names a field holding an id (`latest_charge`, `data.customer` in a list)
// that the answer carries as the whole object instead, read from the account's twin. A path
// through a list's `data` expands every item.
import type { JsonObject, JsonValue, ReadView, Twin } from '../../../src/index.js';
import type { RouteAnswer } from '../../../src/host/index.js';
import { StripeApiError } from './errors.js';

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
];

function typeOf(id: string): string | undefined {
  return BY_PREFIX.find(([prefix]) => id.startsWith(prefix))?.[1];
}

function expandAt(
  view: ReadView,
  value: JsonValue,
  path: readonly string[],
  full: string,
): JsonValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const [head, ...rest] = path;
  const obj = value as JsonObject;
  if (head === undefined) return value;
  if (head === 'data' && Array.isArray(obj.data) && rest.length > 0)
    return { ...obj, data: obj.data.map((item) => expandAt(view, item, rest, full)) };
  if (!(head in obj))
    throw new StripeApiError(
      400,
      'invalid_request_error',
      'parameter_invalid',
      `This property cannot be expanded (${full}).`,
      {},
      'expand',
    );
  const field = obj[head]!;
  if (rest.length > 0) return { ...obj, [head]: expandAt(view, field, rest, full) };
  if (typeof field !== 'string') return value; // null, or expanded already
  const type = typeOf(field);
  const found = type === undefined ? undefined : view.get(type, field);
  if (found === undefined || found.deleted) return value;
  const expanded: Record<string, JsonValue> = { ...found.fields };
  delete expanded.secret_ref;
  return { ...obj, [head]: expanded };
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
    paths.reduce<JsonValue>((v, p) => expandAt(view, v, p.split('.'), p), body),
  );
  return wrapped ? ({ ...(answered as object), body: out } as RouteAnswer) : out;
}
