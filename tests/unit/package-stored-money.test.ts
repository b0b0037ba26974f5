import { describe, expect, it } from 'vitest';
import { packageDefinitionSchema } from '@/server/contract/package-schema';

// unit_price and max_provider_cost_per_day are stored in numeric(20,10) columns (dashboard audit:
// 5e-11 was stored as 1e-10, and every apply of the same file then made a new version).

const definition = (extra: { unit_price?: number; max_provider_cost_per_day?: number }) => ({
  slug: 'money',
  name: 'Money',
  quota_units: 10,
  limits: { requests_per_minute: 5, concurrency: 1, max_provider_cost_per_day: extra.max_provider_cost_per_day },
  unit_price: extra.unit_price,
  operations: { 'text.generate': { engine: 'local', units: 1 } },
});

describe('amounts a package version stores', () => {
  it.each([1e-10, 0.0000012345, 19.99, 987654321.9876543, 12.3456789012, 1_000_000_000, 0])('takes %d', (amount) => {
    expect(packageDefinitionSchema.safeParse(definition({ unit_price: amount, max_provider_cost_per_day: amount })).success).toBe(true);
  });

  it.each([5e-11, 12.34567890123, 0.30000000000000004])('refuses %d, which would be stored rounded', (amount) => {
    for (const extra of [{ unit_price: amount }, { max_provider_cost_per_day: amount }]) {
      const parsed = packageDefinitionSchema.safeParse(definition(extra));
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('must have at most 10 decimal places (what is stored)');
    }
  });
});
