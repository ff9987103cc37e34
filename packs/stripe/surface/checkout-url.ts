// Checkout's hosted page on the twin's own origin: the pack keeps Stripe's page address in the log
// (so the log does not depend on the port a host happened to listen on), and every answer carries
// the page on the origin that answered instead — an app redirecting its user to `session.url`
// never leaves the twin. The page is `/v1/_twinworld/checkout/pay/<id>` (checkout.ts serves it).
import type { JsonValue } from '../../../src/index.js';

export const CHECKOUT_PAGE = '/v1/_twinworld/checkout/pay/';

/** The page of session `id` on `origin`. */
function checkoutPage(origin: string, id: string): string {
  return `${origin}${CHECKOUT_PAGE}${id}`;
}

/** `value` with every open Checkout Session's `url` on `origin` (objects nested in lists and expansions too). */
export function checkoutUrlsOn(value: JsonValue, origin: string): JsonValue {
  if (Array.isArray(value)) return value.map((v) => checkoutUrlsOn(v, origin));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) out[k] = checkoutUrlsOn(v, origin);
  if (
    out.object === 'checkout.session' &&
    typeof out.url === 'string' &&
    typeof out.id === 'string'
  )
    out.url = checkoutPage(origin, out.id);
  return out;
}
