// The query parameters a postgres:// store URL may carry: `world` (ours) and the connection
// parameters the pg driver reads from a URL. Anything else is refused, because the driver ignores
// what it does not know: `?wrld=staging` would otherwise open the world "default" and write there.
import { didYouMean } from '../did-you-mean.js';
import { UsageError } from './usage-error.js';

/** What pg-connection-string and pg's ConnectionParameters take from the URL's query. */
const DRIVER_PARAMS = [
  'host',
  'port',
  'user',
  'password',
  'database',
  'db',
  'encoding',
  'client_encoding',
  'ssl',
  'sslmode',
  'sslcert',
  'sslkey',
  'sslrootcert',
  'sslnegotiation',
  'uselibpqcompat',
  'application_name',
  'fallback_application_name',
  'options',
  'binary',
  'replication',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'query_timeout',
];

const KNOWN = ['world', ...DRIVER_PARAMS];

/** Refuses a parameter nothing reads, and `world` given twice (which one was meant?). */
export function checkStoreParams(params: URLSearchParams, from: string): void {
  for (const name of new Set(params.keys())) {
    if (!KNOWN.includes(name))
      throw new UsageError(
        `${from}: ?${name}= is not a parameter a store URL takes${didYouMean(name, KNOWN)}; ` +
          `?world=NAME picks the world, and the PostgreSQL driver reads ${DRIVER_PARAMS.join(', ')}`,
      );
  }
  if (params.getAll('world').length > 1)
    throw new UsageError(`${from}: ?world= is given more than once; give it once`);
}
