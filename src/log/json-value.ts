// JSON values as the log accepts them: checked once at the door so that nothing that
// cannot round-trip through JSON (undefined, NaN, functions, cycles, BigInt) ever enters history.
import { TwinError } from '../errors.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `BigInt ${String(value)}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  return Object.prototype.toString.call(value);
}

function fail(path: string, value: unknown, fix: string): never {
  throw new TwinError('INVALID_WRITE', `${path} is ${describe(value)}, which is not JSON; ${fix}`, { path });
}

/**
 * Throws INVALID_WRITE naming the first offending path. Only plain objects and arrays are
 * accepted as containers: a Date or Map would silently change shape when serialized.
 */
export function assertJson(value: unknown, path: string, seen: Set<object> = new Set()): asserts value is JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) fail(path, value, 'store a finite number, or null, or a string such as "Infinity"');
      return;
    case 'undefined':
      fail(path, value, 'omit the key or use null');
    case 'bigint':
      fail(path, value, 'convert it to a string (or a number if it fits in 2^53)');
    case 'function':
    case 'symbol':
      fail(path, value, 'store data, not code');
    case 'object': {
      if (value === null) return;
      if (seen.has(value)) {
        throw new TwinError('INVALID_WRITE', `${path} refers back to one of its own ancestors (a cycle); JSON cannot hold cycles, store an id instead`, { path });
      }
      if (Array.isArray(value)) {
        seen.add(value);
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) fail(`${path}[${i}]`, undefined, 'fill the hole with null');
          assertJson(value[i], `${path}[${i}]`, seen);
        }
        seen.delete(value);
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        fail(path, value, 'convert it to a plain object, string or number first (e.g. a Date to an ISO string)');
      }
      seen.add(value);
      for (const key of Object.keys(value)) {
        assertJson((value as Record<string, unknown>)[key], `${path}.${key}`, seen);
      }
      seen.delete(value);
      return;
    }
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
