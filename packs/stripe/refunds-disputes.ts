// What can happen to a succeeded charge afterwards: a refund (re_…, full or partial) updates its
// amount_refunded and sends charge.refunded; a dispute (du_…, what Stripe's dispute test card
// causes) marks it disputed and sends charge.dispute.created with the dispute.
import { commit, skip, type JsonObject, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import type { StripeCharge } from './charges.js';
import { asJson, liveFields, unixNow } from './common.js';
import { unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { mergeMetadata, type Metadata } from './metadata.js';
import { DAYS } from './periods.js';
import { recordKind } from '../../src/index.js';
import { chargeKind } from './charges.js';

const check = checker('stripe');
const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
const DISPUTE_REASONS = [
  'fraudulent',
  'duplicate',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'credit_not_processed',
  'general',
] as const;

function refundObject(
  twin: Twin,
  id: string,
  charge: StripeCharge,
  amount: number,
  reason: string | null,
) {
  return {
    id,
    object: 'refund' as const,
    amount,
    balance_transaction: null,
    charge: charge.id,
    created: unixNow(twin),
    currency: charge.currency,
    customer: charge.customer,
    customer_account: null,
    destination_details: {
      card: {
        reference_status: 'pending',
        reference_type: 'acquirer_reference_number',
        type: 'refund',
      },
      type: 'card',
    },
    metadata: {} as Metadata,
    payment_intent: charge.payment_intent,
    payment_method: charge.payment_method,
    reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
}

export type StripeRefund = ReturnType<typeof refundObject>;

/** The refund records of the twin, typed (src/state/record-kind.ts). */
const refundKind = recordKind<StripeRefund>({ type: 'refund' });

export interface RefundInput {
  /** Defaults to what is left to refund. */
  amount?: number;
  reason?: (typeof REFUND_REASONS)[number];
  /** Kept on the refund (string values; an empty one sets nothing). */
  metadata?: JsonObject;
}

function succeededCharge(charge: StripeCharge, action: string): void {
  if (charge.status !== 'succeeded') {
    throw new VendorError(
      'stripe',
      'invalid_state',
      'charge_not_refundable',
      `You cannot ${action} charge ${charge.id} because it has a status of ${charge.status}; only succeeded charges can be`,
      { path: 'charge', details: { status: charge.status } },
    );
  }
}

/** POST /v1/refunds {charge}: charge.refunded with the charge's new amount_refunded. */
export async function refundCharge(
  twin: Twin,
  chargeId: string,
  input: RefundInput = {},
  options: RequestOptions = {},
): Promise<StripeRefund> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (key !== 'amount' && key !== 'reason' && key !== 'metadata')
      throw unknownParameter(key, ['amount', 'reason', 'metadata']);
  const metadata = mergeMetadata({}, input.metadata);
  const amountParam = input.amount === undefined ? null : check.integer(input.amount, 'amount', 1);
  const reason = check.optionalString(input.reason, 'reason');
  if (reason !== null && !(REFUND_REASONS as readonly string[]).includes(reason)) {
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `reason must be one of: ${REFUND_REASONS.join(', ')}`,
      { path: 'reason' },
    );
  }
  const call: RequestCall = {
    method: 'POST',
    path: '/v1/refunds',
    // Named only when given, so a refund without metadata is the same request it always was.
    params: {
      charge: chargeId,
      amount: amountParam,
      reason,
      ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
    },
  };
  const done = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(liveFields(view, refundKind, prior.id));
    const charge = liveFields(view, chargeKind, chargeId, 'charge');
    succeededCharge(charge, 'refund');
    if (!charge.captured && charge.payment_intent !== null)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'charge_not_refundable',
        `This uncaptured Charge was created by a PaymentIntent (${charge.payment_intent}). You must cancel the PaymentIntent to reverse the authorization instead of refunding the Charge directly.`,
        { path: 'charge', details: { captured: false } },
      );
    // Only what was captured can come back: a partial capture released the rest without a refund.
    const left = charge.amount_captured - charge.amount_refunded;
    const amount = amountParam ?? left;
    if (left === 0)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'charge_already_refunded',
        `Charge ${chargeId} has already been refunded.`,
        { path: 'charge' },
      );
    if (amount > left)
      throw new VendorError(
        'stripe',
        'invalid_input',
        'amount_too_large',
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
        { path: 'amount' },
      );
    const refund = {
      ...refundObject(twin, stripeIds.refund(twin.world.ids), charge, amount, reason),
      metadata,
    };
    const refunded = charge.amount_refunded + amount;
    return commit(
      {
        operation: 'charge.refund',
        subjectType: 'charge',
        subjectId: chargeId,
        fields: { amount_refunded: refunded, refunded: refunded === charge.amount_captured },
        projection: {
          creates: [
            { type: 'refund', id: refund.id, fields: asJson(refund) },
            requestProjection(twin, call, options, { type: 'refund', id: refund.id }),
          ],
        },
      },
      refund,
    );
  });
  return done.result;
}

function disputeObject(twin: Twin, id: string, charge: StripeCharge, reason: string) {
  const now = unixNow(twin);
  return {
    id,
    object: 'dispute' as const,
    amount: charge.amount,
    balance_transactions: [],
    charge: charge.id,
    created: now,
    currency: charge.currency,
    enhanced_eligibility_types: [],
    evidence: {
      access_activity_log: null,
      billing_address: null,
      cancellation_policy: null,
      cancellation_policy_disclosure: null,
      cancellation_rebuttal: null,
      customer_communication: null,
      customer_email_address: charge.billing_details.email,
      customer_name: charge.billing_details.name,
      customer_purchase_ip: null,
      customer_signature: null,
      duplicate_charge_documentation: null,
      duplicate_charge_explanation: null,
      duplicate_charge_id: null,
      enhanced_evidence: {},
      product_description: null,
      receipt: null,
      refund_policy: null,
      refund_policy_disclosure: null,
      refund_refusal_explanation: null,
      service_date: null,
      service_documentation: null,
      shipping_address: null,
      shipping_carrier: null,
      shipping_date: null,
      shipping_documentation: null,
      shipping_tracking_number: null,
      uncategorized_file: null,
      uncategorized_text: null,
    },
    evidence_details: {
      due_by: now + DAYS(21),
      enhanced_eligibility: {},
      has_evidence: false,
      past_due: false,
      submission_count: 0,
      submission_method: 'not_submitted' as const,
    },
    intended_submission_method: null,
    is_charge_refundable: false,
    livemode: false as const,
    metadata: {} as Metadata,
    payment_intent: charge.payment_intent,
    payment_method_details: (() => {
      const brand =
        charge.payment_method_details.type === 'card'
          ? charge.payment_method_details.card.brand
          : 'visa';
      return {
        card: {
          brand,
          case_type: 'chargeback' as const,
          network: brand,
          network_reason_code: '10.4',
        },
        type: 'card' as const,
      };
    })(),
    reason,
    status: 'needs_response' as const,
  };
}

export type StripeDispute = ReturnType<typeof disputeObject>;

/**
 * The cardholder disputes a succeeded charge (in Stripe test mode: the 0259 dispute card):
 * charge.dispute.created, and the charge becomes disputed.
 */
export async function disputeCharge(
  twin: Twin,
  chargeId: string,
  input: { reason?: (typeof DISPUTE_REASONS)[number] } = {},
): Promise<StripeDispute> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (key !== 'reason') throw unknownParameter(key, ['reason']);
  const reason = input.reason === undefined ? 'fraudulent' : check.string(input.reason, 'reason');
  if (!(DISPUTE_REASONS as readonly string[]).includes(reason))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      `reason must be one of: ${DISPUTE_REASONS.join(', ')}`,
      { path: 'reason' },
    );
  const done = await twin.applyAtomic((view) => {
    const charge = liveFields(view, chargeKind, chargeId, 'charge');
    succeededCharge(charge, 'dispute');
    if (charge.disputed)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'charge_disputed',
        `Charge ${chargeId} is already disputed`,
        { path: 'charge' },
      );
    const dispute = disputeObject(twin, stripeIds.dispute(twin.world.ids), charge, reason);
    return commit(
      {
        operation: 'dispute.create',
        subjectType: 'dispute',
        subjectId: dispute.id,
        fields: asJson(dispute),
        projection: { updates: [{ type: 'charge', id: chargeId, fields: { disputed: true } }] },
      },
      dispute,
    );
  });
  return done.result;
}
