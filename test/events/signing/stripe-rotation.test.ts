// Stripe while a secret rolls: one v1 per active secret, each the MAC a one-secret packet would
// carry, each verifying alone with stripe-node and with our verifier — and our verifier taking a
// match wherever it stands in the header or in its own list of secrets (issue 18).
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { stripeScheme } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const stripe = new Stripe('sk_test_x');
const NEW = secret('whsec_rotationNewSecret00000000000002');
const OLD = secret('whsec_rotationOldSecret00000000000001');
const OLDEST = secret('whsec_rotationOldestSecret000000000000');
const BODY = JSON.stringify({ id: 'evt_rot', object: 'event', type: 'customer.updated' });
const T = 1_760_000_000;

const header = (secrets: readonly string[], body = BODY, t = T) =>
  stripeScheme.sign({ body, secrets, timestampSec: t, messageId: 'evt_rot' })['Stripe-Signature']!;
const v1s = (h: string) =>
  h
    .split(',')
    .filter((e) => e.startsWith('v1='))
    .map((e) => e.slice(3));
const verify = (h: string | string[], secrets: readonly string[], body = BODY) =>
  stripeScheme.verify({ headers: { 'Stripe-Signature': h }, rawBody: body, secrets, nowSec: T });

describe('stripe signing while a secret rolls', () => {
  it("one v1 per active secret, in the order given, each equal to that secret's own signature, under one t=", () => {
    const rolled = header([NEW, OLD, OLDEST]);
    expect(rolled.split(',')[0]).toBe(`t=${T}`);
    expect(rolled.split(',')).toHaveLength(4);
    expect(v1s(rolled)).toEqual([
      v1s(header([NEW]))[0],
      v1s(header([OLD]))[0],
      v1s(header([OLDEST]))[0],
    ]);
    expect(new Set(v1s(rolled)).size).toBe(3);
    for (const mac of v1s(rolled)) expect(mac).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stripe-node accepts the rolled packet under each secret alone, and refuses it under any other', () => {
    const rolled = header([NEW, OLD]);
    for (const s of [NEW, OLD])
      expect(stripe.webhooks.constructEvent(BODY, rolled, s, 300, undefined, T * 1000).id).toBe(
        'evt_rot',
      );
    expect(() =>
      stripe.webhooks.constructEvent(BODY, rolled, OLDEST, 300, undefined, T * 1000),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
    // and every signature covers the body: a changed byte fails under both secrets
    for (const s of [NEW, OLD])
      expect(() =>
        stripe.webhooks.constructEvent(`${BODY} `, rolled, s, 300, undefined, T * 1000),
      ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('our verifier accepts the rolled packet under each secret alone and refuses a secret not in it', () => {
    const rolled = header([NEW, OLD]);
    expect(verify(rolled, [NEW])).toEqual({ timestampSec: T });
    expect(verify(rolled, [OLD])).toEqual({ timestampSec: T });
    expectTwinError(() => verify(rolled, [OLDEST]), 'BAD_SIGNATURE', 'headers.Stripe-Signature');
    expectTwinError(() => verify(rolled, [NEW], `${BODY} `), 'BAD_SIGNATURE');
  });

  it('a receiver mid-rotation matches whichever of its secrets signed, in any position of either list', () => {
    expect(verify(header([OLD]), [NEW, OLDEST, OLD])).toEqual({ timestampSec: T });
    expect(verify(header([OLDEST, OLD, NEW]), [NEW])).toEqual({ timestampSec: T });
    expect(verify(header([OLDEST, OLD, NEW]), [OLD])).toEqual({ timestampSec: T });
    // Stripe-Signature split over two header lines is one list of elements
    const [t, first, second] = header([OLD, NEW]).split(',');
    expect(verify([`${t},${first}`, second!], [NEW])).toEqual({ timestampSec: T });
  });

  it('a rolled header with one t= and a stale signature is still refused on age, not accepted by the other v1', () => {
    const stale = header([NEW, OLD], BODY, T - 301);
    expectTwinError(() => verify(stale, [OLD]), 'STALE_TIMESTAMP');
    // two different t= elements are ambiguous whatever the v1s say
    const mixed = `${header([NEW])},${header([OLD], BODY, T + 1)}`;
    expectTwinError(() => verify(mixed, [NEW]), 'BAD_SIGNATURE');
  });
});
