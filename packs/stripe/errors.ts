// Stripe's refusals, with Stripe's own error codes (resource_missing, parameter_unknown,
// payment_intent_unexpected_state, idempotency_key_in_use).
import { VendorError } from '../kit/errors.js';

export function noSuch(type: string, id: string, path = 'id'): VendorError {
  return new VendorError('stripe', 'not_found', 'resource_missing', `No such ${type}: '${id}'`, {
    path,
    details: { type, id },
  });
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
