// Paying on a Checkout Session's hosted page, played headlessly: by card the payment succeeds
// (checkout.session.completed, paid) or declines (charge.failed + payment_intent.payment_failed;
// the session stays open); by US bank account the session completes unpaid until the debit
// settles (checkout-settlement.ts). Subscription mode makes the customer, attaches the card and
// starts the subscription, then completes the session.
import { commit, skip, type Twin, type Write } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import { inlinePriceKind } from './catalog.js';
import { chargeObject, chargeWrite } from './charges.js';
import {
  completedFields,
  LINE_ITEMS,
  openSession,
  type StripeCheckoutSession,
} from './checkout-session-objects.js';
import { asJson, liveFields } from './common.js';
import { createCustomer, customerKind, updateCustomer } from './customers.js';
import { unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import { attemptPayment } from './payment-attempt.js';
import { paymentIntentKind, paymentIntentObject } from './payment-intents.js';
import {
  attachPaymentMethod,
  bankAccountMethodObject,
  checkPaymentMethodRef,
} from './payment-methods.js';
import { createSubscription } from './subscriptions.js';

const check = checker('stripe');

export interface CompleteCheckoutInput {
  /** A card test token (default pm_card_visa), or "us_bank_account" for a delayed ACH debit (payment mode). */
  payment_method?: string;
  email?: string;
  name?: string;
}

/**
 * The customer pays on the hosted page. Card: the payment succeeds (checkout.session.completed,
 * paid) or declines (charge.failed + payment_intent.payment_failed; the session stays open).
 * Bank account: checkout.session.completed, unpaid, until settleCheckoutSession.
 */
export async function completeCheckoutSession(
  twin: Twin,
  id: string,
  input: CompleteCheckoutInput = {},
): Promise<StripeCheckoutSession> {
  requirePackTwin(twin, 'stripe');
  for (const key of Object.keys(input ?? {}))
    if (!['payment_method', 'email', 'name'].includes(key))
      throw unknownParameter(key, ['payment_method', 'email', 'name']);
  const method =
    input.payment_method === undefined
      ? 'pm_card_visa'
      : check.string(input.payment_method, 'payment_method');
  const email = check.optionalString(input.email, 'email');
  const name = check.optionalString(input.name, 'name');
  const session = await twin.read((view) => openSession(view, id));
  if (session.mode === 'subscription')
    return completeSubscriptionSession(twin, session, method, email, name);
  // Payment mode: the intent is made when the customer submits the page, then charged.
  const made = await twin.applyAtomic((view) => {
    const current = openSession(view, id);
    if (current.payment_intent !== null) return skip(current.payment_intent);
    const intent = paymentIntentObject(twin, stripeIds.paymentIntent(twin.world.ids), {
      amount: current.amount_total,
      currency: current.currency,
      customer: current.customer,
      description: null,
      metadata: {},
    });
    return commit(
      [
        {
          operation: 'payment_intent.create',
          subjectType: 'payment_intent',
          subjectId: intent.id,
          fields: asJson(intent),
        },
        {
          operation: 'checkout_session.attach_intent',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: { payment_intent: intent.id },
        },
      ],
      intent.id,
    );
  });
  const intentId = made.result;
  const done = await twin.applyAtomic((view) => {
    const current = openSession(view, id);
    const intent = liveFields(view, paymentIntentKind, intentId);
    if (method === 'us_bank_account') {
      const bank = bankAccountMethodObject(twin, stripeIds.paymentMethod(twin.world.ids), null, {
        email: email ?? current.customer_email,
        name,
      });
      const charge = chargeObject(twin, {
        id: stripeIds.charge(twin.world.ids),
        amount: intent.amount,
        currency: intent.currency,
        customer: intent.customer,
        description: null,
        paymentIntent: intent.id,
        method: bank,
        failure: null,
        pending: true,
      });
      const fields = completedFields(current, email, name, current.customer, false);
      const writes: Write[] = [
        {
          ...chargeWrite(charge),
          projection: { creates: [{ type: 'payment_method', id: bank.id, fields: asJson(bank) }] },
        },
        {
          operation: 'payment_intent.process',
          subjectType: 'payment_intent',
          subjectId: intent.id,
          fields: asJson({
            status: 'processing',
            payment_method: bank.id,
            latest_charge: charge.id,
            payment_method_types: ['card', 'us_bank_account'],
          }),
        },
        {
          operation: 'checkout_session.complete',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: asJson(fields),
        },
      ];
      return commit(writes, { ...current, ...fields });
    }
    const attempt = attemptPayment(twin, view, intent, method);
    if (!attempt.ok) return commit(attempt.writes, current);
    const fields = completedFields(current, email, name, current.customer, true);
    return commit(
      [
        ...attempt.writes,
        {
          operation: 'checkout_session.complete',
          subjectType: 'checkout_session',
          subjectId: id,
          fields: asJson(fields),
        },
      ],
      { ...current, ...fields },
    );
  });
  return done.result as StripeCheckoutSession;
}

/** Subscription mode: a customer (made if none), the card attached, the subscription, then the session. */
async function completeSubscriptionSession(
  twin: Twin,
  session: StripeCheckoutSession,
  method: string,
  email: string | null,
  name: string | null,
): Promise<StripeCheckoutSession> {
  if (method === 'us_bank_account')
    throw new VendorError(
      'stripe',
      'invalid_input',
      'parameter_invalid',
      'The twin takes subscription payments by card; pay with a card test token such as pm_card_visa',
      { path: 'payment_method' },
    );
  let customerId = session.customer;
  // Refused before anything is made: a customer created ahead of a refused card would be made
  // again by every retry of the payment.
  await twin.read((view) => checkPaymentMethodRef(view, method, customerId));
  if (customerId === null)
    customerId = (await createCustomer(twin, { email: email ?? session.customer_email, name })).id;
  const pm = await attachPaymentMethod(twin, method, { customer: customerId });
  await updateCustomer(twin, customerId, { invoice_settings: { default_payment_method: pm.id } });
  const lines = (await twin.get(LINE_ITEMS, session.id))?.fields.data as {
    price: string;
    quantity: number;
  }[];
  // The session's inline prices (price_data) are archived, and its own subscription's to use.
  const inline = await twin.read((view) =>
    lines.filter((l) => inlinePriceKind.read(view, l.price) !== undefined).map((l) => l.price),
  );
  const sub = await createSubscription(
    twin,
    { customer: customerId, items: lines, default_payment_method: pm.id },
    {},
    inline,
  );
  const customer = await twin.read((view) =>
    liveFields(view, customerKind, customerId, 'customer'),
  );
  const paid = sub.status === 'active' || sub.status === 'trialing';
  const done = await twin.applyAtomic((view) => {
    const current = openSession(view, session.id);
    if (!paid) return skip(current);
    const fields = {
      ...completedFields(current, email ?? customer.email, name ?? customer.name, customerId, true),
      subscription: sub.id,
      invoice: sub.latest_invoice,
    };
    return commit(
      {
        operation: 'checkout_session.complete',
        subjectType: 'checkout_session',
        subjectId: session.id,
        fields: asJson(fields),
      },
      { ...current, ...fields },
    );
  });
  return done.result as StripeCheckoutSession;
}
