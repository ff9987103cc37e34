// Recipes (see recipes.ts) for closing an unpaid invoice: a subscription started
// default_incomplete leaves its first invoice open and unpaid, then that invoice is voided or
// marked uncollectible — what `twinworld send` and `twinworld trigger` run for those types.
import type { JsonObject, Twin } from '../../src/index.js';
import { inputFor } from '../kit/input.js';
import { createPrice, createProduct } from './catalog.js';
import { createCustomer } from './customers.js';
import { markUncollectible, voidInvoice } from './invoice-actions.js';
import type { Recipe } from './recipe.js';
import { createSubscription, type CreateSubscriptionInput } from './subscriptions.js';

const SUBSCRIPTION_KEYS = ['description', 'metadata'];

/** A subscription whose first invoice waits open for a payment (`data` merged into its input). */
async function openFirstInvoice(twin: Twin, data: JsonObject | undefined): Promise<string> {
  const customer = await createCustomer(twin, { email: 'ada@example.com', name: 'Ada Lovelace' });
  const product = await createProduct(twin, { name: 'Pro plan' });
  const price = await createPrice(twin, {
    product: product.id,
    unit_amount: 2000,
    currency: 'usd',
    recurring: { interval: 'month' },
  });
  const input = inputFor<CreateSubscriptionInput>(
    {
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
    } as JsonObject,
    data,
  );
  return (await createSubscription(twin, input)).latest_invoice;
}

function closing(close: (twin: Twin, invoice: string) => Promise<unknown>): Recipe {
  return {
    keys: SUBSCRIPTION_KEYS,
    async run(ctx) {
      const invoice = await openFirstInvoice(ctx.twin, ctx.data);
      await ctx.ready();
      await close(ctx.twin, invoice);
    },
  };
}

export const invoiceRecipes: Readonly<Record<string, Recipe>> = {
  'invoice.voided': closing((twin, invoice) => voidInvoice(twin, invoice)),
  'invoice.marked_uncollectible': closing((twin, invoice) => markUncollectible(twin, invoice)),
};
