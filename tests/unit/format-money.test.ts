import { describe, expect, it } from 'vitest';
import { formatMoney } from '@/components/ui/format';

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
