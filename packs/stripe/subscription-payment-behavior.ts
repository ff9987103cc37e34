// How a new subscription's first invoice is paid: subscriptions.create's `payment_behavior` and
// `payment_settings`, read and refused in Stripe's words; the status the subscription starts in;
// and how far its first invoice is taken at once. allow_incomplete (Stripe's default) charges the
// default payment method and leaves the subscription incomplete when that fails;
// default_incomplete charges nothing — the invoice is finalized and its payment intent waits for
// the app to confirm it (Stripe.js with latest_invoice.confirmation_secret); error_if_incomplete
// refuses the call with the card's error when the first charge would not succeed, writing nothing.
import type { JsonObject, ProjectedResource, Twin } from '../../src/index.js';
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';
import { cardDecline, declineFor, requiresActionFor } from './cards.js';
import { unknownParameter } from './errors.js';
import { invoiceKind } from './invoice-objects.js';
import { collectDecision, finalizeDecision } from './invoice-stages.js';
import type { StripePrice } from './catalog.js';
import type { StripePaymentMethod } from './payment-methods.js';
import type { SaveDefaultPaymentMethod, SubscriptionStatus } from './subscription-objects.js';

const check = checker('stripe');

type PaymentBehavior = 'allow_incomplete' | 'default_incomplete' | 'error_if_incomplete';

const BEHAVIORS: readonly string[] = [
  'allow_incomplete',
  'default_incomplete',
  'error_if_incomplete',
  'pending_if_incomplete',
];
const SAVE_VALUES: readonly SaveDefaultPaymentMethod[] = ['off', 'on_subscription'];

/** The parameters subscriptions.create takes for its first payment. */
export interface FirstPaymentInput {
  /** allow_incomplete (default), default_incomplete or error_if_incomplete. */
  payment_behavior?: PaymentBehavior;
  /** `on_subscription`: a successful payment becomes the subscription's default_payment_method. */
  payment_settings?: { save_default_payment_method?: SaveDefaultPaymentMethod };
}

export interface FirstPayment {
  readonly behavior: PaymentBehavior;
  readonly save: SaveDefaultPaymentMethod;
  /** Only what the caller gave, for the request's parameters: older logs hash as before. */
  readonly params: JsonObject;
}

function invalid(path: string, message: string): VendorError {
  return new VendorError('stripe', 'invalid_input', 'parameter_invalid', message, { path });
}

export function firstPaymentOf(input: FirstPaymentInput): FirstPayment {
  const params: JsonObject = {};
  let behavior: PaymentBehavior = 'allow_incomplete';
  if (input.payment_behavior !== undefined) {
    const given = check.string(input.payment_behavior, 'payment_behavior');
    if (!BEHAVIORS.includes(given))
      throw invalid(
        'payment_behavior',
        `Invalid payment_behavior: must be one of ${BEHAVIORS.join(', ')}`,
      );
    // Pending updates exist only for a subscription that already has a paid invoice.
    if (given === 'pending_if_incomplete')
      throw invalid(
        'payment_behavior',
        'payment_behavior=pending_if_incomplete is only used with subscription updates; it cannot be passed when creating a subscription.',
      );
    behavior = given as PaymentBehavior;
    params.payment_behavior = behavior;
  }
  let save: SaveDefaultPaymentMethod = 'off';
  if (input.payment_settings !== undefined) {
    const settings = check.object(input.payment_settings, 'payment_settings');
    for (const key of Object.keys(settings))
      if (key !== 'save_default_payment_method')
        throw unknownParameter(`payment_settings.${key}`, ['save_default_payment_method']);
    const value = settings.save_default_payment_method;
    if (value !== undefined) {
      const found = SAVE_VALUES.find((v) => v === value);
      if (found === undefined)
        throw invalid(
          'payment_settings.save_default_payment_method',
          `Invalid payment_settings[save_default_payment_method]: must be one of ${SAVE_VALUES.join(', ')}`,
        );
      save = found;
    }
    params.payment_settings = { save_default_payment_method: save };
  }
  return { behavior, save, params };
}

/** default_incomplete waits for the app to bring a payment method; the others charge one now. */
export function needsPaymentMethod(first: FirstPayment): boolean {
  return first.behavior !== 'default_incomplete';
}

/**
 * The status a subscription without a trial starts in: active when the method it is charged with
 * pays; incomplete when it declines or asks for 3-D Secure. default_incomplete charges nothing, so
 * it starts incomplete unless nothing is due. error_if_incomplete refuses instead of starting
 * incomplete, before anything is written.
 */
export function startingStatus(
  first: FirstPayment,
  method: StripePaymentMethod | null,
  prices: readonly StripePrice[],
  items: readonly { quantity: number }[],
): SubscriptionStatus {
  const due = prices.reduce((sum, p, i) => sum + (p.unit_amount ?? 0) * items[i]!.quantity, 0);
  if (first.behavior === 'default_incomplete') return due === 0 ? 'active' : 'incomplete';
  if (method === null) return 'incomplete';
  const decline = declineFor(method.card.last4);
  const action = requiresActionFor(method.card.last4);
  if (first.behavior === 'error_if_incomplete' && due > 0 && (decline !== undefined || action)) {
    const error = decline ?? cardDecline('authentication_required');
    throw new VendorError('stripe', 'invalid_state', error.code, error.message, {
      details: { decline_code: error.declineCode },
    });
  }
  return decline === undefined && !action ? 'active' : 'incomplete';
}

/**
 * Takes the new subscription's first invoice as far as its behaviour says: finalized and charged
 * (allow_incomplete, error_if_incomplete), or finalized with its payment intent left waiting
 * (default_incomplete) — unless nothing is due, when it is paid at once either way.
 */
export async function settleFirstInvoice(
  twin: Twin,
  id: string,
  first: FirstPayment,
  request?: ProjectedResource,
): Promise<void> {
  const nowSec = Math.floor(twin.world.clock.now() / 1000);
  const waits = first.behavior === 'default_incomplete';
  await twin.applyAtomic((view) =>
    finalizeDecision(twin, view, id, nowSec, request, false, !waits),
  );
  if (waits) {
    const invoice = await twin.read((view) => invoiceKind.fieldsAt(view, id));
    if (invoice !== undefined && invoice.amount_due > 0) return;
  }
  await twin.applyAtomic((view) => collectDecision(twin, view, id, nowSec, request));
}
