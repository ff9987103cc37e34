// Keys in the Stripe surface's refusals show as Stripe shows them: the kind, stars and the last four
// characters of the secret part — never a character of the prefix taken for the secret, and none
// of a secret part too short to hide.
import { describe, expect, it } from 'vitest';
import { Accounts } from '../../packs/stripe/surface/accounts.js';

function refusal(key: string): string {
  const accounts = new Accounts(() => {
    throw new Error('no account is made for a refused key');
  });
  try {
    accounts.of(key);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${key} was accepted`);
}

describe('a key in a refusal', () => {
  it.each([
    ['sk_live_x', '(sk_live_*)'],
    ['sk_live_', '(sk_live_)'],
    ['rk_live_abc', '(rk_live_***)'],
    ['pk_test_x', '(pk_test_*)'],
    ['sk_live_abcdefgh123', '(sk_live_***********)'],
    ['sk_live_abcdefgh1234', '(sk_live_********1234)'],
    ['sk_live_abcdefghijklmnopqrstuvwxyz1234', '(sk_live_********************1234)'],
  ])('%s shows as %s', (key, shown) => {
    expect(refusal(key)).toContain(shown);
  });

  it('a key of no known kind shows none of its characters when short', () => {
    expect(refusal('abc')).toMatch(/Invalid API Key provided: \*\*\*$/);
  });
});
