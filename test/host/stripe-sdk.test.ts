// The Stripe surface as the unmodified stripe package sees it (only host, port and protocol set;
// its default retries and idempotency keys left on), against a real host on loopback, on SQLite
// and on PostgreSQL.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLines } from '../../src/world/replay.js';
import { collect, homes } from '../support/backends.js';
import { droppingListener, received, startStripeTwin, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_twinworldConformanceKey01';
const OTHER_KEY = 'sk_test_anotherAccountKey02';

function client(port: number, key = KEY): Stripe {
  return new Stripe(key, { host: '127.0.0.1', port, protocol: 'http' });
}

describe.each(homes)('stripe-node against the Stripe surface ($name)', (home) => {
  let twin: StripeTwin;
  let stripe: Stripe;
  let secret: string;
  let cleanup: () => void;

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    twin = await startStripeTwin(fresh.spec);
    stripe = client(twin.listening.port);
    const endpoint = await stripe.webhookEndpoints.create({
      url: `${twin.receiver.url}/stripe`,
      enabled_events: ['*'],
    });
    expect(endpoint.secret).toMatch(/^whsec_/);
    secret = endpoint.secret!;
    // The secret is answered once: a retrieve or a list never carries it.
    expect((await stripe.webhookEndpoints.retrieve(endpoint.id)).secret).toBeUndefined();
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('customer CRUD, search by email, and customer.* webhooks that verify with the whsec_ secret', async () => {
    const before = twin.receiver.requests.length;
    const c = await stripe.customers.create({
      email: 'ada@example.com',
      name: 'Ada',
      metadata: { tier: 'free' },
    });
    expect(c).toMatchObject({
      object: 'customer',
      email: 'ada@example.com',
      metadata: { tier: 'free' },
    });
    expect(c.lastResponse.statusCode).toBe(200);
    expect(await stripe.customers.retrieve(c.id)).toMatchObject({ id: c.id, name: 'Ada' });
    const updated = await stripe.customers.update(c.id, { name: 'Ada L', metadata: { tier: '' } });
    expect(updated).toMatchObject({ name: 'Ada L', metadata: {} });
    const found = await stripe.customers.search({ query: "email:'ada@example.com'" });
    expect(found.data.map((x) => x.id)).toEqual([c.id]);
    expect(await stripe.customers.del(c.id)).toEqual(
      expect.objectContaining({ id: c.id, deleted: true }),
    );
    expect(await stripe.customers.retrieve(c.id)).toMatchObject({ id: c.id, deleted: true });

    const packets = (await received(twin.receiver, before + 3)).slice(before);
    const events = packets.map((p) =>
      stripe.webhooks.constructEvent(p.body, String(p.headers['stripe-signature']), secret),
    );
    expect(events.map((e) => e.type)).toEqual([
      'customer.created',
      'customer.updated',
      'customer.deleted',
    ]);
    for (const [i, event] of events.entries()) {
      // events.retrieve answers exactly what was delivered
      const got = await stripe.events.retrieve(event.id);
      const { lastResponse: _r, ...body } = got as Stripe.Event & { lastResponse: unknown };
      expect(body).toEqual(JSON.parse(packets[i]!.body));
    }
    const listed = await stripe.events.list({ type: 'customer.*', limit: 3 });
    expect(listed.data.map((e) => e.id)).toEqual(events.map((e) => e.id).reverse());
  });

  it('250 customers list newest first through auto-pagination; another key is another account', async () => {
    const other = client(twin.listening.port, OTHER_KEY);
    const made: string[] = [];
    for (let i = 0; i < 250; i++) made.push((await other.customers.create({ name: `c${i}` })).id);
    const seen: string[] = [];
    for await (const c of other.customers.list({ limit: 100 })) seen.push(c.id);
    expect(seen).toEqual(made.reverse());
    // the first key's account holds none of them
    const mine = await stripe.customers.list({ limit: 100 });
    expect(mine.data.filter((c) => made.includes(c.id))).toEqual([]);
    await expect(stripe.customers.retrieve(made[0]!)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
    });
  });

  it('pm_card_visa succeeds; pm_card_chargeDeclined throws StripeCardError card_declined', async () => {
    const customer = await stripe.customers.create({ email: 'pay@example.com' });
    const ok = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
    });
    const paid = await stripe.paymentIntents.confirm(ok.id, { payment_method: 'pm_card_visa' });
    expect(paid.status).toBe('succeeded');
    const charge = await stripe.charges.retrieve(paid.latest_charge as string);
    expect(charge).toMatchObject({ amount: 2000, paid: true, payment_intent: ok.id });
    const expanded = await stripe.paymentIntents.retrieve(ok.id, { expand: ['latest_charge'] });
    expect((expanded.latest_charge as Stripe.Charge).id).toBe(charge.id);

    const bad = await stripe.paymentIntents.create({ amount: 500, currency: 'usd' });
    const error = await stripe.paymentIntents
      .confirm(bad.id, { payment_method: 'pm_card_chargeDeclined' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      code: 'card_declined',
      decline_code: 'generic_decline',
      statusCode: 402,
    });
    expect((error as Stripe.errors.StripeCardError).payment_intent?.status).toBe(
      'requires_payment_method',
    );
    // create+confirm in one call, as apps often do
    const oneCall = await stripe.paymentIntents.create({
      amount: 700,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    expect(oneCall.status).toBe('succeeded');
    const refund = await stripe.refunds.create({
      payment_intent: oneCall.id,
      amount: 200,
      metadata: { order: '42' },
    });
    expect(refund).toMatchObject({ object: 'refund', amount: 200, metadata: { order: '42' } });
    expect((await stripe.refunds.retrieve(refund.id)).metadata).toEqual({ order: '42' });
  });

  it('a connection dropped after the commit is retried by stripe-node into the first answer: one write, one event', async () => {
    const flaky = await droppingListener(
      twin.host,
      (_req, body) => body.includes('name=dropped-once') && flakyFirst(),
    );
    let first = true;
    function flakyFirst(): boolean {
      const was = first;
      first = false;
      return was;
    }
    try {
      const viaFlaky = client(flaky.port);
      await twin.host.idle();
      const c = await viaFlaky.customers.create({ name: 'dropped-once' });
      expect(flaky.dropped).toHaveLength(1);
      expect(JSON.parse(flaky.dropped[0]!).id).toBe(c.id);
      expect(c.lastResponse.headers['idempotent-replayed']).toBe('true');
      await twin.host.idle();
      const all = await collect(stripe.customers.list({ limit: 100 }));
      expect(all.filter((x) => x.name === 'dropped-once').map((x) => x.id)).toEqual([c.id]);
      const mine = () =>
        twin.receiver.requests.filter(
          (p) => JSON.parse(p.body).data.object.name === 'dropped-once',
        );
      const until = Date.now() + 10_000;
      while (mine().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await twin.host.idle();
      expect(mine().map((p) => JSON.parse(p.body).type)).toEqual(['customer.created']);
    } finally {
      await flaky.close();
    }
  });

  it('the same key with other parameters throws StripeIdempotencyError; with the same, the saved answer', async () => {
    const a = await stripe.customers.create(
      { email: 'k@example.com' },
      { idempotencyKey: 'conformance-key-1' },
    );
    const again = await stripe.customers.create(
      { email: 'k@example.com' },
      { idempotencyKey: 'conformance-key-1' },
    );
    expect(again.id).toBe(a.id);
    await expect(
      stripe.customers.create(
        { email: 'other@example.com' },
        { idempotencyKey: 'conformance-key-1' },
      ),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    // a saved 402 is replayed as a 402
    const pi = await stripe.paymentIntents.create({ amount: 300, currency: 'eur' });
    const decline = () =>
      stripe.paymentIntents.confirm(
        pi.id,
        { payment_method: 'pm_card_chargeDeclined' },
        { idempotencyKey: 'decline-1' },
      );
    const e1 = await decline().catch((e: unknown) => e);
    const e2 = await decline().catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(e2).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((e2 as Stripe.errors.StripeCardError).headers?.['idempotent-replayed']).toBe('true');
  });

  it('a search answers next_page while more match, and stripe-node pages through it', async () => {
    const made = [];
    for (const name of ['One', 'Two', 'Three'])
      made.push(await stripe.customers.create({ email: 'paged@example.com', name }));
    const paged = await stripe.customers
      .search({ query: "email:'paged@example.com'", limit: 1 })
      .autoPagingToArray({ limit: 10 });
    expect(paged.map((x) => x.id).sort()).toEqual(made.map((c) => c.id).sort());
    await expect(
      stripe.customers.search({ query: "email:'paged@example.com'", page: 'cus_nowhere' }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'page' });
  });

  it('parameter names that are Object internals stay names: nothing reaches Object.prototype', async () => {
    const send = (method: string, path: string, body?: string) =>
      fetch(`http://127.0.0.1:${twin.listening.port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        ...(body === undefined ? {} : { body }),
      });
    const polluting = await send('GET', '/v1/customers?__proto__[expand]=x');
    expect(polluting.status).toBe(400);
    expect(((await polluting.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param: '__proto__[expand]',
    });
    const nested = await send('POST', '/v1/customers', 'metadata[constructor][prototype][zz]=1');
    expect(nested.status).toBe(400);
    expect(((await nested.json()) as { error: unknown }).error).toMatchObject({
      param: 'metadata[constructor]',
    });
    expect(({} as Record<string, unknown>).expand).toBeUndefined();
    expect(({} as Record<string, unknown>).zz).toBeUndefined();
    // a metadata key named like an internal is an ordinary key; a parameter so named is unknown
    const c = await stripe.customers.create({ metadata: { constructor: 'x', toString: 'y' } });
    expect(c.metadata).toEqual({ constructor: 'x', toString: 'y' });
    await expect(stripe.customers.create({ constructor: 'x' } as never)).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'constructor',
    });
    // and the surface still answers
    expect((await stripe.customers.list({ limit: 1 })).object).toBe('list');
  });

  it('refusals: unknown route 404 invalid_request_error, unknown parameter named, live key, bad key', async () => {
    await expect(stripe.rawRequest('GET', '/v1/nothing_here', {})).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
    });
    await expect(stripe.customers.create({ colour: 'blue' } as never)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'parameter_unknown',
      param: 'colour',
    });
    await expect(
      stripe.customers.create({ invoice_settings: { color: 'x' } } as never),
    ).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'invoice_settings[color]',
    });
    // a number where an address goes reaches the twin as the text "42", as it reaches Stripe
    await expect(stripe.customers.create({ email: 42 } as never)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'email_invalid',
      param: 'email',
      message: 'Invalid email address: 42',
    });
    await expect(
      client(twin.listening.port, 'sk_live_abcdefghijklmnop1234').customers.list(),
    ).rejects.toMatchObject({
      type: 'StripeAuthenticationError',
      statusCode: 401,
    });
    await expect(client(twin.listening.port, 'not-a-key').customers.list()).rejects.toBeInstanceOf(
      Stripe.errors.StripeAuthenticationError,
    );
  });

  it('1,000 GETs append nothing; each log replays to the live hash; no API key or secret in any log', async () => {
    await twin.host.idle();
    const names = await twin.world.twinNames();
    const heads = async () => Promise.all(names.map((n) => twin.world.twin(n).head()));
    const before = await heads();
    const customers = await stripe.customers.list({ limit: 5 });
    for (let batch = 0; batch < 20; batch++)
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i % 2 === 0
            ? stripe.customers.list({ limit: 3 })
            : stripe.customers.retrieve(customers.data[0]!.id),
        ),
      );
    expect(await heads()).toEqual(before);
    for (const name of names) {
      const twinOf = twin.world.twin(name);
      const lines = await collect(twinOf.exportLines());
      const text = lines.join('\n');
      for (const s of [KEY, OTHER_KEY, secret]) expect(text).not.toContain(s);
      expect((await replayLines(lines)).hash).toBe(await twinOf.hash());
    }
  });
});
