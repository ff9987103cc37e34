// Fields Stripe leaves out of an object unless `expand[]` asks for them ("includable" fields),
// computed from the account's objects when a path names one: an invoice's `confirmation_secret`
// (the client_secret of the PaymentIntent its finalization made, how an app confirms a
// subscription's first payment since basil) and a Checkout Session's `line_items`.
import type { JsonObject, JsonValue, ReadView } from '../../../src/index.js';
import { invoicePaymentKind } from '../invoice-objects.js';
import { INVOICE_PAYMENT_INDEX } from '../invoice-stages.js';
import { checkoutLineItemList } from './checkout-line-items.js';

type Includable = (view: ReadView, obj: JsonObject) => JsonValue;

function confirmationSecret(view: ReadView, invoice: JsonObject): JsonValue {
  const [payment] = invoicePaymentKind.lookup(view, INVOICE_PAYMENT_INDEX, String(invoice.id));
  const intent =
    payment === undefined ? undefined : view.get('payment_intent', payment.payment.payment_intent);
  const secret = intent?.fields.client_secret;
  // A draft has no PaymentIntent yet; Stripe answers null then.
  return typeof secret === 'string' ? { client_secret: secret, type: 'payment_intent' } : null;
}

const INCLUDABLE: Readonly<Record<string, Readonly<Record<string, Includable>>>> = {
  invoice: { confirmation_secret: confirmationSecret },
  'checkout.session': { line_items: checkoutLineItemList },
};

/** The includable field `name` of `obj`, or undefined when its object type has none such. */
export function included(view: ReadView, obj: JsonObject, name: string): JsonValue | undefined {
  // Own properties only: a path segment is the caller's text (`constructor`, `toString`).
  const type = obj.object;
  if (typeof type !== 'string' || !Object.hasOwn(INCLUDABLE, type)) return undefined;
  const fields = INCLUDABLE[type]!;
  return Object.hasOwn(fields, name) ? fields[name]!(view, obj) : undefined;
}
