// `created` filters on Stripe lists, as the unmodified stripe package sends them
// (`created[gte]=…` or `created=…`), on SQLite and PostgreSQL: every list Stripe filters so
// answers what the unfiltered list holds in the window, in the same order, and pages through the
// window (cursors, has_more, auto-pagination) as through the whole list; a bound that is not an
// integer is Stripe's parameter_invalid_integer naming it, a bound Stripe does not know is
// parameter_unknown, and a list Stripe does not filter by `created` refuses it.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../src/world/clock.js';
import { homes } from '../support/backends.js';
import { startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_createdFilters01';

interface Listed {
  readonly id: string;
  readonly created: number;
}
type Page = Promise<{ data: Listed[] }> & {
  autoPagingToArray(o: { limit: number }): Promise<Listed[]>;
};

describe.each(homes)('stripe-node created filters ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;
  /** Each customer made, oldest first, 10 s apart; the last two in the same second. */
  const customers: Listed[] = [];
  /** When the second round of every other object began. */
  let second = 0;

  const advance = (ms: number) => (twin.world.clock as VirtualClock).advance(ms);

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec, 'created', Date.parse('2026-05-01T00:00:00Z'));
    stripe = new Stripe(KEY, { host: '127.0.0.1', port: twin.listening.port, protocol: 'http' });
    await stripe.webhookEndpoints.create({
      url: `${twin.receiver.url}/hooks`,
      enabled_events: ['*'],
    });
    for (let i = 0; i < 6; i++) {
      if (i < 5) await advance(10_000);
      customers.push(await stripe.customers.create({ email: `c${i}@example.com` }));
    }
    // two rounds of every other listed object, 100 s apart
    for (const round of [0, 1]) {
      await advance(100_000);
      if (round === 1) second = Math.floor(twin.world.clock.now() / 1000);
      const customer = await stripe.customers.create({ email: `payer${round}@example.com` });
      const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
      const product = await stripe.products.create({ name: `Plan ${round}` });
      const monthly = await stripe.prices.create({
        product: product.id,
        unit_amount: 1200,
        currency: 'usd',
        recurring: { interval: 'month' },
      });
      const once = await stripe.prices.create({
        product: product.id,
        unit_amount: 500,
        currency: 'usd',
      });
      await stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: monthly.id }],
        default_payment_method: pm.id,
      });
      await stripe.paymentIntents.create({
        amount: 800,
        currency: 'usd',
        customer: customer.id,
        payment_method: 'pm_card_visa',
        confirm: true,
      });
      await stripe.setupIntents.create({ customer: customer.id });
      await stripe.checkout.sessions.create({
        mode: 'payment',
        line_items: [{ price: once.id, quantity: 1 }],
        success_url: 'https://app.example/success',
        customer: customer.id,
      });
    }
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  const ids = (xs: readonly Listed[]) => xs.map((x) => x.id);
  const at = (i: number) => customers[i]!.created;

  it('customers.list: gt, gte, lt, lte and one integer, newest first, ties kept', async () => {
    expect(new Set(customers.map((c) => c.created)).size).toBe(5);
    const newest = [...customers].reverse();
    const list = async (created: Stripe.RangeQueryParam | number) =>
      ids((await stripe.customers.list({ created, limit: 100 })).data);
    const mine = (keep: (t: number) => boolean) =>
      ids(newest.filter((c) => keep(c.created) && customers.includes(c)));
    // the payers made later are newer than every customer here: bound above
    expect(await list({ gte: at(2), lte: at(5) })).toEqual(mine((t) => t >= at(2)));
    expect(await list({ gt: at(2), lte: at(5) })).toEqual(mine((t) => t > at(2)));
    expect(await list({ lt: at(2) })).toEqual(mine((t) => t < at(2)));
    expect(await list({ lte: at(2) })).toEqual(mine((t) => t <= at(2)));
    expect(await list({ gte: at(1), lt: at(3) })).toEqual(mine((t) => t >= at(1) && t < at(3)));
    expect(await list(at(3))).toEqual([customers[3]!.id]);
    // the last two share a second: both, newest first
    expect(await list(at(5))).toEqual([customers[5]!.id, customers[4]!.id]);
    // an empty window
    expect(await list({ gt: at(3), lt: at(3) })).toEqual([]);
    expect(await list({ gt: at(5), lte: at(5) })).toEqual([]);
  });

  it('pages through a window: starting_after, ending_before, has_more and auto-pagination', async () => {
    const created = { gte: at(1), lte: at(5) };
    const window = ids([...customers].reverse().slice(0, 5));
    const first = await stripe.customers.list({ created, limit: 2 });
    expect([ids(first.data), first.has_more]).toEqual([window.slice(0, 2), true]);
    const next = await stripe.customers.list({ created, limit: 2, starting_after: window[1]! });
    expect([ids(next.data), next.has_more]).toEqual([window.slice(2, 4), true]);
    const last = await stripe.customers.list({ created, limit: 2, starting_after: window[3]! });
    expect([ids(last.data), last.has_more]).toEqual([window.slice(4), false]);
    const back = await stripe.customers.list({ created, limit: 2, ending_before: window[4]! });
    expect([ids(back.data), back.has_more]).toEqual([window.slice(2, 4), true]);
    const top = await stripe.customers.list({ created, limit: 2, ending_before: window[2]! });
    expect([ids(top.data), top.has_more]).toEqual([window.slice(0, 2), false]);
    expect(
      ids(await stripe.customers.list({ created, limit: 2 }).autoPagingToArray({ limit: 50 })),
    ).toEqual(window);
    // a window that ends where the list does: has_more false on the page that fills it
    const full = await stripe.customers.list({ created: { lte: at(1) }, limit: 2 });
    expect([ids(full.data), full.has_more]).toEqual([[customers[1]!.id, customers[0]!.id], false]);
  });

  it('every list Stripe filters by created answers the window of the unfiltered list', async () => {
    const lists: Record<
      string,
      (params: { created?: Stripe.RangeQueryParam; limit: number }) => Page
    > = {
      'customers.list': (p) => stripe.customers.list(p) as never,
      'products.list': (p) => stripe.products.list(p) as never,
      'prices.list': (p) => stripe.prices.list(p) as never,
      'subscriptions.list': (p) => stripe.subscriptions.list(p) as never,
      'invoices.list': (p) => stripe.invoices.list(p) as never,
      'paymentIntents.list': (p) => stripe.paymentIntents.list(p) as never,
      'charges.list': (p) => stripe.charges.list(p) as never,
      'setupIntents.list': (p) => stripe.setupIntents.list(p) as never,
      'checkout.sessions.list': (p) => stripe.checkout.sessions.list(p) as never,
      'events.list': (p) => stripe.events.list(p) as never,
    };
    for (const [name, list] of Object.entries(lists)) {
      const all = await list({ limit: 100 }).autoPagingToArray({ limit: 1000 });
      const later = all.filter((x) => x.created >= second);
      const earlier = all.filter((x) => x.created < second);
      expect([name, later.length > 0, earlier.length > 0]).toEqual([name, true, true]);
      const gte = await list({ created: { gte: second }, limit: 3 }).autoPagingToArray({
        limit: 1000,
      });
      expect([name, ids(gte)]).toEqual([name, ids(later)]);
      const lt = await list({ created: { lt: second }, limit: 3 }).autoPagingToArray({
        limit: 1000,
      });
      expect([name, ids(lt)]).toEqual([name, ids(earlier)]);
    }
  });

  it('refuses a bound that is not an integer, a bound Stripe does not know, and created where Stripe takes none', async () => {
    const refusal = (param: string, message: string, code = 'parameter_invalid_integer') => ({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code,
      param,
      message,
    });
    await expect(
      stripe.customers.list({ created: { gte: 'yesterday' as never } }),
    ).rejects.toMatchObject(refusal('created[gte]', 'Invalid integer: yesterday'));
    await expect(stripe.charges.list({ created: { lt: 1.5 } })).rejects.toMatchObject(
      refusal('created[lt]', 'Invalid integer: 1.5'),
    );
    await expect(stripe.events.list({ created: 'soon' as never })).rejects.toMatchObject(
      refusal('created', 'Invalid integer: soon'),
    );
    await expect(stripe.invoices.list({ created: { after: 5 } as never })).rejects.toMatchObject(
      refusal('created[after]', 'Received unknown parameter: created[after]', 'parameter_unknown'),
    );
    await expect(
      stripe.webhookEndpoints.list({ created: { gte: 1 } } as never),
    ).rejects.toMatchObject(
      refusal('created', 'Received unknown parameter: created', 'parameter_unknown'),
    );
    // an unset bound is no bound
    expect(
      ids((await stripe.customers.list({ created: { gte: '' as never, lte: at(0) } })).data),
    ).toEqual([customers[0]!.id]);
  });
});
