// Currencies and charge amounts as Stripe checks them: a currency is any case of a code Stripe
// supports (answered in lowercase), anything else "Invalid currency"; a charge is at most eight
// digits in the currency's smallest unit, and in US dollars at least 50 cents. The twin's accounts
// settle in US dollars, where Stripe converts other currencies to judge their minimum; the twin
// has no exchange rates, so only a US dollar minimum is enforced.
import { VendorError } from '../kit/errors.js';
import { checker } from '../kit/input.js';

/** The presentment currencies a Stripe account takes, as Stripe lists them in its refusal. */
const SUPPORTED = new Set(
  (
    'usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bif bmd bnd bob brl bsd bwp byn ' +
    'bzd cad cdf chf clp cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd ' +
    'gnf gtq gyd hkd hnl htg huf idr ils inr isk jmd jpy kes kgs khr kmf krw kyd kzt lak lbp lkr ' +
    'lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd pab pen ' +
    'pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd shp sle sos srd std szl thb tjs ' +
    'top try ttd twd tzs uah ugx uyu uzs vnd vuv wst xaf xcd xcg xof xpf yer zar zmw'
  ).split(' '),
);

/** Eight digits: 99999999 is $999,999.99. */
const MAX_AMOUNT = 99_999_999;
/** Stripe's minimum charge in US dollars, in cents. */
const MIN_USD_AMOUNT = 50;

const check = checker('stripe');

export function checkCurrency(value: unknown, path = 'currency'): string {
  const currency = check.string(value, path).toLowerCase();
  if (!SUPPORTED.has(currency))
    throw new VendorError(
      'stripe',
      'invalid_input',
      'invalid_request_error',
      `Invalid currency: ${currency}. Stripe currently supports these currencies: ${[...SUPPORTED].join(', ')}`,
      { path },
    );
  return currency;
}

/** An amount to charge in `currency` (a payment intent's), within Stripe's minimum and maximum. */
export function checkChargeAmount(value: unknown, currency: string): number {
  const amount = check.integer(value, 'amount', currency === 'usd' ? 0 : 1);
  if (currency === 'usd' && amount < MIN_USD_AMOUNT)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'amount_too_small',
      'Amount must be at least 50 cents',
      { path: 'amount' },
    );
  if (amount > MAX_AMOUNT)
    throw new VendorError(
      'stripe',
      'invalid_input',
      'amount_too_large',
      currency === 'usd'
        ? 'Amount must be no more than $999,999.99'
        : `Amount must be no more than ${MAX_AMOUNT} (eight digits) in the smallest unit of ${currency}`,
      { path: 'amount' },
    );
  return amount;
}
