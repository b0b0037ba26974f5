// How Stripe counts a currency's amounts (https://docs.stripe.com/currencies), which is not always
// what ICU's currency data says: Stripe takes HUF, TWD and ISK amounts with two decimals (ICU: 0),
// and five currencies with three, of which it charges only multiples of ten. Prices in a packages
// file are in the major unit; these turn them into the integers Stripe charges, and back.

/** Stripe's zero-decimal currencies: an amount is in the major unit (500 is ¥500). */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
/** Three decimals in the API, whose last digit Stripe requires to be 0. */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
/** Two decimals in the API, but charged in whole units only (an amount divisible by 100). */
const WHOLE_UNITS_ONLY = new Set(['ISK']);
/**
 * ISO 4217 codes that are not money one can be charged in: precious metals, fund and settlement
 * units, the testing code and "no currency". Intl knows them; Stripe refuses them.
 */
const NOT_CHARGEABLE = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

/** Digits of the minor unit Stripe's API counts amounts in (2 for USD: cents; 0 for JPY). */
export function stripeExponent(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/** Digits after the decimal point ICU writes the currency with (0 for HUF, which Stripe counts in hundredths). */
function displayDecimals(currency: string): number {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * The decimals a price may have: what Stripe charges (whole ISK; two of a three-decimal
 * currency's), and no more than the currency is shown with, so that the catalogue shows the price
 * that is charged (whole forints).
 */
export function priceDecimals(currency: string): number {
  const charged = ZERO_DECIMAL.has(currency) || WHOLE_UNITS_ONLY.has(currency) ? 0 : 2;
  return Math.min(charged, displayDecimals(currency));
}

/** Whether the code names money Stripe can charge in (Intl knows it, and it is not a metal or fund unit). */
export function isChargeableCurrency(currency: string): boolean {
  return !NOT_CHARGEABLE.has(currency) && Intl.supportedValuesOf('currency').includes(currency);
}

/** An amount in the major unit as the integer Stripe's API takes (49.5 USD → 4950; 5000 HUF → 500000). */
export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(amount * 10 ** stripeExponent(currency));
}

/** Stripe's integer amount back in the major unit (4950 USD → 49.5). */
export function fromMinorUnits(minor: number, currency: string): number {
  return minor / 10 ** stripeExponent(currency);
}
