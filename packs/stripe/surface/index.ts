// The Stripe surface: what stripe-node calls, answered by the Stripe pack. Routes are declared per
// resource family beside this file; this puts them together with Stripe's codec, auth, errors and
// idempotency rule. See docs/stripe-surface.md.
import type { JsonObject, Twin } from '../../../src/index.js';
import { defineSurface, requestId, type Surface } from '../../../src/host/index.js';
import type { VendorPack } from '../../kit/vendor-pack.js';
import { advanceBilling, billingDueAt } from '../billing-clock.js';
import { STRIPE_API_VERSION } from '../pack.js';
import { Accounts, apiKeyOf, checkStripeAccount, type StripeAccount } from './accounts.js';
import { decodeForm } from './codec.js';
import { customerRoutes } from './customers.js';
import {
  renderStripeError,
  stripeBodyTooLarge,
  StripeApiError,
  unknownStripeRoute,
} from './errors.js';
import { eventRoutes } from './events.js';
import { paymentRoutes } from './payments.js';
import { billingRoutes, type AdvanceClock } from './billing.js';
import { catalogRoutes } from './catalog.js';
import { checkoutRoutes } from './checkout.js';
import { invoiceRoutes } from './invoices.js';
import { setupIntentRoutes } from './setup-intents.js';
import { webhookEndpointRoutes } from './webhook-endpoints.js';

export interface StripeSurfaceOptions {
  /** Registers an account's pack and sends its webhooks: the host's `packTwin`. */
  readonly packTwin: (pack: VendorPack) => Twin;
  /** A key the built-in `stripe` twin answers (what `twinworld up` prints). */
  readonly primaryKey?: string;
  /** Moves the world clock for test clocks: the host's advanceWorld (all vendors move with it). */
  readonly advanceClock: AdvanceClock;
}

/** Every route, for a host and for the coverage table (`advance` is not called while listing). */
export function stripeRoutes(advance: AdvanceClock) {
  return [
    ...customerRoutes,
    ...webhookEndpointRoutes,
    ...eventRoutes,
    ...paymentRoutes,
    ...setupIntentRoutes,
    ...catalogRoutes,
    ...checkoutRoutes,
    ...billingRoutes(advance),
    ...invoiceRoutes,
  ];
}

const DAY_MS = 24 * 3600_000;

async function decode(request: Request, url: URL): Promise<JsonObject> {
  if (request.method === 'GET' || request.method === 'DELETE') {
    const fromQuery = decodeForm(url.searchParams);
    if (request.method === 'GET') return fromQuery;
    const body = await request.text();
    return body === '' ? fromQuery : { ...fromQuery, ...decodeForm(new URLSearchParams(body)) };
  }
  const type = request.headers.get('content-type') ?? 'application/x-www-form-urlencoded';
  const body = await request.text();
  if (body !== '' && !type.includes('application/x-www-form-urlencoded'))
    throw new StripeApiError(
      400,
      'invalid_request_error',
      undefined,
      `Invalid request: Stripe takes application/x-www-form-urlencoded bodies, not ${type.split(';')[0]}.`,
    );
  return decodeForm(new URLSearchParams(body));
}

export function stripeSurface(options: StripeSurfaceOptions): Surface<StripeAccount> {
  const accounts = new Accounts(options.packTwin, options.primaryKey);
  return defineSurface<StripeAccount>({
    name: 'stripe',
    prefix: '/v1/',
    routes: stripeRoutes(options.advanceClock),
    decode,
    auth(request) {
      const key = apiKeyOf(request);
      const account = accounts.of(key);
      checkStripeAccount(request, key, account);
      const version = request.headers.get('stripe-version');
      if (version !== null && version !== STRIPE_API_VERSION)
        throw new StripeApiError(
          400,
          'invalid_request_error',
          'api_version_invalid',
          `This twin renders API version ${STRIPE_API_VERSION} only (the one stripe-node pins); the request asked for ${version}.`,
        );
      return account;
    },
    renderError: (error) => renderStripeError(error),
    unknownRoute: unknownStripeRoute,
    tooLarge: stripeBodyTooLarge,
    headers: () => ({ 'request-id': requestId(), 'stripe-version': STRIPE_API_VERSION }),
    idempotency: {
      key: (request) => request.headers.get('idempotency-key') ?? undefined,
      scope: (account) => account.id,
      ttlMs: DAY_MS,
      // Stripe saves what ran (a declined card's 402 too); refusals before execution are not saved.
      saves: (_status, error) => error === undefined,
      inProgress: (key) => ({
        status: 409,
        body: {
          error: {
            type: 'idempotency_error',
            code: 'idempotency_key_in_use',
            message: `There is currently another in-progress request using this Idempotent Key (${key}); retry later.`,
          },
        },
      }),
      mismatch: (key) => ({
        status: 400,
        body: {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        },
      }),
      replayHeaders: { 'idempotent-replayed': 'true' },
    },
    clock: {
      async dueAt() {
        let due: number | undefined;
        for (const twin of accounts.twins()) {
          const at = await billingDueAt(twin);
          if (at !== undefined && (due === undefined || at < due)) due = at;
        }
        return due;
      },
      async runDue() {
        let ran = 0;
        for (const twin of accounts.twins()) ran += (await advanceBilling(twin)).length;
        return ran;
      },
    },
  });
}

export type { StripeAccount } from './accounts.js';
