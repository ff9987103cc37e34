// A delayed Checkout payment (a US bank account debit) settling after the session completed
// unpaid: the debit clears or the bank returns it.
import { commit, type Twin, type Write } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { chargeKind } from './charges.js';
import { live, type StripeCheckoutSession } from './checkout-session-objects.js';
import { asJson, liveFields } from './common.js';
import { paymentIntentKind } from './payment-intents.js';

const check = checker('stripe');

/**
 * A delayed payment settles: the debit clears (charge.succeeded, payment_intent.succeeded,
 * checkout.session.async_payment_succeeded) or fails (charge.failed,
 * payment_intent.payment_failed, checkout.session.async_payment_failed).
 */
export async function settleCheckoutSession(
  twin: Twin,
  id: string,
  input: { outcome: 'succeeded' | 'failed' },
): Promise<StripeCheckoutSession> {
  requirePackTwin(twin, 'stripe');
  const outcome = check.string(input?.outcome, 'outcome');
  if (outcome !== 'succeeded' && outcome !== 'failed')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'outcome must be "succeeded" or "failed"',
      { path: 'outcome' },
    );
  const done = await twin.applyAtomic((view) => {
    const session = live(view, id);
    if (
      session.status !== 'complete' ||
      session.payment_status !== 'unpaid' ||
      session.payment_intent === null
    ) {
      throw new VendorError(
        'stripe',
        'invalid_state',
        'checkout_session_unexpected_state',
        `Checkout Session ${id} has no payment waiting to settle (status ${session.status}, payment_status ${session.payment_status})`,
        { path: 'id' },
      );
    }
    const intent = liveFields(view, paymentIntentKind, session.payment_intent);
    const charge = liveFields(view, chargeKind, intent.latest_charge!);
    const ok = outcome === 'succeeded';
    const chargeFields = ok
      ? { status: 'succeeded', paid: true }
      : {
          status: 'failed',
          paid: false,
          captured: false,
          amount_captured: 0,
          receipt_url: null,
          failure_code: 'debit_not_authorized',
          failure_message: 'The customer notified their bank that this payment was unauthorized.',
          outcome: {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'declined_by_network',
            reason: null,
            risk_level: 'normal',
            seller_message: 'The bank returned the payment.',
            type: 'issuer_declined',
          },
        };
    const intentFields = ok
      ? { status: 'succeeded', amount_received: intent.amount }
      : {
          status: 'requires_payment_method',
          payment_method: null,
          last_payment_error: {
            charge: charge.id,
            code: 'debit_not_authorized',
            message: 'The customer notified their bank that this payment was unauthorized.',
            type: 'invalid_request_error',
          },
        };
    const sessionFields = ok ? { payment_status: 'paid' } : {};
    const writes: Write[] = [
      {
        operation: ok ? 'charge.succeed' : 'charge.fail',
        subjectType: 'charge',
        subjectId: charge.id,
        fields: asJson(chargeFields),
      },
      {
        operation: ok ? 'payment_intent.succeed' : 'payment_intent.fail',
        subjectType: 'payment_intent',
        subjectId: intent.id,
        fields: asJson(intentFields),
      },
      {
        operation: ok ? 'checkout_session.async_succeed' : 'checkout_session.async_fail',
        subjectType: 'checkout_session',
        subjectId: id,
        fields: asJson(sessionFields),
      },
    ];
    return commit(writes, { ...session, ...sessionFields } as StripeCheckoutSession);
  });
  return done.result;
}
