// Stripe's test cards, as the twin knows them: the test token (pm_card_visa), the card's brand
// and last four digits, and how it behaves when charged. Behaviour follows the card number, as in
// Stripe test mode, so a payment method attached today declines the same way next month.
import { sha256Hex } from '../../src/index.js';

export interface TestCard {
  readonly brand: 'visa' | 'mastercard' | 'amex';
  readonly last4: string;
  readonly funding: 'credit' | 'debit';
  /** Set for cards whose charges decline, with Stripe's decline code. */
  readonly declineCode?: string;
  /** Declined when attached to a customer, not only when charged (Stripe's charge-declined cards). */
  readonly declinesOnAttach?: boolean;
  /** Every payment and setup asks for 3-D Secure first (4000 0027 6000 3184): requires_action. */
  readonly requiresAction?: boolean;
}

export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  pm_card_visa: { brand: 'visa', last4: '4242', funding: 'credit' },
  pm_card_visa_debit: { brand: 'visa', last4: '5556', funding: 'debit' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', funding: 'credit' },
  pm_card_amex: { brand: 'amex', last4: '8431', funding: 'credit' },
  pm_card_authenticationRequired: {
    brand: 'visa',
    last4: '3184',
    funding: 'credit',
    requiresAction: true,
  },
  // Attaches fine; every charge declines (4000 0000 0000 0341): how renewals fail in test mode.
  pm_card_chargeCustomerFail: {
    brand: 'visa',
    last4: '0341',
    funding: 'credit',
    declineCode: 'generic_decline',
  },
  pm_card_chargeDeclined: {
    brand: 'visa',
    last4: '0002',
    funding: 'credit',
    declineCode: 'generic_decline',
    declinesOnAttach: true,
  },
  pm_card_visa_chargeDeclined: {
    brand: 'visa',
    last4: '0002',
    funding: 'credit',
    declineCode: 'generic_decline',
    declinesOnAttach: true,
  },
  pm_card_chargeDeclinedInsufficientFunds: declining('9995', 'insufficient_funds'),
  pm_card_visa_chargeDeclinedInsufficientFunds: declining('9995', 'insufficient_funds'),
  pm_card_chargeDeclinedLostCard: declining('9987', 'lost_card'),
  pm_card_visa_chargeDeclinedLostCard: declining('9987', 'lost_card'),
  pm_card_chargeDeclinedExpiredCard: declining('0069', 'expired_card'),
  pm_card_chargeDeclinedIncorrectCvc: declining('0127', 'incorrect_cvc'),
  pm_card_chargeDeclinedProcessingError: declining('0119', 'processing_error'),
};

/** A Visa credit card that declines with `declineCode` when attached and when charged. */
function declining(last4: string, declineCode: string): TestCard {
  return { brand: 'visa', last4, funding: 'credit', declineCode, declinesOnAttach: true };
}

/** How a decline reads in Stripe's card error: its code, decline_code and message. */
export interface CardDecline {
  readonly code: string;
  readonly declineCode: string;
  readonly message: string;
}

// Most declines are card_declined with the reason in decline_code; an expired card, a wrong CVC
// and a processing error each have an error code of their own, repeated as decline_code.
const DECLINES: Readonly<Record<string, { code: string; message: string }>> = {
  generic_decline: { code: 'card_declined', message: 'Your card was declined.' },
  insufficient_funds: { code: 'card_declined', message: 'Your card has insufficient funds.' },
  lost_card: { code: 'card_declined', message: 'Your card was declined.' },
  expired_card: { code: 'expired_card', message: 'Your card has expired.' },
  incorrect_cvc: { code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  // A charge that needs 3-D Secure where nobody can complete it (error_if_incomplete).
  authentication_required: {
    code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
  processing_error: {
    code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
  },
};

/** The card error for a decline code (a test card's), as Stripe words it. */
export function cardDecline(declineCode: string): CardDecline {
  const known = DECLINES[declineCode] ?? DECLINES.generic_decline!;
  return { code: known.code, declineCode, message: known.message };
}

/** The error codes a card error can carry (402 card_error on the wire). */
export const CARD_ERROR_CODES: ReadonlySet<string> = new Set(
  Object.values(DECLINES).map((d) => d.code),
);

/** Stripe's page on an error code: card_declined → …/error-codes/card-declined. */
export function errorDocUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;
}

/** Decline codes by last four digits: what a stored card does when charged. */
const DECLINES_BY_LAST4: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(TEST_CARDS)
    .filter((c) => c.declineCode !== undefined)
    .map((c) => [c.last4, c.declineCode!]),
);

/** The card error a stored card's charge ends in, or undefined when it pays. */
export function declineFor(last4: string): CardDecline | undefined {
  const code = DECLINES_BY_LAST4[last4];
  return code === undefined ? undefined : cardDecline(code);
}

const ACTION_BY_LAST4 = new Set(
  Object.values(TEST_CARDS)
    .filter((c) => c.requiresAction === true)
    .map((c) => c.last4),
);

/** Whether a stored card asks for authentication (3-D Secure) before it can be charged or set up. */
export function requiresActionFor(last4: string): boolean {
  return ACTION_BY_LAST4.has(last4);
}

/** The `card` hash of a card payment method; the fingerprint is the same for the same card. */
export function cardDetails(card: TestCard, nowMs: number) {
  const now = new Date(nowMs);
  return {
    brand: card.brand,
    checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
    country: 'US',
    display_brand: card.brand === 'amex' ? 'american_express' : card.brand,
    exp_month: now.getUTCMonth() + 1,
    exp_year: now.getUTCFullYear() + 3,
    fingerprint: fingerprint(card),
    funding: card.funding,
    generated_from: null,
    last4: card.last4,
    networks: { available: [card.brand], preferred: null },
    regulated_status: 'unregulated' as const,
    three_d_secure_usage: { supported: true },
    wallet: null,
  };
}

type CardDetails = ReturnType<typeof cardDetails>;

function fingerprint(card: TestCard): string {
  const hex = sha256Hex(`${card.brand}:${card.last4}`);
  let out = '';
  for (let i = 0; i < 16; i++)
    out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[
      parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 62
    ];
  return out;
}
