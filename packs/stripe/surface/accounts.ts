// Who a Stripe API key is: Stripe's own rules for the Authorization header (Bearer, or Basic with
// the key as user), test-mode keys only — a live key is refused as Stripe refuses a bad one — and
// each key its own account: its own twin (the Stripe pack under the account's name), so two keys
// never see each other's objects. The key itself is never stored or logged: the account is named
// by a hash of it. The surface's primary key, if given, is the built-in `stripe` twin itself, so
// the CLI's commands see what the API wrote.
import { sha256Hex, type Twin } from '../../../src/index.js';
import type { VendorPack } from '../../kit/vendor-pack.js';
import { stripePack } from '../pack.js';
import { StripeApiError } from './errors.js';
import { SURFACE_INDEXES } from './indexes.js';

export interface StripeAccount {
  /** `acct_…`, from a hash of the key: the idempotency scope and what the console shows. */
  readonly id: string;
  readonly twin: Twin;
}

const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9_]{1,240}$/;

function unauthorized(message: string): StripeApiError {
  return new StripeApiError(401, 'invalid_request_error', undefined, message);
}

/** A key's secret part shows its last four characters only when at least this many stay hidden. */
const HIDDEN_AT_LEAST = 8;

/**
 * A key as Stripe's messages show it: its kind (sk_live_, rk_test_, …), stars, and the last four
 * characters of the secret part — never the prefix's, and none of a short secret part, which
 * four characters would give away whole or nearly: `sk_live_x` shows as `sk_live_*`.
 */
function masked(key: string): string {
  const kind = /^[a-z]{2}_(test|live)_/.exec(key)?.[0] ?? '';
  const secret = key.slice(kind.length);
  const tail = secret.length >= HIDDEN_AT_LEAST + 4 ? secret.slice(-4) : '';
  return `${kind}${'*'.repeat(Math.min(secret.length - tail.length, 20))}${tail}`;
}

/** The key a request carries, per Stripe's Authorization rules. */
export function apiKeyOf(request: Request): string {
  const header = request.headers.get('authorization');
  if (header === null || header.trim() === '')
    throw unauthorized(
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    );
  const bearer = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (bearer !== null) return bearer[1]!;
  const basic = /^Basic\s+(\S+)$/i.exec(header.trim());
  if (basic !== null) {
    const user = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0] ?? '';
    if (user !== '') return user;
  }
  throw unauthorized(
    "Invalid Authorization header. Provide your API key as 'Authorization: Bearer sk_test_…'.",
  );
}

function checkTestKey(key: string): void {
  if (/^(sk|rk|pk)_live_/.test(key))
    throw unauthorized(
      `This twin refuses live-mode keys (${masked(key)}): give it a test-mode key (sk_test_…). A live key never belongs in a test.`,
    );
  if (/^pk_test_/.test(key))
    throw unauthorized(
      `A publishable key (${masked(key)}) cannot call this API; use a secret test key (sk_test_…).`,
    );
  if (!TEST_KEY.test(key)) throw unauthorized(`Invalid API Key provided: ${masked(key)}`);
}

/**
 * The twin serves no Connect: a `Stripe-Account` header naming any account but the key's own is
 * refused as Stripe refuses an account the key cannot reach (403 `account_invalid`, which
 * stripe-node raises as StripePermissionError), so an app that relies on Connect learns it at once
 * instead of silently acting on the platform's own objects.
 */
export function checkStripeAccount(request: Request, key: string, account: StripeAccount): void {
  const named = request.headers.get('stripe-account')?.trim();
  if (named === undefined || named === '' || named === account.id) return;
  throw new StripeApiError(
    403,
    'invalid_request_error',
    'account_invalid',
    `The provided key '${masked(key)}' does not have access to account '${named}' (or that account does not exist). Application access may have been revoked.`,
  );
}

export class Accounts {
  private readonly byHash = new Map<string, StripeAccount>();

  constructor(
    /** Registers a pack and lets the host send its webhooks (SurfaceHost.packTwin). */
    private readonly packTwin: (pack: VendorPack) => Twin,
    /** A key served by the built-in `stripe` twin. */
    private readonly primaryKey?: string,
  ) {}

  of(key: string): StripeAccount {
    checkTestKey(key);
    const hash = sha256Hex(`twinworld stripe account\n${key}`);
    const known = this.byHash.get(hash);
    if (known !== undefined) return known;
    const name = key === this.primaryKey ? 'stripe' : `stripe-${hash.slice(0, 16)}`;
    const pack: VendorPack =
      name === 'stripe' ? stripePack : { ...stripePack, name, twin: name, vendor: 'stripe' };
    const twin = this.packTwin(pack);
    for (const index of SURFACE_INDEXES) twin.declareIndex(index);
    const account = { id: `acct_${hash.slice(0, 16)}`, twin };
    this.byHash.set(hash, account);
    return account;
  }

  /** Every account's twin opened so far (what the clock advances). */
  twins(): Twin[] {
    return [...this.byHash.values()].map((a) => a.twin);
  }
}
