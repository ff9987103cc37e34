// Every refusal of the Stripe verifier and signer says what was wrong, prefixed with the scheme,
// naming the header — and the lenient parsing of Stripe-Signature (spaces, stray elements) that
// must not change a verdict.
import { describe, expect, it } from 'vitest';
import { stripeScheme, type SignRequest } from '../../../src/events/signing/index.js';
import { expectTwinError, secret } from './support.js';

const SECRET = secret('whsec_stripeRefusalSecret000000000001');
const BODY = '{"id":"evt_refusal","object":"event"}';
const T = 1_760_000_000;
const signed = stripeScheme.sign({
  body: BODY,
  secrets: [SECRET],
  timestampSec: T,
  messageId: 'evt_refusal',
})['Stripe-Signature']!;
const MAC = signed.split('v1=')[1]!;
const verify = (header: string | undefined, now = T) =>
  stripeScheme.verify({
    headers: header === undefined ? {} : { 'Stripe-Signature': header },
    rawBody: BODY,
    secrets: [SECRET],
    nowSec: now,
  });

describe('stripe refusals name the scheme, the header and the fault', () => {
  it('a missing header', () => {
    expect(
      expectTwinError(() => verify(undefined), 'MISSING_HEADER', 'headers.Stripe-Signature')
        .message,
    ).toBe('stripe: required header Stripe-Signature is missing or empty.');
  });

  it('no t= element, several different ones, or one that is not integer seconds', () => {
    expect(
      expectTwinError(() => verify(`v1=${MAC}`), 'BAD_SIGNATURE', 'headers.Stripe-Signature')
        .message,
    ).toBe('stripe: Stripe-Signature has no t=<timestamp> element.');
    expect(
      expectTwinError(() => verify(`t=${T},t=${T + 1},v1=${MAC}`), 'BAD_SIGNATURE').message,
    ).toBe(
      'stripe: Stripe-Signature carries 2 different t= elements; refusing an ambiguous packet.',
    );
    expect(expectTwinError(() => verify(`t=12ab,v1=${MAC}`), 'BAD_SIGNATURE').message).toBe(
      'stripe: header Stripe-Signature must be integer Unix seconds, got "12ab".',
    );
  });

  it('no v1= signature, or none that matches', () => {
    expect(expectTwinError(() => verify(`t=${T}`), 'BAD_SIGNATURE').message).toBe(
      'stripe: Stripe-Signature has no v1= signature.',
    );
    expect(expectTwinError(() => verify(`t=${T},v0=${MAC}`), 'BAD_SIGNATURE').message).toBe(
      'stripe: Stripe-Signature has no v1= signature.',
    );
    expect(
      expectTwinError(() => verify(`t=${T},v1=${'0'.repeat(64)}`), 'BAD_SIGNATURE').message,
    ).toBe(
      'stripe: no v1 signature in Stripe-Signature matches the body under any configured secret.',
    );
  });

  it('a stale timestamp', () => {
    expect(
      expectTwinError(() => verify(signed, T + 301), 'STALE_TIMESTAMP', 'headers.Stripe-Signature')
        .message,
    ).toBe(`stripe: signed timestamp ${T} is 301 s old; the tolerance is 300 s.`);
  });

  it('bad arguments to sign and verify', () => {
    const e = expectTwinError(
      () =>
        stripeScheme.sign({
          body: {} as unknown as string,
          secrets: [SECRET],
          timestampSec: T,
          messageId: 'x',
        } satisfies SignRequest),
      'INVALID_ARGUMENT',
      'body',
    );
    expect(e.message).toMatch(/^stripe: body must be the exact string/);
    const v = expectTwinError(
      () =>
        stripeScheme.verify({
          headers: { 'Stripe-Signature': signed },
          rawBody: BODY,
          secrets: [],
          nowSec: T,
        }),
      'INVALID_ARGUMENT',
      'secrets',
    );
    expect(v.message).toBe('stripe: secrets is empty; pass at least one signing secret.');
  });
});

describe('stripe parsing that must not change a verdict', () => {
  it('spaces around elements and values are ignored', () => {
    expect(verify(`t=${T}, v1=${MAC}`)).toEqual({ timestampSec: T });
    expect(verify(`t=${T},v1=${MAC} `)).toEqual({ timestampSec: T });
    expect(verify(` t = ${T} ,v1= ${MAC}`)).toEqual({ timestampSec: T });
  });

  it('elements without "=" are skipped, even ones that start like t or v1', () => {
    expect(verify(`t=${T},tx,v1=${MAC},v1x,garbage`)).toEqual({ timestampSec: T });
    expect(verify(`t=${T},=${T + 5},v1=${MAC}`)).toEqual({ timestampSec: T });
  });
});
