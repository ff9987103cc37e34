// `twinworld send stripe <type>`: for each event type, build what it needs, subscribe the
// target endpoint to exactly that type, then perform the write that causes it. `--data` is
// merged into the causing call's input.
import type { JsonObject } from '../../src/index.js';
import { withData } from '../kit/input.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../kit/vendor-pack.js';
import { createCustomer, deleteCustomer, updateCustomer, type CustomerInput } from './customers.js';
import { cancelPaymentIntent, confirmPaymentIntent, createPaymentIntent, type CreatePaymentIntentInput } from './payment-intents.js';
import { createWebhookEndpoint } from './webhook-endpoints.js';

function subscribe(ctx: ScenarioContext, type: string): ScenarioResult {
  const endpoint = createWebhookEndpoint(ctx.twin, { url: ctx.target.url, enabled_events: [type], secret: ctx.target.secret, description: `twinworld send ${type}` });
  return { endpointKind: 'webhook_endpoint', endpointId: endpoint.id };
}

const customer = (data?: JsonObject) => withData({ email: 'ada@example.com', name: 'Ada Lovelace' }, data) as CustomerInput;
const intent = (data?: JsonObject, customerId?: string) => withData({ amount: 2000, currency: 'usd', ...(customerId ? { customer: customerId } : {}) }, data) as unknown as CreatePaymentIntentInput;

export const scenarios: Readonly<Record<string, Scenario>> = {
  'customer.created': (ctx) => {
    const sub = subscribe(ctx, 'customer.created');
    createCustomer(ctx.twin, customer(ctx.data));
    return sub;
  },
  'customer.updated': (ctx) => {
    const c = createCustomer(ctx.twin, customer());
    const sub = subscribe(ctx, 'customer.updated');
    updateCustomer(ctx.twin, c.id, withData({ email: 'ada.lovelace@example.com', metadata: { plan: 'pro' } }, ctx.data) as CustomerInput);
    return sub;
  },
  'customer.deleted': (ctx) => {
    const c = createCustomer(ctx.twin, customer(ctx.data));
    const sub = subscribe(ctx, 'customer.deleted');
    deleteCustomer(ctx.twin, c.id);
    return sub;
  },
  'payment_intent.created': (ctx) => {
    const c = createCustomer(ctx.twin, customer());
    const sub = subscribe(ctx, 'payment_intent.created');
    createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    return sub;
  },
  'payment_intent.succeeded': (ctx) => {
    const c = createCustomer(ctx.twin, customer());
    const pi = createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = subscribe(ctx, 'payment_intent.succeeded');
    confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_visa' });
    return sub;
  },
  'payment_intent.payment_failed': (ctx) => {
    const c = createCustomer(ctx.twin, customer());
    const pi = createPaymentIntent(ctx.twin, intent(ctx.data, c.id));
    const sub = subscribe(ctx, 'payment_intent.payment_failed');
    confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_chargeDeclined' });
    return sub;
  },
  'payment_intent.canceled': (ctx) => {
    const pi = createPaymentIntent(ctx.twin, intent(ctx.data));
    const sub = subscribe(ctx, 'payment_intent.canceled');
    cancelPaymentIntent(ctx.twin, pi.id, { cancellation_reason: 'requested_by_customer' });
    return sub;
  },
};
