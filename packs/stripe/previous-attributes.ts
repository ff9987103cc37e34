// data.previous_attributes of a *.updated event: the old value of every field the write
// changed; for hashes such as metadata only the keys that changed (null where a key was added).
import { canonicalJson, type JsonObject, type JsonValue } from '../../src/index.js';

function isHash(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function previousAttributes(
  before: Readonly<JsonObject> | undefined,
  changes: Readonly<JsonObject> | undefined,
): JsonObject | undefined {
  if (before === undefined || changes === undefined) return undefined;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(changes)) {
    const old = before[key];
    if (canonicalJson(old ?? null) === canonicalJson(value)) continue;
    if (isHash(old) && isHash(value)) {
      const sub: JsonObject = {};
      for (const k of new Set([...Object.keys(old), ...Object.keys(value)])) {
        if (canonicalJson(old[k] ?? null) !== canonicalJson(value[k] ?? null))
          sub[k] = (old[k] ?? null) as JsonValue;
      }
      out[key] = sub;
    } else {
      out[key] = (old ?? null) as JsonValue;
    }
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
