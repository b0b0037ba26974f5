import { describe, expect, it } from 'vitest';
import { shownValue } from '@/components/packages/version-diff';
import { formatMoney, formatPriceTerm } from '@/components/ui/format';

// The margin report gave a provider cost of 0.001207 that the overview and key pages showed as
// $0.00 (outside audit): an amount under a cent keeps two significant digits.

describe('formatMoney', () => {
  it('shows a non-zero amount under a cent with two significant digits', () => {
    expect(formatMoney('0.001207', 'USD')).toBe('$0.0012');
    expect(formatMoney('0.006', 'USD')).toBe('$0.006');
    expect(formatMoney('0.0000004', 'USD')).toBe('$0.0000004');
    expect(formatMoney('-0.0012', 'USD')).toBe('-$0.0012');
    expect(formatMoney('0.001207', 'EUR')).toBe('€0.0012');
  });

  it('keeps revenue, prices and zero to the cent', () => {
    expect(formatMoney('0', 'USD')).toBe('$0.00');
    expect(formatMoney('0.000000', 'USD')).toBe('$0.00');
    expect(formatMoney('0.01', 'USD')).toBe('$0.01');
    expect(formatMoney('0.036', 'USD')).toBe('$0.04');
    expect(formatMoney('1234.5', 'USD')).toBe('$1,234.50');
    expect(formatMoney('-0.024', 'USD')).toBe('-$0.02');
  });
});

// The overview showed "KWD 10.32" for 10.316358 and "¥898.90" for 898.9 (reports audit): each
// currency to its own minor unit. A package's unit price of 0.0012345678 read "$0.0012", and a
// change of it to 0.00124 read "0.001 → 0.001": a price a package sets is shown exactly.
describe('money in other currencies, and prices as set', () => {
  it('rounds an amount to the currency’s minor unit: none for JPY, a thousandth for KWD', () => {
    expect(formatMoney('898.9', 'JPY')).toBe('¥899');
    expect(formatMoney('10.316358009', 'KWD')).toBe('KWD\u00a010.316');
    expect(formatMoney('0.1118918374', 'KWD')).toBe('KWD\u00a00.112');
    expect(formatMoney('0.22', 'JPY')).toBe('¥0.22'); // under one yen: two significant digits
    expect(formatMoney('0', 'JPY')).toBe('¥0');
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
