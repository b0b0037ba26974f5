import { describe, expect, it } from 'vitest';
import { shownValue } from '@/components/packages/version-diff';
import { formatMoney, formatPriceTerm } from '@/components/ui/format';

// The margin report gave a provider cost of 0.001207 that the overview and key pages showed as
// $0.00 (outside audit): an amount under a cent keeps two significant digits.

describe('formatMoney', () => {
  it.each([
    ['0.001207', 'USD', '$0.0012'],
    ['0.006', 'USD', '$0.006'],
    ['0.0000004', 'USD', '$0.0000004'],
    ['-0.0012', 'USD', '-$0.0012'],
    ['0.001207', 'EUR', '€0.0012'],
  ])('shows a non-zero amount under a cent with two significant digits: %s %s is %s', (amount, currency, shown) => {
    expect(formatMoney(amount, currency)).toBe(shown);
  });

  it.each([
    ['0', '$0.00'],
    ['0.000000', '$0.00'],
    ['0.01', '$0.01'],
    ['0.036', '$0.04'],
    ['1234.5', '$1,234.50'],
    ['-0.024', '-$0.02'],
  ])('keeps revenue, prices and zero to the cent: %s is %s', (amount, shown) => {
    expect(formatMoney(amount, 'USD')).toBe(shown);
  });
});

// The overview showed "KWD 10.32" for 10.316358 and "¥898.90" for 898.9 (reports audit): each
// currency to its own minor unit. A package's unit price of 0.0012345678 read "$0.0012", and a
// change of it to 0.00124 read "0.001 → 0.001": a price a package sets is shown exactly.
describe('money in other currencies, and prices as set', () => {
  it.each([
    ['898.9', 'JPY', '¥899'],
    ['10.316358009', 'KWD', 'KWD\u00a010.316'],
    ['0.1118918374', 'KWD', 'KWD\u00a00.112'],
    ['0.22', 'JPY', '¥0.22'], // under one yen: two significant digits
    ['0', 'JPY', '¥0'],
  ])('rounds an amount to the currency’s minor unit (none for JPY, a thousandth for KWD): %s %s is %s', (amount, currency, shown) => {
    expect(formatMoney(amount, currency)).toBe(shown);
  });

  it('shows a unit price or budget with every decimal it has, at least the minor unit', () => {
    expect(formatPriceTerm('0.0012345678', 'USD')).toBe('$0.0012345678');
    expect(formatPriceTerm('0.00124', 'USD')).toBe('$0.00124');
    expect(formatPriceTerm('5', 'USD')).toBe('$5.00');
    expect(formatPriceTerm('1234567.0000000001', 'USD')).toBe('$1,234,567.0000000001');
    expect(formatPriceTerm('3', 'JPY')).toBe('¥3');
    expect(shownValue('unit_price', 0.0012345678)).not.toBe(shownValue('unit_price', 0.00124));
    expect(shownValue('unit_price', 0.0000000001)).toBe('0.0000000001');
  });
});
