// prices.list as an app finds its prices, through the unmodified stripe package, on SQLite and
// PostgreSQL: by lookup_keys[] (one key read from its own index, several merged newest first and
// paged), type, product, active, currency and recurring[interval] / [usage_type], each alone and
// together, with created; a value outside an enum, more than 10 lookup keys and a recurring filter
// not modelled (meter) are refused as Stripe words them.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../src/world/clock.js';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_pricesList01';

describe.each(homes)('stripe-node prices.list filters ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;
  let pro: Stripe.Product;
  let basic: Stripe.Product;
  const p: Record<string, Stripe.Price> = {};

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'prices', Date.parse('2026-05-01T00:00:00Z'));
    stripe = new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
    const advance = () => (twin.world.clock as VirtualClock).advance(60_000);
    pro = await stripe.products.create({ name: 'Pro' });
    basic = await stripe.products.create({ name: 'Basic' });
    const price = (params: Stripe.PriceCreateParams) => stripe.prices.create(params);
    p.proMonthly = await price({
      product: pro.id,
      currency: 'usd',
      unit_amount: 1000,
      recurring: { interval: 'month' },
      lookup_key: 'pro_monthly',
    });
    await advance();
    p.basicMonthly = await price({
      product: basic.id,
      currency: 'usd',
      unit_amount: 500,
      recurring: { interval: 'month' },
    });
    // these two in the same second: ties keep creation order, across lookup keys too
    p.proYearly = await price({
      product: pro.id,
      currency: 'usd',
      unit_amount: 10_000,
      recurring: { interval: 'year' },
      lookup_key: 'pro_yearly',
    });
    p.proLifetime = await price({
      product: pro.id,
      currency: 'eur',
      unit_amount: 50_000,
      lookup_key: 'pro_lifetime',
    });
    await advance();
    p.basicWeekly = await price({
      product: basic.id,
      currency: 'usd',
      unit_amount: 200,
      recurring: { interval: 'week' },
    });
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id);
  const list = async (params: Stripe.PriceListParams) =>
    ids((await stripe.prices.list({ limit: 100, ...params })).data);
  const of = (...names: string[]) => names.map((n) => p[n]!.id);

  it('by lookup_keys: one key, several merged newest first, unknown keys matching nothing', async () => {
    expect(await list({ lookup_keys: ['pro_monthly'] })).toEqual(of('proMonthly'));
    expect(await list({ lookup_keys: ['nobody'] })).toEqual([]);
    expect(
      await list({ lookup_keys: ['pro_monthly', 'pro_lifetime', 'nobody', 'pro_yearly'] }),
    ).toEqual(of('proLifetime', 'proYearly', 'proMonthly'));
    expect(await list({ lookup_keys: ['pro_monthly', 'pro_monthly'] })).toEqual(of('proMonthly'));
    // with the other filters
    expect(await list({ lookup_keys: ['pro_monthly', 'pro_lifetime'], type: 'one_time' })).toEqual(
      of('proLifetime'),
    );
    expect(await list({ lookup_keys: ['pro_monthly'], product: basic.id })).toEqual([]);
    expect(
      await list({
        lookup_keys: ['pro_monthly', 'pro_yearly'],
        created: { lt: p.proYearly!.created },
      }),
    ).toEqual(of('proMonthly'));
  });

  it('several lookup keys page: limit, starting_after, ending_before, has_more, auto-pagination', async () => {
    const lookup_keys = ['pro_monthly', 'pro_yearly', 'pro_lifetime'];
    const first = await stripe.prices.list({ lookup_keys, limit: 2 });
    expect([ids(first.data), first.has_more]).toEqual([of('proLifetime', 'proYearly'), true]);
    const next = await stripe.prices.list({
      lookup_keys,
      limit: 2,
      starting_after: p.proYearly!.id,
    });
    expect([ids(next.data), next.has_more]).toEqual([of('proMonthly'), false]);
    const back = await stripe.prices.list({
      lookup_keys,
      limit: 1,
      ending_before: p.proMonthly!.id,
    });
    expect([ids(back.data), back.has_more]).toEqual([of('proYearly'), true]);
    expect(
      ids(await stripe.prices.list({ lookup_keys, limit: 1 }).autoPagingToArray({ limit: 10 })),
    ).toEqual(of('proLifetime', 'proYearly', 'proMonthly'));
  });

  it('by type, product, active, currency and recurring', async () => {
    const everyOne = of('basicWeekly', 'proLifetime', 'proYearly', 'basicMonthly', 'proMonthly');
    expect(await list({})).toEqual(everyOne);
    expect(await list({ type: 'one_time' })).toEqual(of('proLifetime'));
    expect(await list({ type: 'recurring' })).toEqual(
      everyOne.filter((id) => id !== p.proLifetime!.id),
    );
    expect(await list({ product: basic.id })).toEqual(of('basicWeekly', 'basicMonthly'));
    expect(await list({ product: pro.id, type: 'recurring' })).toEqual(
      of('proYearly', 'proMonthly'),
    );
    expect(await list({ active: true })).toEqual(everyOne);
    expect(await list({ active: false })).toEqual([]);
    expect(await list({ currency: 'eur' })).toEqual(of('proLifetime'));
    expect(await list({ currency: 'usd', product: pro.id })).toEqual(of('proYearly', 'proMonthly'));
    expect(await list({ recurring: { interval: 'month' } })).toEqual(
      of('basicMonthly', 'proMonthly'),
    );
    expect(await list({ recurring: { interval: 'week' }, product: basic.id })).toEqual(
      of('basicWeekly'),
    );
    expect(await list({ recurring: { interval: 'day' } })).toEqual([]);
    expect(await list({ recurring: { usage_type: 'licensed' }, currency: 'usd' })).toEqual(
      of('basicWeekly', 'proYearly', 'basicMonthly', 'proMonthly'),
    );
    expect(await list({ recurring: { usage_type: 'metered' } })).toEqual([]);
    // a filtered list pages as the whole one does
    expect(
      ids(
        await stripe.prices.list({ type: 'recurring', limit: 1 }).autoPagingToArray({ limit: 10 }),
      ),
    ).toEqual(everyOne.filter((id) => id !== p.proLifetime!.id));
  });

  it('products.list by active: no call here archives a product, so active=false lists none', async () => {
    const every = ids((await stripe.products.list({ limit: 100 })).data);
    expect(every).toEqual([basic.id, pro.id]);
    expect(ids((await stripe.products.list({ active: true })).data)).toEqual(every);
    expect(ids((await stripe.products.list({ active: false })).data)).toEqual([]);
  });

  it('refuses a value outside an enum, more than 10 lookup keys, and a filter not modelled', async () => {
    const refusal = (param: string, message: string, code = 'parameter_invalid') => ({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code,
      param,
      message,
    });
    await expect(stripe.prices.list({ type: 'monthly' as never })).rejects.toMatchObject(
      refusal('type', 'Invalid type: must be one of one_time or recurring'),
    );
    await expect(
      stripe.prices.list({ recurring: { interval: 'fortnight' as never } }),
    ).rejects.toMatchObject(
      refusal(
        'recurring[interval]',
        'Invalid recurring[interval]: must be one of day, month, week, or year',
      ),
    );
    await expect(
      stripe.prices.list({ recurring: { usage_type: 'seat' as never } }),
    ).rejects.toMatchObject(
      refusal(
        'recurring[usage_type]',
        'Invalid recurring[usage_type]: must be one of licensed or metered',
      ),
    );
    await expect(
      stripe.prices.list({ lookup_keys: Array.from({ length: 11 }, (_, i) => `k${i}`) }),
    ).rejects.toMatchObject(
      refusal('lookup_keys', 'Array lookup_keys exceeded maximum 10 allowed elements.'),
    );
    await expect(stripe.prices.list({ recurring: { meter: 'mtr_1' } })).rejects.toMatchObject(
      refusal(
        'recurring[meter]',
        'Received unknown parameter: recurring[meter]',
        'parameter_unknown',
      ),
    );
  });
});
