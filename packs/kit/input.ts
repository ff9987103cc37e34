// Input checks shared by every pack's operations: refuse a bad argument before anything is
// written, naming the field, and never echo a secret back.
import type { JsonObject } from '../../src/index.js';
import { VendorError } from './errors.js';

export interface Checker {
  string(value: unknown, path: string): string;
  optionalString(value: unknown, path: string): string | null;
  integer(value: unknown, path: string, min?: number): number;
  boolean(value: unknown, path: string): boolean;
  stringArray(value: unknown, path: string): string[];
  object(value: unknown, path: string): JsonObject;
  url(value: unknown, path: string): string;
  secret(value: unknown, path: string): string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** Checks bound to one vendor name, so every refusal reads "stripe: email must be …". */
export function checker(vendor: string): Checker {
  const bad = (path: string, message: string): never => {
    throw new VendorError(vendor, 'invalid_input', 'parameter_invalid', message, { path });
  };
  const self: Checker = {
    string(value, path) {
      if (typeof value !== 'string' || value.trim() === '')
        bad(path, `${path} must be a non-empty string`);
      return value as string;
    },
    optionalString(value, path) {
      if (value === undefined || value === null) return null;
      if (typeof value !== 'string') bad(path, `${path} must be a string when given`);
      return value as string;
    },
    integer(value, path, min = 0) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
        bad(path, `${path} must be an integer ≥ ${min}`);
      return value as number;
    },
    boolean(value, path) {
      if (typeof value !== 'boolean') bad(path, `${path} must be true or false`);
      return value as boolean;
    },
    stringArray(value, path) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === ''))
        bad(path, `${path} must be an array of non-empty strings`);
      return [...(value as string[])];
    },
    object(value, path) {
      if (!isPlainObject(value)) bad(path, `${path} must be a plain JSON object`);
      try {
        return JSON.parse(JSON.stringify(value)) as JsonObject;
      } catch {
        return bad(path, `${path} must be JSON`);
      }
    },
    url(value, path) {
      const text = self.string(value, path);
      let parsed: URL | undefined;
      try {
        parsed = new URL(text);
      } catch {
        parsed = undefined;
      }
      if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
        bad(path, `${path} must be an http(s) URL, e.g. http://127.0.0.1:3000/webhooks`);
      return text;
    },
    secret(value, path) {
      // The value is never quoted: a refusal must not leak what it refused.
      if (typeof value !== 'string' || value.trim() === '' || value !== value.trim())
        bad(
          path,
          `${path} must be a non-empty string without surrounding whitespace (the value is not shown)`,
        );
      return value as string;
    },
  };
  return self;
}

/** Data from `--data`: merged over a scenario's defaults. */
export function withData<T extends JsonObject>(defaults: T, data: JsonObject | undefined): T {
  return { ...defaults, ...(data ?? {}) } as T;
}

/**
 * Defaults overlaid with a trigger's --data, typed as the input of the operation it is passed to.
 * The one cast for such input: every operation checks its input at run time (`checker`), so a
 * wrong shape is refused there with the operation's own error, never trusted.
 */
export function inputFor<T>(defaults: JsonObject, data: JsonObject | undefined): T {
  return withData(defaults, data) as unknown as T;
}
