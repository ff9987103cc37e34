// A Checkout Session's line items as Stripe answers them: `item` objects (li_…) with amounts, the
// product's name as description and the whole price, rendered at read time from the
// {price, quantity} the session keeps beside it (LINE_ITEMS, lineItemsKind), so no log changes shape.
// A line's price is a catalog price or the inline one its `price_data` made (catalog.ts).
// `checkout.sessions.listLineItems`, `expand[]=line_items` and the hosted page show the same items.
import { sha256Hex, type JsonObject, type ReadView } from '../../../src/index.js';
import { anyPrice, anyProduct } from '../catalog.js';
import { lineItemsKind } from '../checkout-session-objects.js';
import { asJson } from '../common.js';

/** Stable across reads: the session and the line's place name it (Stripe's ids are random). */
function lineId(session: string, index: number): string {
  return `li_${sha256Hex(`twinworld checkout line\n${session}\n${index}`).slice(0, 24)}`;
}

export function checkoutLineItems(view: ReadView, session: string): JsonObject[] {
  const kept = lineItemsKind.fieldsAt(view, session)?.data ?? [];
  return kept.map((line, i) => {
    const price = anyPrice(view, line.price) ?? null;
    const product = price === null ? undefined : anyProduct(view, price.product);
    const unit = typeof price?.unit_amount === 'number' ? price.unit_amount : 0;
    const subtotal = unit * line.quantity;
    return {
      id: lineId(session, i),
      object: 'item',
      adjustable_quantity: null,
      amount_discount: 0,
      amount_subtotal: subtotal,
      amount_tax: 0,
      amount_total: subtotal,
      currency: typeof price?.currency === 'string' ? price.currency : null,
      description: product?.name ?? null,
      metadata: {},
      price: price === null ? null : asJson({ ...price }),
      quantity: line.quantity,
    };
  });
}

/** The items as the list a session's `expand[]=line_items` embeds: its first page. */
export function checkoutLineItemList(view: ReadView, session: JsonObject): JsonObject {
  const id = String(session.id);
  const items = checkoutLineItems(view, id);
  return {
    object: 'list',
    data: items.slice(0, 10),
    has_more: items.length > 10,
    url: `/v1/checkout/sessions/${id}/line_items`,
  };
}
