// The table of signing schemes by name: the one place that knows every scheme. Scheme modules
// import only the contract (scheme.ts), so this table can be built once, at load time.
import { TwinError } from '../../errors.js';
import { githubScheme } from './github.js';
import { hmacSha256Scheme } from './hmac-sha256.js';
import { SCHEME_NAMES, type SchemeName, type SigningScheme } from './scheme.js';
import { slackScheme } from './slack.js';
import { standardWebhooksScheme } from './standard-webhooks.js';
import { stripeScheme } from './stripe.js';

const SCHEMES: Readonly<Record<SchemeName, SigningScheme>> = {
  stripe: stripeScheme,
  github: githubScheme,
  slack: slackScheme,
  'standard-webhooks': standardWebhooksScheme,
  'hmac-sha256': hmacSha256Scheme,
};

export function getScheme(name: string): SigningScheme {
  const scheme = Object.hasOwn(SCHEMES, name) ? SCHEMES[name as SchemeName] : undefined;
  if (scheme !== undefined) return scheme;
  throw new TwinError(
    'INVALID_CONFIG',
    `Unknown signing scheme ${JSON.stringify(name)}; valid schemes are: ${SCHEME_NAMES.join(', ')}.`,
    {
      path: 'scheme',
      details: { scheme: name, validSchemes: [...SCHEME_NAMES] },
    },
  );
}
