// Releasing an authorization as the unmodified stripe package sees it over loopback, on SQLite and
// PostgreSQL. Since API version 2025-03-31.basil (the twin answers a later one) Stripe makes no
// Refund when an authorized intent is canceled or captured in part: the charge keeps
// amount_refunded 0 and refunded false, no charge.refunded or refund event is sent, and a later
// refund can return only what was captured. Every packet is verified with the endpoint's secret.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homes } from '../support/backends.js';
import { startStripeSdk, type StripeSdk, type StripeTwin } from './stripe-support.js';

const KEY = 'sk_test_holdRelease';

describe.each(homes)('stripe-node releases an authorization ($name)', (home) => {
  let sdk: StripeSdk;
  let twin: StripeTwin;
  let stripe: Stripe;
  let cleanup: () => void;

  /** The types of the delivered events about `ids` (the object, or a refund of it), in order. */
  async function typesAbout(...ids: string[]): Promise<string[]> {
    return (await sdk.delivered())
      .filter((e) => {
        const o = e.data.object as { id?: string; charge?: string; payment_intent?: string };
        return ids.some((id) => o.id === id || o.charge === id || o.payment_intent === id);
      })
      .map((e) => e.type);
  }

  async function authorized(amount: number): Promise<Stripe.PaymentIntent> {
    const pi = await stripe.paymentIntents.create({
      amount,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    expect(pi).toMatchObject({ status: 'requires_capture', amount_capturable: amount });
    return pi;
  }

  async function refundsOf(pi: Stripe.PaymentIntent): Promise<Stripe.Refund[]> {
    return (await stripe.refunds.list({ payment_intent: pi.id })).data;
  }

  beforeAll(async () => {
    const fresh = home.fresh();
    cleanup = fresh.cleanup;
    sdk = await startStripeSdk(fresh.spec, 'hold-release', '2026-07-01T00:00:00Z', KEY);
    ({ twin, stripe } = sdk);
  });
  afterAll(async () => {
    await twin?.close();
    cleanup?.();
  });

  it('cancel: no Refund, the charge not refunded, payment_intent.canceled the only new event', async () => {
    const pi = await authorized(1800);
    const chargeId = pi.latest_charge as string;
    const canceled = await stripe.paymentIntents.cancel(pi.id);
    expect(canceled).toMatchObject({
      status: 'canceled',
      amount_capturable: 0,
      amount_received: 0,
    });
    expect(await stripe.charges.retrieve(chargeId)).toMatchObject({
      captured: false,
      amount_captured: 0,
      amount_refunded: 0,
      refunded: false,
    });
    expect(await refundsOf(pi)).toEqual([]);
    expect((await stripe.refunds.list({ charge: chargeId })).data).toEqual([]);
    expect(await typesAbout(pi.id, chargeId)).toEqual([
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.amount_capturable_updated',
      'payment_intent.canceled',
    ]);
  });

  it('partial capture: no Refund for the rest; a refund then returns only what was captured', async () => {
    const pi = await authorized(1500);
    const chargeId = pi.latest_charge as string;
    const captured = await stripe.paymentIntents.capture(pi.id, { amount_to_capture: 1200 });
    expect(captured).toMatchObject({
      status: 'succeeded',
      amount_capturable: 0,
      amount_received: 1200,
    });
    expect(await stripe.charges.retrieve(chargeId)).toMatchObject({
      captured: true,
      amount_captured: 1200,
      amount_refunded: 0,
      refunded: false,
    });
    expect(await refundsOf(pi)).toEqual([]);
    expect(await typesAbout(pi.id, chargeId)).toEqual([
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.amount_capturable_updated',
      'charge.captured',
      'payment_intent.succeeded',
    ]);

    // Only the 1200 captured can come back, and refunding all of it refunds the charge in full.
    await expect(
      stripe.refunds.create({ payment_intent: pi.id, amount: 1300 }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', param: 'amount' });
    const refund = await stripe.refunds.create({ payment_intent: pi.id });
    expect(refund).toMatchObject({ amount: 1200, charge: chargeId, payment_intent: pi.id });
    expect(await stripe.charges.retrieve(chargeId)).toMatchObject({
      amount_refunded: 1200,
      refunded: true,
    });
    expect((await refundsOf(pi)).map((r) => r.id)).toEqual([refund.id]);
    expect((await stripe.refunds.list({ charge: chargeId })).data.map((r) => r.id)).toEqual([
      refund.id,
    ]);
    const refunded = (await sdk.delivered()).filter(
      (e) => e.type === 'charge.refunded' && (e.data.object as Stripe.Charge).id === chargeId,
    );
    expect(refunded).toHaveLength(1);
    expect(refunded[0]!.data.object).toMatchObject({
      amount_captured: 1200,
      amount_refunded: 1200,
    });
  });

  it('an authorization is released by canceling its intent, not by refunding its charge', async () => {
    const pi = await authorized(900);
    await expect(stripe.refunds.create({ payment_intent: pi.id })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      message: expect.stringContaining('You must cancel the PaymentIntent'),
    });
    expect(await stripe.charges.retrieve(pi.latest_charge as string)).toMatchObject({
      amount_refunded: 0,
      refunded: false,
    });
    expect(await refundsOf(pi)).toEqual([]);
  });
});
