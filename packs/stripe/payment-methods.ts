// PaymentMethods (pm_…): card payment methods made from Stripe's test tokens. Attaching one to a
// customer sends payment_method.attached; confirming a payment with a token makes an unattached
// one, as Stripe test mode does. A stored card's behaviour follows its number (cards.ts).
import { commit, skip, type JsonObject, type ReadView, type Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { requirePackTwin } from '../kit/twin-checks.js';
import {
  priorRequest,
  requestProjection,
  type RequestCall,
  type RequestOptions,
} from './api-requests.js';
import { cardDecline, cardDetails, TEST_CARDS, type TestCard } from './cards.js';
import { asJson, billingDetails, liveFields, unixNow } from './common.js';
import { unknownParameter } from './errors.js';
import { stripeIds } from './ids.js';
import type { Metadata } from './metadata.js';
import { recordKind } from '../../src/index.js';
import { customerKind } from './customers.js';

function paymentMethodObject(
  twin: Twin,
  id: string,
  card: TestCard,
  customer: string | null,
  contact: { email: string | null; name: string | null } = { email: null, name: null },
) {
  return {
    id,
    object: 'payment_method' as const,
    allow_redisplay: 'unspecified' as const,
    billing_details: billingDetails(contact.email, contact.name),
    card: cardDetails(card, twin.world.clock.now()),
    created: unixNow(twin),
    customer,
    customer_account: null,
    livemode: false as const,
    metadata: {} as Metadata,
    type: 'card' as const,
  };
}

/**
 * A US bank account (ACH Direct Debit, test routing number 110000000): Stripe's delayed
 * notification method — a payment stays processing until the debit settles or fails.
 */
export function bankAccountMethodObject(
  twin: Twin,
  id: string,
  customer: string | null,
  contact: { email: string | null; name: string | null },
) {
  return {
    id,
    object: 'payment_method' as const,
    allow_redisplay: 'unspecified' as const,
    billing_details: billingDetails(contact.email, contact.name),
    created: unixNow(twin),
    customer,
    customer_account: null,
    livemode: false as const,
    metadata: {} as Metadata,
    type: 'us_bank_account' as const,
    us_bank_account: {
      account_holder_type: 'individual' as const,
      account_type: 'checking' as const,
      bank_name: 'STRIPE TEST BANK',
      financial_connections_account: null,
      fingerprint: 'TwinBankAcct6789',
      last4: '6789',
      networks: { preferred: 'ach', supported: ['ach' as const] },
      routing_number: '110000000',
      status_details: {},
    },
  };
}

export type StripeCardMethod = ReturnType<typeof paymentMethodObject>;
export type StripeBankAccountMethod = ReturnType<typeof bankAccountMethodObject>;
export type StripePaymentMethod = StripeCardMethod;

/** The payment_method records of the twin, typed (src/state/record-kind.ts). */
export const paymentMethodKind = recordKind<StripePaymentMethod>({ type: 'payment_method' });

const check = checker('stripe');

function testCard(token: string, path = 'payment_method'): TestCard {
  const card = TEST_CARDS[token];
  if (card === undefined) {
    throw new VendorError(
      'stripe',
      'invalid_input',
      'resource_missing',
      `No such PaymentMethod: '${token}'; use a pm_… id or a test token: ${Object.keys(TEST_CARDS).join(', ')}`,
      { path },
    );
  }
  return card;
}

/**
 * A payment method to charge: an existing pm_… (it must belong to `customer` when it is attached),
 * or a test token, which becomes a new unattached payment method (returned as `created`).
 */
export function resolvePaymentMethod(
  twin: Twin,
  view: ReadView,
  ref: string,
  customer: string | null,
  path = 'payment_method',
): { method: StripePaymentMethod; created: boolean } {
  if (Object.hasOwn(TEST_CARDS, ref)) {
    return {
      method: paymentMethodObject(
        twin,
        stripeIds.paymentMethod(twin.world.ids),
        testCard(ref, path),
        null,
      ),
      created: true,
    };
  }
  return { method: storedPaymentMethod(view, ref, customer, path), created: false };
}

/**
 * The stored payment method `ref` names, refused as a payment would refuse it (missing, or another
 * customer's). A test token (pm_card_visa) is always usable and is not looked up: it names a card.
 */
export function checkPaymentMethodRef(
  view: ReadView,
  ref: string,
  customer: string | null,
  path = 'payment_method',
): void {
  if (Object.hasOwn(TEST_CARDS, ref)) testCard(ref, path);
  else storedPaymentMethod(view, ref, customer, path);
}

function storedPaymentMethod(
  view: ReadView,
  ref: string,
  customer: string | null,
  path: string,
): StripePaymentMethod {
  const method = liveFields(view, paymentMethodKind, ref, path);
  if (method.customer !== null && customer !== null && method.customer !== customer) {
    throw new VendorError(
      'stripe',
      'invalid_input',
      'payment_method_invalid_parameter',
      `The provided PaymentMethod ${ref} belongs to customer ${method.customer}, not ${customer}`,
      { path },
    );
  }
  return method;
}

export interface AttachPaymentMethodInput {
  customer: string;
}

/** POST /v1/payment_methods/{pm}/attach, with a pm_… id or a test token such as pm_card_visa. */
export async function attachPaymentMethod(
  twin: Twin,
  paymentMethod: string,
  input: AttachPaymentMethodInput,
  options: RequestOptions = {},
): Promise<StripePaymentMethod> {
  requirePackTwin(twin, 'stripe');
  const ref = check.string(paymentMethod, 'payment_method');
  for (const key of Object.keys(input ?? {}))
    if (key !== 'customer') throw unknownParameter(key, ['customer']);
  const customer = check.string(input?.customer, 'customer');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_methods/${ref}/attach`,
    params: { customer },
  };
  const result = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(liveFields(view, paymentMethodKind, prior.id));
    const owner = liveFields(view, customerKind, customer, 'customer');
    let method: StripePaymentMethod;
    if (Object.hasOwn(TEST_CARDS, ref)) {
      const card = testCard(ref);
      if (card.declinesOnAttach === true) {
        const decline = cardDecline(card.declineCode!);
        throw new VendorError(
          'stripe',
          'invalid_state',
          decline.code,
          `${decline.message} (${decline.declineCode}; use pm_card_chargeCustomerFail for a card that attaches but declines when charged)`,
          { path: 'payment_method', details: { decline_code: decline.declineCode } },
        );
      }
      method = paymentMethodObject(
        twin,
        stripeIds.paymentMethod(twin.world.ids),
        card,
        customer,
        owner,
      );
    } else {
      // The payment method the URL names: missing, it is the route's 404.
      const existing = liveFields(view, paymentMethodKind, ref);
      if (existing.customer !== null) {
        throw new VendorError(
          'stripe',
          'invalid_state',
          'payment_method_unexpected_state',
          `The payment method ${ref} is already attached to customer ${existing.customer}; detach it first`,
          { path: 'payment_method' },
        );
      }
      method = { ...existing, customer };
    }
    return commit(
      {
        operation: 'payment_method.attach',
        subjectType: 'payment_method',
        subjectId: method.id,
        fields: asJson(method) as JsonObject,
        projection: {
          creates: [
            requestProjection(twin, call, options, { type: 'payment_method', id: method.id }),
          ],
        },
      },
      method,
    );
  });
  return result.result;
}

export async function getPaymentMethod(twin: Twin, id: string): Promise<StripePaymentMethod> {
  return await twin.read((view) => liveFields(view, paymentMethodKind, id));
}

/** POST /v1/payment_methods/{pm}/detach: the method leaves its customer (payment_method.detached). */
export async function detachPaymentMethod(
  twin: Twin,
  paymentMethod: string,
  options: RequestOptions = {},
): Promise<StripePaymentMethod> {
  requirePackTwin(twin, 'stripe');
  const ref = check.string(paymentMethod, 'payment_method');
  const call: RequestCall = {
    method: 'POST',
    path: `/v1/payment_methods/${ref}/detach`,
    params: {},
  };
  const result = await twin.applyAtomic((view) => {
    const prior = priorRequest(view, call, options);
    if (prior !== undefined) return skip(liveFields(view, paymentMethodKind, prior.id));
    const method = liveFields(view, paymentMethodKind, ref);
    if (method.customer === null)
      throw new VendorError(
        'stripe',
        'invalid_state',
        'payment_method_unexpected_state',
        `The payment method ${ref} is not attached to a customer, so it cannot be detached`,
        { path: 'payment_method' },
      );
    return commit(
      paymentMethodKind.write(
        'payment_method.detach',
        ref,
        { customer: null },
        {
          projection: {
            creates: [requestProjection(twin, call, options, { type: 'payment_method', id: ref })],
          },
        },
      ),
      { ...method, customer: null },
    );
  });
  return result.result;
}
