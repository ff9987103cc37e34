// `twinworld send stripe <type>`: for each event type, build what it needs, subscribe the
// target endpoint to exactly that type, then perform the write that causes it. `--data` is
// merged into the causing call's input.
import type { JsonObject } from '../../src/index.js';
import { withData } from '../kit/input.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../kit/vendor-pack.js';
import { createCustomer, deleteCustomer, updateCustomer, type CustomerInput } from './customers.js';
import { cancelPaymentIntent, confirmPaymentIntent, createPaymentIntent, type CreatePaymentIntentInput } from './payment-intents.js';
import { createWebhookEndpoint } from './webhook-endpoints.js';

async function subscribe(ctx: ScenarioContext, type: string): Promise<ScenarioResult> {
  const endpoint = await createWebhookEndpoint(ctx.twin, { url: ctx.target.url, enabled_events: [type], secret: ctx.target.secret, description: `twinworld send ${type}` });
  return { endpointKind: 'webhook_endpoint', endpointId: endpoint.id };
}

const customer = (data?: JsonObject) => withData({ email: 'ada@example.com', name: 'Ada Lovelace' }, data) as CustomerInput;
const intent = (data?: JsonObject, customerId?: string) => withData({ amount: 2000, currency: 'usd', ...(customerId ? { customer: customerId } : {}) }, data) as unknown as CreatePaymentIntentInput;

export const scenarios: Readonly<Record<string, Scenario>> = {
  'customer.created': async (ctx) => {
    const sub = await subscribe(ctx, 'customer.created');
    await createCustomer(ctx.twin, customer(ctx.data));
    return sub;
  },
  'customer.updated': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const sub = await subscribe(ctx, 'customer.updated');
    await updateCustomer(ctx.twin, c.id, withData({ email: 'ada.lovelace@example.com', metadata: { plan: 'pro' } }, ctx.data) as CustomerInput);
    return sub;
  },
  'customer.deleted': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer(ctx.data));
    const sub = await subscribe(ctx, 'customer.deleted');
    await deleteCustomer(ctx.twin, c.id);
    return sub;
  },
  'payment_intent.created': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const sub = await subscribe(ctx, 'payment_intent.created');
    await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    return sub;
  },
  'payment_intent.succeeded': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = await subscribe(ctx, 'payment_intent.succeeded');
    await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_visa' });
    return sub;
  },
  'payment_intent.payment_failed': async (ctx) => {
    const c = await createCustomer(ctx.twin, customer());
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = await subscribe(ctx, 'payment_intent.payment_failed');
    await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_chargeDeclined' });
    return sub;
  },
  'payment_intent.canceled': async (ctx) => {
    const pi = await createPaymentIntent(ctx.twin, intent(ctx.data));
    const sub = await subscribe(ctx, 'payment_intent.canceled');
    await cancelPaymentIntent(ctx.twin, pi.id, { cancellation_reason: 'requested_by_customer' });
    return sub;
  },
};
