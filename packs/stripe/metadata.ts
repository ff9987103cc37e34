// Stripe metadata: string values, merged key by key on update; an empty string removes a key, and
// `metadata=""` (null here, as the codec types every "") removes every key.
// Stripe's limits hold on every object that takes it: at most 50 keys, keys of at most 40
// characters, values of at most 500, each refused in Stripe's words with param `metadata`.
import type { JsonObject } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';

export type Metadata = Record<string, string>;

const METADATA_MAX_KEYS = 50;
const METADATA_MAX_KEY_LENGTH = 40;
const METADATA_MAX_VALUE_LENGTH = 500;

/** Stripe answers these with no `code`: the vendor code equal to the type leaves it out. */
function invalid(message: string): VendorError {
  return new VendorError('stripe', 'invalid_input', 'invalid_request_error', message, {
    path: 'metadata',
  });
}

const check = checker('stripe');

/**
 * A metadata parameter as a call gives it: keys to set (or unset with ""), null to unset every key
 * (Stripe: "All keys can be unset by posting an empty value to metadata"), or undefined for none.
 */
export function metadataInput(value: unknown): JsonObject | null | undefined {
  if (value === undefined || value === null) return value;
  return check.object(value, 'metadata');
}

/** `current` with `patch` applied; a null patch unsets every key. */
export function mergeMetadata(
  current: Readonly<Metadata>,
  patch: JsonObject | null | undefined,
): Metadata {
  const out: Metadata = patch === null ? {} : { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (typeof value !== 'string') {
      throw new VendorError(
        'stripe',
        'invalid_input',
        'parameter_invalid',
        `metadata.${key} must be a string (Stripe metadata values are strings)`,
        { path: `metadata.${key}` },
      );
    }
    if (key.length > METADATA_MAX_KEY_LENGTH)
      throw invalid(
        `Invalid key: ${key} must be a string under ${METADATA_MAX_KEY_LENGTH} characters`,
      );
    if (value.length > METADATA_MAX_VALUE_LENGTH)
      throw invalid(
        `Invalid val: ${value} must be a string under ${METADATA_MAX_VALUE_LENGTH} characters`,
      );
    if (value === '') delete out[key];
    else out[key] = value;
  }
  // Counted after the merge: a key removed in the same call frees its place.
  const keys = Object.keys(out).length;
  if (keys > METADATA_MAX_KEYS)
    throw invalid(
      `Metadata can have up to ${METADATA_MAX_KEYS} keys, but you've set ${keys}. Email us at support+metadata@stripe.com for more information.`,
    );
  return out;
}
