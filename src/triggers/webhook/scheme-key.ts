// The key that names a webhook endpoint's signature scheme. Ours is `scheme`; the trigger guide
// writes `signatureScheme`. Both are accepted, for library endpoints and serve.json alike, and
// they name one setting: giving both with different values is refused rather than guessed.
import { TwinError } from '../../errors.js';
import { isSchemeName, SCHEME_NAMES, type SchemeName } from '../../events/signing/index.js';

export interface SchemeKeys {
  readonly scheme?: unknown;
  readonly signatureScheme?: unknown;
}

/**
 * The endpoint's scheme from `scheme` or `signatureScheme`; `fallback` when neither is given
 * (serve.json defaults to the provider's own name). INVALID_CONFIG naming the key otherwise.
 */
export function endpointScheme(endpoint: SchemeKeys, path: string, fallback?: string): SchemeName {
  const { scheme, signatureScheme } = endpoint;
  if (scheme !== undefined && signatureScheme !== undefined && scheme !== signatureScheme) {
    throw new TwinError(
      'INVALID_CONFIG',
      `${path} gives scheme ${JSON.stringify(scheme)} and signatureScheme ${JSON.stringify(signatureScheme)}; they name the same setting, give one`,
      { path: `${path}.signatureScheme` },
    );
  }
  const key =
    scheme !== undefined ? 'scheme' : signatureScheme !== undefined ? 'signatureScheme' : 'scheme';
  const value = scheme ?? signatureScheme ?? fallback;
  if (!isSchemeName(value)) {
    const what =
      value === undefined
        ? 'is missing'
        : `${JSON.stringify(value)} is not one of ${SCHEME_NAMES.join(', ')}`;
    throw new TwinError(
      'INVALID_CONFIG',
      `${path}.${key} ${what}; name the scheme the sender signs with (scheme or signatureScheme: ${SCHEME_NAMES.join(', ')})`,
      { path: `${path}.${key}` },
    );
  }
  return value;
}
