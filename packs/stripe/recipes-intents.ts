// Recipes (see recipes.ts) for the events of manual capture, 3-D Secure, detaching a payment method
// and setup intents: what `twinworld send` and `twinworld trigger` run for each of those types.
import type { JsonObject, Twin } from '../../src/index.js';
import { inputFor } from '../kit/input.js';
import { createCustomer } from './customers.js';
import { capturePaymentIntent } from './payment-intent-changes.js';
import {
  confirmPaymentIntent,
  createPaymentIntent,
  type CreatePaymentIntentInput,
} from './payment-intents.js';
import { attachPaymentMethod, detachPaymentMethod } from './payment-methods.js';
import type { Recipe } from './recipe.js';
import {
  cancelSetupIntent,
  confirmSetupIntent,
  createSetupIntent,
  type CreateSetupIntentInput,
} from './setup-intents.js';

const INTENT_KEYS = ['amount', 'currency', 'description', 'metadata'];
const SETUP_KEYS = ['description', 'metadata', 'usage'];

async function ada(twin: Twin) {
  return createCustomer(twin, { email: 'ada@example.com', name: 'Ada Lovelace' });
}

function manualIntent(data: JsonObject | undefined, customer: string) {
  return inputFor<CreatePaymentIntentInput>(
    { amount: 2000, currency: 'usd', customer, capture_method: 'manual' },
    data,
  );
}

/** A manual-capture intent confirmed with pm_card_visa; `ready` before confirm or before capture. */
function authorized(readyBefore: 'confirm' | 'capture'): Recipe {
  return {
    keys: INTENT_KEYS,
    async run(ctx) {
      const c = await ada(ctx.twin);
      const pi = await createPaymentIntent(ctx.twin, manualIntent(ctx.data, c.id));
      if (readyBefore === 'confirm') await ctx.ready();
      await confirmPaymentIntent(ctx.twin, pi.id, { payment_method: 'pm_card_visa' });
      if (readyBefore === 'capture') {
        await ctx.ready();
        await capturePaymentIntent(ctx.twin, pi.id);
      }
    },
  };
}

/** A setup intent for a customer; `ready` before the step that sends the event. */
function setup(step: 'create' | 'confirm' | 'cancel', card = 'pm_card_visa'): Recipe {
  return {
    keys: SETUP_KEYS,
    async run(ctx) {
      const c = await ada(ctx.twin);
      if (step === 'create') await ctx.ready();
      const si = await createSetupIntent(
        ctx.twin,
        inputFor<CreateSetupIntentInput>({ customer: c.id }, ctx.data),
      );
      if (step === 'create') return;
      await ctx.ready();
      if (step === 'cancel')
        await cancelSetupIntent(ctx.twin, si.id, { cancellation_reason: 'abandoned' });
      else await confirmSetupIntent(ctx.twin, si.id, { payment_method: card });
    },
  };
}

export const intentRecipes: Readonly<Record<string, Recipe>> = {
  'payment_intent.amount_capturable_updated': authorized('confirm'),
  'charge.captured': authorized('capture'),
  'payment_intent.requires_action': {
    keys: INTENT_KEYS,
    async run(ctx) {
      const c = await ada(ctx.twin);
      const pi = await createPaymentIntent(
        ctx.twin,
        inputFor<CreatePaymentIntentInput>(
          { amount: 2000, currency: 'usd', customer: c.id },
          ctx.data,
        ),
      );
      await ctx.ready();
      await confirmPaymentIntent(ctx.twin, pi.id, {
        payment_method: 'pm_card_authenticationRequired',
      });
    },
  },
  'payment_method.detached': {
    keys: ['payment_method'],
    async run(ctx) {
      const c = await ada(ctx.twin);
      const token =
        typeof ctx.data?.payment_method === 'string' ? ctx.data.payment_method : 'pm_card_visa';
      const pm = await attachPaymentMethod(ctx.twin, token, { customer: c.id });
      await ctx.ready();
      await detachPaymentMethod(ctx.twin, pm.id);
    },
  },
  'setup_intent.created': setup('create'),
  'setup_intent.succeeded': setup('confirm'),
  'setup_intent.setup_failed': setup('confirm', 'pm_card_chargeDeclined'),
  'setup_intent.requires_action': setup('confirm', 'pm_card_authenticationRequired'),
  'setup_intent.canceled': setup('cancel'),
};
