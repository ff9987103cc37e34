// The Stripe event types this twin sends, and the write operation each one comes from.
export const STRIPE_EVENT_RULES = [
  { operation: 'customer.create', types: ['customer.created'] },
  { operation: 'customer.update', types: ['customer.updated'] },
  { operation: 'customer.delete', types: ['customer.deleted'] },
  { operation: 'payment_intent.create', types: ['payment_intent.created'] },
  { operation: 'payment_intent.succeed', types: ['payment_intent.succeeded'] },
  { operation: 'payment_intent.fail', types: ['payment_intent.payment_failed'] },
  { operation: 'payment_intent.cancel', types: ['payment_intent.canceled'] },
] as const;

export const STRIPE_EVENT_TYPES: readonly string[] = STRIPE_EVENT_RULES.flatMap((r) => r.types);
