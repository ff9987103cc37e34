// Stripe metadata: string values, merged key by key on update; an empty string removes a key.
import type { JsonObject } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';

export type Metadata = Record<string, string>;

export function mergeMetadata(
  current: Readonly<Metadata>,
  patch: JsonObject | undefined,
): Metadata {
  const out: Metadata = { ...current };
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
    if (value === '') delete out[key];
    else out[key] = value;
  }
  return out;
}
