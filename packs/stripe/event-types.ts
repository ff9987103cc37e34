// The Stripe event types this twin sends, and the write operations each one comes from. A write's
// subject is the event's data.object, so a call that changes several objects (a confirmation: a
// charge and its payment intent) is several writes in one commit.
export const STRIPE_EVENT_RULES = [
  { operation: 'customer.create', types: ['customer.created'] },
  { operation: 'customer.update', types: ['customer.updated'] },
  { operation: 'customer.delete', types: ['customer.deleted'] },
  { operation: 'payment_intent.create', types: ['payment_intent.created'] },
  { operation: 'payment_intent.succeed', types: ['payment_intent.succeeded'] },
  { operation: 'payment_intent.fail', types: ['payment_intent.payment_failed'] },
  { operation: 'payment_intent.cancel', types: ['payment_intent.canceled'] },
  { operation: 'charge.succeed', types: ['charge.succeeded'] },
  { operation: 'charge.fail', types: ['charge.failed'] },
  { operation: 'charge.refund', types: ['charge.refunded'] },
  { operation: 'dispute.create', types: ['charge.dispute.created'] },
  { operation: 'payment_method.attach', types: ['payment_method.attached'] },
  { operation: 'product.create', types: ['product.created'] },
  { operation: 'price.create', types: ['price.created'] },
  { operation: 'subscription.create', types: ['customer.subscription.created'] },
  { operation: 'subscription.update', types: ['customer.subscription.updated'] },
  { operation: 'subscription.renew', types: ['customer.subscription.updated'] },
  { operation: 'subscription.activate', types: ['customer.subscription.updated'] },
  { operation: 'subscription.past_due', types: ['customer.subscription.updated'] },
  { operation: 'subscription.cancel', types: ['customer.subscription.deleted'] },
  { operation: 'subscription.end', types: ['customer.subscription.deleted'] },
  { operation: 'subscription.trial_will_end', types: ['customer.subscription.trial_will_end'] },
  { operation: 'invoice.create', types: ['invoice.created'] },
  { operation: 'invoice.finalize', types: ['invoice.finalized'] },
  { operation: 'invoice.pay', types: ['invoice.paid', 'invoice.payment_succeeded'] },
  { operation: 'invoice.payment_fail', types: ['invoice.payment_failed'] },
  { operation: 'invoice.upcoming', types: ['invoice.upcoming'] },
  { operation: 'checkout_session.complete', types: ['checkout.session.completed'] },
  { operation: 'checkout_session.expire', types: ['checkout.session.expired'] },
  {
    operation: 'checkout_session.async_succeed',
    types: ['checkout.session.async_payment_succeeded'],
  },
  { operation: 'checkout_session.async_fail', types: ['checkout.session.async_payment_failed'] },
] as const;

export const STRIPE_EVENT_TYPES: readonly string[] = [
  ...new Set(STRIPE_EVENT_RULES.flatMap((r) => r.types)),
];
