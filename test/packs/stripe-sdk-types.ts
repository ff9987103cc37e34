// Type-level check against Stripe's own generated SDK types (stripe-node 23.1.0, API version
// 2026-10-28.endive, the one the twin writes): every object the Stripe pack renders, wrapped in the
// Event envelope the pack sends, must be assignable to the matching `Stripe.XxxEvent`. A missing
// required field, a wrong type or an impossible enum value fails `npm run typecheck`.
//
// One adjustment, for the wire: the SDK types decimal fields (unit_amount_decimal, …) as its
// Decimal class, which it builds only for API responses; webhook bodies carry them as JSON
// strings (constructEvent does not convert them), so Wire<T> reads Decimal as string.
import type Stripe from 'stripe';
import type {
  StripeCharge,
  StripeCheckoutSession,
  StripeCustomer,
  StripeDispute,
  StripeInvoice,
  StripePaymentIntent,
  StripePaymentMethod,
  StripePrice,
  StripeProduct,
  StripeSetupIntent,
  StripeSubscription,
} from '../../packs/stripe/index.js';

type Wire<T> = T extends Stripe.Decimal
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** The Event envelope as the pack renders it (packs/stripe/pack.ts). */
export type RenderedEvent<Obj, Type extends string> = {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: Obj; previous_attributes?: Partial<Obj> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: Type;
};

/** Compiles only when Source is assignable to Target. */
type Assignable<Target, Source extends Target> = Source;

export type StripeEventChecks = [
  Assignable<Wire<Stripe.CustomerCreatedEvent>, RenderedEvent<StripeCustomer, 'customer.created'>>,
  Assignable<Wire<Stripe.CustomerUpdatedEvent>, RenderedEvent<StripeCustomer, 'customer.updated'>>,
  Assignable<Wire<Stripe.CustomerDeletedEvent>, RenderedEvent<StripeCustomer, 'customer.deleted'>>,
  Assignable<
    Wire<Stripe.PaymentIntentCreatedEvent>,
    RenderedEvent<StripePaymentIntent, 'payment_intent.created'>
  >,
  Assignable<
    Wire<Stripe.PaymentIntentSucceededEvent>,
    RenderedEvent<StripePaymentIntent, 'payment_intent.succeeded'>
  >,
  Assignable<
    Wire<Stripe.PaymentIntentPaymentFailedEvent>,
    RenderedEvent<StripePaymentIntent, 'payment_intent.payment_failed'>
  >,
  Assignable<
    Wire<Stripe.PaymentIntentCanceledEvent>,
    RenderedEvent<StripePaymentIntent, 'payment_intent.canceled'>
  >,
  Assignable<
    Wire<Stripe.PaymentIntentAmountCapturableUpdatedEvent>,
    RenderedEvent<StripePaymentIntent, 'payment_intent.amount_capturable_updated'>
  >,
  Assignable<
    Wire<Stripe.PaymentIntentRequiresActionEvent>,
    RenderedEvent<StripePaymentIntent, 'payment_intent.requires_action'>
  >,
  Assignable<Wire<Stripe.ChargeCapturedEvent>, RenderedEvent<StripeCharge, 'charge.captured'>>,
  Assignable<Wire<Stripe.ChargeSucceededEvent>, RenderedEvent<StripeCharge, 'charge.succeeded'>>,
  Assignable<Wire<Stripe.ChargeFailedEvent>, RenderedEvent<StripeCharge, 'charge.failed'>>,
  Assignable<Wire<Stripe.ChargeRefundedEvent>, RenderedEvent<StripeCharge, 'charge.refunded'>>,
  Assignable<
    Wire<Stripe.ChargeDisputeCreatedEvent>,
    RenderedEvent<StripeDispute, 'charge.dispute.created'>
  >,
  Assignable<
    Wire<Stripe.PaymentMethodAttachedEvent>,
    RenderedEvent<StripePaymentMethod, 'payment_method.attached'>
  >,
  Assignable<
    Wire<Stripe.PaymentMethodDetachedEvent>,
    RenderedEvent<StripePaymentMethod, 'payment_method.detached'>
  >,
  Assignable<
    Wire<Stripe.SetupIntentCreatedEvent>,
    RenderedEvent<StripeSetupIntent, 'setup_intent.created'>
  >,
  Assignable<
    Wire<Stripe.SetupIntentSucceededEvent>,
    RenderedEvent<StripeSetupIntent, 'setup_intent.succeeded'>
  >,
  Assignable<
    Wire<Stripe.SetupIntentSetupFailedEvent>,
    RenderedEvent<StripeSetupIntent, 'setup_intent.setup_failed'>
  >,
  Assignable<
    Wire<Stripe.SetupIntentRequiresActionEvent>,
    RenderedEvent<StripeSetupIntent, 'setup_intent.requires_action'>
  >,
  Assignable<
    Wire<Stripe.SetupIntentCanceledEvent>,
    RenderedEvent<StripeSetupIntent, 'setup_intent.canceled'>
  >,
  Assignable<Wire<Stripe.ProductCreatedEvent>, RenderedEvent<StripeProduct, 'product.created'>>,
  Assignable<Wire<Stripe.PriceCreatedEvent>, RenderedEvent<StripePrice, 'price.created'>>,
  Assignable<
    Wire<Stripe.CustomerSubscriptionCreatedEvent>,
    RenderedEvent<StripeSubscription, 'customer.subscription.created'>
  >,
  Assignable<
    Wire<Stripe.CustomerSubscriptionUpdatedEvent>,
    RenderedEvent<StripeSubscription, 'customer.subscription.updated'>
  >,
  Assignable<
    Wire<Stripe.CustomerSubscriptionDeletedEvent>,
    RenderedEvent<StripeSubscription, 'customer.subscription.deleted'>
  >,
  Assignable<
    Wire<Stripe.CustomerSubscriptionTrialWillEndEvent>,
    RenderedEvent<StripeSubscription, 'customer.subscription.trial_will_end'>
  >,
  Assignable<Wire<Stripe.InvoiceCreatedEvent>, RenderedEvent<StripeInvoice, 'invoice.created'>>,
  Assignable<Wire<Stripe.InvoiceFinalizedEvent>, RenderedEvent<StripeInvoice, 'invoice.finalized'>>,
  Assignable<Wire<Stripe.InvoicePaidEvent>, RenderedEvent<StripeInvoice, 'invoice.paid'>>,
  Assignable<
    Wire<Stripe.InvoicePaymentSucceededEvent>,
    RenderedEvent<StripeInvoice, 'invoice.payment_succeeded'>
  >,
  Assignable<
    Wire<Stripe.InvoicePaymentFailedEvent>,
    RenderedEvent<StripeInvoice, 'invoice.payment_failed'>
  >,
  Assignable<Wire<Stripe.InvoiceUpcomingEvent>, RenderedEvent<StripeInvoice, 'invoice.upcoming'>>,
  Assignable<Wire<Stripe.InvoiceVoidedEvent>, RenderedEvent<StripeInvoice, 'invoice.voided'>>,
  Assignable<
    Wire<Stripe.InvoiceMarkedUncollectibleEvent>,
    RenderedEvent<StripeInvoice, 'invoice.marked_uncollectible'>
  >,
  Assignable<
    Wire<Stripe.CheckoutSessionCompletedEvent>,
    RenderedEvent<StripeCheckoutSession, 'checkout.session.completed'>
  >,
  Assignable<
    Wire<Stripe.CheckoutSessionExpiredEvent>,
    RenderedEvent<StripeCheckoutSession, 'checkout.session.expired'>
  >,
  Assignable<
    Wire<Stripe.CheckoutSessionAsyncPaymentSucceededEvent>,
    RenderedEvent<StripeCheckoutSession, 'checkout.session.async_payment_succeeded'>
  >,
  Assignable<
    Wire<Stripe.CheckoutSessionAsyncPaymentFailedEvent>,
    RenderedEvent<StripeCheckoutSession, 'checkout.session.async_payment_failed'>
  >,
];

/** The event types checked above, for the runtime test to compare with the pack's list. */
export const TYPE_CHECKED_EVENTS = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'payment_intent.created',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'charge.succeeded',
  'charge.failed',
  'charge.refunded',
  'charge.dispute.created',
  'payment_method.attached',
  'product.created',
  'price.created',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'invoice.upcoming',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'checkout.session.completed',
  'checkout.session.expired',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'payment_intent.amount_capturable_updated',
  'payment_intent.requires_action',
  'charge.captured',
  'payment_method.detached',
  'setup_intent.created',
  'setup_intent.succeeded',
  'setup_intent.setup_failed',
  'setup_intent.requires_action',
  'setup_intent.canceled',
] as const;
