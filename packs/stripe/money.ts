// Amounts as Stripe writes them in line item descriptions: "$20.00", "¥500", "CHF 12.50".
const SYMBOLS: Readonly<Record<string, string>> = {
  usd: '$',
  eur: '€',
  gbp: '£',
  jpy: '¥',
  cad: 'CA$',
  aud: 'A$',
};
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

export function formatAmount(amount: number, currency: string): string {
  const value = ZERO_DECIMAL.has(currency) ? String(amount) : (amount / 100).toFixed(2);
  const symbol = SYMBOLS[currency];
  return symbol === undefined ? `${currency.toUpperCase()} ${value}` : `${symbol}${value}`;
}
