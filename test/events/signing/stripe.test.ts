// Stripe packets against stripe-node's own verifier and generator, and ours against both.

import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { getScheme, stripeScheme } from '../../../src/events/signing/index.js';
import { expectTwinError, nowSec, secret } from './support.js';

const stripe = new Stripe('sk_test_x');
const SECRET = secret('whsec_stripeTwinSecret0000000000000001');
const OLD_SECRET = secret('whsec_stripeTwinSecret0000000000000000');
const BODY = JSON.stringify({
  id: 'evt_1Twin',
  object: 'event',
  type: 'customer.updated',
  data: { object: { id: 'cus_1', email: 'é@example.com' } },
});
const T = 1_700_000_000;

function sign(body = BODY, timestampSec = T, secrets: readonly string[] = [SECRET]): string {
  const headers = stripeScheme.sign({ body, secrets, timestampSec, messageId: 'evt_1Twin' });
  expect(Object.keys(headers)).toEqual(['Stripe-Signature']);
  return headers['Stripe-Signature'] as string;
}

describe('stripe: packets accepted and refused by stripe-node', () => {
  it('matches the reference vector computed with generateTestHeaderString', () => {
    const headers = stripeScheme.sign({
      body: '{"id":"evt_test","object":"event"}',
      secrets: ['whsec_test'],
      timestampSec: 1700000000,
      messageId: 'x',
    });
    expect(headers).toEqual({
      'Stripe-Signature':
        't=1700000000,v1=c25fec335f20601dcb662f0e7c4944646158a9324bb6ed8b7f6ab126449f507a',
    });
  });

  it('constructEvent accepts our packet at a fixed clock and at real now', () => {
    const event = stripe.webhooks.constructEvent(
      BODY,
      sign(),
      SECRET,
      300,
      undefined,
      T * 1000 + 299_000,
    );
    expect(event.id).toBe('evt_1Twin');
    const now = nowSec();
    expect(stripe.webhooks.constructEvent(BODY, sign(BODY, now), SECRET).id).toBe('evt_1Twin');
    expect(stripe.webhooks.signature?.verifyHeader(BODY, sign(BODY, now), SECRET)).toBe(true);
  });

  it('header has the exact t=..,v1=.. shape with no spaces', () => {
    expect(sign()).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  it('signs once per active secret while a secret rolls, as Stripe does; each verifies alone', () => {
    const header = sign(BODY, T, [SECRET, OLD_SECRET]);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(() =>
      stripe.webhooks.constructEvent(BODY, header, SECRET, 300, undefined, T * 1000),
    ).not.toThrow();
    expect(() =>
      stripe.webhooks.constructEvent(BODY, header, OLD_SECRET, 300, undefined, T * 1000),
    ).not.toThrow();
    expect(() =>
      stripe.webhooks.constructEvent(BODY, header, 'whsec_someone_else', 300, undefined, T * 1000),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('constructEvent rejects a tampered body', () => {
    expect(() =>
      stripe.webhooks.constructEvent(
        BODY.replace('customer', 'kustomer'),
        sign(),
        SECRET,
        300,
        undefined,
        T * 1000,
      ),
    ).toThrow(/No signatures found matching the expected signature/);
  });

  it('constructEvent rejects a wrong secret', () => {
    expect(() =>
      stripe.webhooks.constructEvent(BODY, sign(), 'whsec_someoneElse', 300, undefined, T * 1000),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('constructEvent rejects a stale timestamp (301 s old with the default 300 s tolerance)', () => {
    expect(() =>
      stripe.webhooks.constructEvent(BODY, sign(), SECRET, undefined, undefined, (T + 301) * 1000),
    ).toThrow(/Timestamp outside the tolerance zone/);
  });

  it('the key is the whole whsec_ string, not its decoded tail (the Standard Webhooks trap)', () => {
    const tailKeyed = createHmac('sha256', SECRET.slice('whsec_'.length))
      .update(`${T}.${BODY}`)
      .digest('hex');
    expect(sign()).not.toContain(tailKeyed);
  });
});

describe('stripe: our verifier', () => {
  const verify = (
    header: string | undefined,
    opts: { body?: string | Uint8Array; secrets?: string[]; now?: number; tolerance?: number } = {},
  ) =>
    stripeScheme.verify({
      headers: header === undefined ? {} : { 'stripe-signature': header },
      rawBody: opts.body ?? BODY,
      secrets: opts.secrets ?? [SECRET],
      nowSec: opts.now ?? T,
      ...(opts.tolerance === undefined ? {} : { toleranceSec: opts.tolerance }),
    });

  it('accepts our own packet and reports the signed timestamp', () => {
    expect(verify(sign())).toEqual({ timestampSec: T });
    expect(verify(sign(), { body: new TextEncoder().encode(BODY) })).toEqual({ timestampSec: T });
  });

  it('accepts stripe-node generateTestHeaderString output', () => {
    const header = stripe.webhooks.generateTestHeaderString({
      payload: BODY,
      secret: SECRET,
      timestamp: T,
    });
    expect(verify(header)).toEqual({ timestampSec: T });
    const live = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: SECRET });
    expect(verify(live, { now: nowSec() }).timestampSec).toBeGreaterThanOrEqual(T);
  });

  it('accepts a rotation header with several v1 entries and a v0 decoy', () => {
    const good = sign().split(',')[1] as string;
    const header = `t=${T},v1=${'0'.repeat(64)},${good},v0=${'a'.repeat(64)}`;
    expect(verify(header)).toEqual({ timestampSec: T });
  });

  it('accepts when any configured secret matches (receiver mid-rotation)', () => {
    expect(verify(sign(), { secrets: [OLD_SECRET, SECRET] })).toEqual({ timestampSec: T });
  });

  it('ignores v0: a correct MAC under the v0 label is a downgrade and is refused', () => {
    const mac = sign().split('v1=')[1] as string;
    expectTwinError(() => verify(`t=${T},v0=${mac}`), 'BAD_SIGNATURE', 'headers.Stripe-Signature');
  });

  it('refuses a tampered body', () => {
    expectTwinError(
      () => verify(sign(), { body: `${BODY} ` }),
      'BAD_SIGNATURE',
      'headers.Stripe-Signature',
    );
  });

  it('refuses a wrong secret', () => {
    expectTwinError(() => verify(sign(), { secrets: [OLD_SECRET] }), 'BAD_SIGNATURE');
  });

  it('refuses a stale timestamp and one too far in the future, accepts the window edges', () => {
    expect(verify(sign(), { now: T + 300 })).toEqual({ timestampSec: T });
    expect(verify(sign(), { now: T - 300 })).toEqual({ timestampSec: T });
    const stale = expectTwinError(() => verify(sign(), { now: T + 301 }), 'STALE_TIMESTAMP');
    expect(stale.message).toMatch(/301 s old/);
    const future = expectTwinError(() => verify(sign(), { now: T - 301 }), 'STALE_TIMESTAMP');
    expect(future.message).toMatch(/future/);
    expect(verify(sign(), { now: T + 3000, tolerance: 3600 })).toEqual({ timestampSec: T });
  });

  it('refuses a missing header, or one without t= or v1=', () => {
    expectTwinError(() => verify(undefined), 'MISSING_HEADER', 'headers.Stripe-Signature');
    expectTwinError(() => verify(''), 'MISSING_HEADER');
    expectTwinError(() => verify(`v1=${'0'.repeat(64)}`), 'BAD_SIGNATURE');
    expectTwinError(() => verify(`t=${T}`), 'BAD_SIGNATURE');
    expectTwinError(() => verify(`t=abc,v1=${'0'.repeat(64)}`), 'BAD_SIGNATURE');
  });

  it('is the scheme the registry returns for "stripe"', () => {
    expect(getScheme('stripe')).toBe(stripeScheme);
  });
});
