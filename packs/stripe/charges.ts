// Charges (ch_…): one per payment attempt, succeeded or failed, made from the payment method that
// was charged. A charge is its own write, so charge.succeeded / charge.failed carry the charge
// itself; refunds and disputes change it afterwards (charge.refunded, charge.dispute.created).
import type { Twin, Write } from '../../src/index.js';
import { asJson, unixNow } from './common.js';
import type { Metadata } from './metadata.js';
import type { StripeBankAccountMethod, StripeCardMethod } from './payment-methods.js';
import { recordKind } from '../../src/index.js';

export interface ChargeFailure {
  readonly code: string;
  readonly declineCode: string;
  readonly message: string;
}

export interface ChargeInput {
  readonly id: string;
  readonly amount: number;
  readonly currency: string;
  readonly customer: string | null;
  readonly description: string | null;
  readonly paymentIntent: string;
  readonly method: StripeCardMethod | StripeBankAccountMethod;
  readonly failure: ChargeFailure | null;
  /** A bank debit that has not settled yet (ACH): status pending, not yet paid. */
  readonly pending?: boolean;
  /** Authorized only (a manual-capture intent): succeeded and paid, captured at capture time. */
  readonly uncaptured?: boolean;
}

function cardDetailsOf(method: StripeCardMethod, amount: number, ok: boolean) {
  const card = method.card;
  return {
    card: {
      amount_authorized: ok ? amount : null,
      authorization_code: ok ? '000000' : null,
      brand: card.brand,
      checks: card.checks,
      country: card.country,
      electronic_commerce_indicator: null,
      exp_month: card.exp_month,
      exp_year: card.exp_year,
      fingerprint: card.fingerprint,
      funding: card.funding,
      installments: null,
      last4: card.last4,
      mandate: null,
      network: card.brand,
      network_transaction_id: null,
      regulated_status: card.regulated_status,
      three_d_secure: null,
      transaction_link_id: null,
      wallet: null,
    },
    type: 'card' as const,
  };
}

function bankDetailsOf(method: StripeBankAccountMethod, chargeId: string) {
  const bank = method.us_bank_account;
  return {
    type: 'us_bank_account' as const,
    us_bank_account: {
      account_holder_type: bank.account_holder_type,
      account_type: bank.account_type,
      bank_name: bank.bank_name,
      fingerprint: bank.fingerprint,
      last4: bank.last4,
      payment_reference: chargeId.slice(3, 19).toUpperCase(),
      routing_number: bank.routing_number,
    },
  };
}

function outcome(failure: ChargeFailure | null) {
  if (failure === null) {
    return {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: 'approved_by_network',
      reason: null,
      risk_level: 'normal',
      seller_message: 'Payment complete.',
      type: 'authorized',
    };
  }
  return {
    advice_code: 'try_again_later' as const,
    network_advice_code: null,
    network_decline_code: null,
    network_status: 'declined_by_network',
    reason: failure.declineCode,
    risk_level: 'normal',
    seller_message: 'The bank did not return any further details with this decline.',
    type: 'issuer_declined',
  };
}

export function chargeObject(twin: Twin, input: ChargeInput) {
  const ok = input.failure === null;
  const settled = ok && input.pending !== true;
  const captured = ok && input.uncaptured !== true;
  const method = input.method;
  return {
    id: input.id,
    object: 'charge' as const,
    amount: input.amount,
    amount_captured: captured ? input.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: null,
    billing_details: method.billing_details,
    calculated_statement_descriptor: 'TWINWORLD',
    captured,
    created: unixNow(twin),
    currency: input.currency,
    customer: input.customer,
    description: input.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: input.failure?.code ?? null,
    failure_message: input.failure?.message ?? null,
    fraud_details: {},
    livemode: false as const,
    metadata: {} as Metadata,
    on_behalf_of: null,
    outcome: outcome(input.failure),
    paid: settled,
    payment_intent: input.paymentIntent,
    payment_method: method.id,
    payment_method_details:
      method.type === 'card'
        ? cardDetailsOf(method, input.amount, ok)
        : bankDetailsOf(method, input.id),
    radar_options: {},
    receipt_email: null,
    receipt_number: null,
    receipt_url: ok ? `https://pay.stripe.com/receipts/payment/${input.id}` : null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: !ok ? ('failed' as const) : settled ? ('succeeded' as const) : ('pending' as const),
    transfer_data: null,
    transfer_group: null,
  };
}

export type StripeCharge = ReturnType<typeof chargeObject>;

/** The charge records of the twin, typed (src/state/record-kind.ts). */
export const chargeKind = recordKind<StripeCharge>({ type: 'charge' });

/** The write that records a charge: charge.succeeded or charge.failed. */
export function chargeWrite(charge: StripeCharge): Write {
  const operation = { succeeded: 'charge.succeed', failed: 'charge.fail', pending: 'charge.pend' }[
    charge.status
  ];
  return { operation, subjectType: 'charge', subjectId: charge.id, fields: asJson(charge) };
}
