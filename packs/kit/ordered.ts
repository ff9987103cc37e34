// Key order for rendered objects. Resources come back from the log with sorted keys (canonical
// JSON); vendors put some keys first (Stripe: id, object, then alphabetical), and a user who
// knows the vendor should recognise the packet at a glance.
import type { JsonObject, JsonValue } from '../../src/index.js';

/** `keys` first, in that order (those present), then every other key in its current order. */
export function ordered(
  object: Readonly<JsonObject>,
  keys: readonly string[],
  omit: readonly string[] = [],
): JsonObject {
  const out: JsonObject = {};
  for (const key of keys)
    if (key in object && !omit.includes(key)) out[key] = object[key] as JsonValue;
  for (const [key, value] of Object.entries(object))
    if (!(key in out) && !omit.includes(key)) out[key] = value;
  return out;
}
