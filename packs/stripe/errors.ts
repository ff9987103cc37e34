// Stripe's refusals, with Stripe's own error codes (resource_missing, parameter_unknown,
// email_invalid, payment_intent_unexpected_state, idempotency_key_in_use).
import { VendorError } from '../kit/errors.js';

/** How Stripe's resource_missing names a type where it is not the object's own name. */
const MISSING_NAME: Readonly<Record<string, string>> = {
  payment_method: 'PaymentMethod',
  inline_price: 'price',
  inline_product: 'product',
};

export function noSuch(type: string, id: string, path = 'id'): VendorError {
  const name = Object.hasOwn(MISSING_NAME, type) ? MISSING_NAME[type] : type;
  return new VendorError('stripe', 'not_found', 'resource_missing', `No such ${name}: '${id}'`, {
    path,
    details: { type, id },
  });
}

/** A dotted path (`invoice_settings.footer`) in Stripe's bracket form (`invoice_settings[footer]`). */
export function stripeParam(path: string): string {
  const [head, ...rest] = path.split('.');
  return head + rest.map((p) => `[${p}]`).join('');
}

/** Stripe's answer to a required parameter left out: `Missing required param: items[0][price].` */
export function missingParameter(path: string): VendorError {
  return new VendorError(
    'stripe',
    'invalid_input',
    'parameter_missing',
    `Missing required param: ${stripeParam(path)}.`,
    { path },
  );
}

export function unknownParameter(path: string, allowed: readonly string[]): VendorError {
  return new VendorError(
    'stripe',
    'invalid_input',
    'parameter_unknown',
    `Received unknown parameter: ${path}; allowed: ${allowed.join(', ')}`,
    { path },
  );
}

/**
 * Since API version 2018-07-27 Stripe refuses a customer `email` that is not shaped like an
 * address (https://docs.stripe.com/changelog/2018-07-27/stripe-validates-email-addresses-customers),
 * and a Checkout Session's `customer_email` the same way ("Invalid email address: ada@gmail").
 * The shape checked here: one `@` between a non-empty local part and a dotted domain whose labels
 * are not empty, and no whitespace.
 */
export function checkEmail(value: string | null, path: string): string | null {
  if (value === null || /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value)) return value;
  throw new VendorError(
    'stripe',
    'invalid_input',
    'email_invalid',
    `Invalid email address: ${value}`,
    {
      path,
    },
  );
}

export function unexpectedState(
  id: string,
  action: string,
  status: string,
  allowed: readonly string[],
): VendorError {
  return new VendorError(
    'stripe',
    'invalid_state',
    'payment_intent_unexpected_state',
    `You cannot ${action} PaymentIntent ${id} because it has a status of ${status}; it must be one of: ${allowed.join(', ')}`,
    { path: 'status', details: { id, status, allowed: [...allowed] } },
  );
}

/** Confirming an intent that holds no payment method and was given none: Stripe's own words. */
export function missingPaymentMethod(): VendorError {
  return new VendorError(
    'stripe',
    'invalid_state',
    'payment_intent_unexpected_state',
    "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method or ConfirmationToken.",
  );
}
