// How Stripe treats an endpoint that keeps failing. Stripe documents that it emails the account
// and then disables an endpoint that has not answered 2xx for several days
// (https://docs.stripe.com/webhooks#disable-logic); its warning email names the cut-off as nine
// days after the first failure. Stripe publishes no per-endpoint send rate and no breaker: a down
// receiver only burns its retries, so neither is declared.
import type { EventsDeclaration } from '../../src/index.js';

export const STRIPE_HEALTH: NonNullable<EventsDeclaration['health']> = {
  source: 'https://docs.stripe.com/webhooks#disable-logic',
  disable: { afterMs: 9 * 24 * 3_600_000, minFailures: 2, announce: 'notice' },
};
