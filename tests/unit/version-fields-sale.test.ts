import { describe, expect, it } from 'vitest';
import { definitionLabel } from '@/components/packages/definition-labels';
import { topUpsForForm } from '@/components/packages/sale-fields';
import { shownValue } from '@/components/packages/version-diff';
import { formToDefinition, issueField } from '@/components/packages/version-fields';
import { diffDefinitions, definitionOf } from '@/server/domain/packages/version-diff';
import { packageDefinitionSchema } from '@/server/contract/package-schema';
import { saleSchema } from '@/server/contract/sale-schema';
import { fromMinorUnits, toMinorUnits } from '@/server/contract/stripe-currency';
import { packageForm } from './support/package-form';

// A package version's sale (issue 38 point 1): in the packages file's schema, on the package
// form (price, currency, top-up packs as units:price), and in the version diff.

const form = (values: Record<string, string>) => packageForm({ slug: 'sold', name: 'Sold', quota_units: '500', ...values });

describe('sale in the packages file', () => {
  it('refuses top-up packs without a price of a key, naming the price (the form dropped them)', () => {
    const definition = formToDefinition(form({ sale_price: '', sale_currency: 'USD', sale_top_ups: '1000:10, 5000:40' }));
    const issues = packageDefinitionSchema.safeParse(definition).error?.issues ?? [];
    expect(issues.map((issue) => [issueField(issue.path.join('.')), issue.message])).toEqual([
      ['sale_price', 'a sale needs the price of a key (top-up packs sell only with it)'],
    ]);
  });

  it('takes a price, a currency and top-up packs; amounts in minor units per the currency', () => {
    expect(saleSchema.parse({ price: 49.5, currency: 'USD' })).toEqual({ price: 49.5, currency: 'USD', top_ups: [] });
    expect(toMinorUnits(49.5, 'USD')).toBe(4950);
    expect(toMinorUnits(500, 'JPY')).toBe(500);
    expect(toMinorUnits(0.29, 'EUR')).toBe(29);
  });

  it("counts amounts as Stripe does where ICU's decimals differ from Stripe's", () => {
    // Stripe takes HUF and ISK with two decimals (ICU shows none), KWD with three.
    expect(toMinorUnits(5000, 'HUF')).toBe(500_000);
    expect(toMinorUnits(5, 'ISK')).toBe(500);
    expect(toMinorUnits(1.23, 'KWD')).toBe(1230);
    expect(toMinorUnits(5000, 'UGX')).toBe(5000);
    expect(fromMinorUnits(500_000, 'HUF')).toBe(5000);
    expect(fromMinorUnits(1230, 'KWD')).toBe(1.23);
    expect(fromMinorUnits(4950, 'USD')).toBe(49.5);
  });

  it('refuses more decimals than the currency has, duplicate packs, a bad currency and a zero price', () => {
    const messages = (sale: unknown) => saleSchema.safeParse(sale).error?.issues.map((issue) => issue.message) ?? [];
    expect(messages({ price: 9.999, currency: 'USD' })).toEqual(['USD prices have at most 2 decimals']);
    expect(messages({ price: 100.5, currency: 'JPY' })).toEqual(['JPY prices have at most 0 decimals']);
    // Stripe charges whole forints and krónur shown as such, and a three-decimal amount ending in 0.
    expect(messages({ price: 5000.5, currency: 'HUF' })).toEqual(['HUF prices have at most 0 decimals']);
    expect(messages({ price: 5.5, currency: 'ISK' })).toEqual(['ISK prices have at most 0 decimals']);
    expect(messages({ price: 1.235, currency: 'KWD' })).toEqual(['KWD prices have at most 2 decimals']);
    expect(messages({ price: 1.23, currency: 'KWD' })).toEqual([]);
    // More than 0, yet less than a cent: Stripe would be asked for 0.
    expect(messages({ price: 1e-9, currency: 'USD' })).toEqual(['a USD price is at least 0.01']);
    expect(messages({ price: 0.4, currency: 'JPY', top_ups: [{ units: 5, price: 1e-9 }] })).toEqual([
      'JPY prices have at most 0 decimals',
      'a JPY price is at least 1',
    ]);
    expect(messages({ price: 1, currency: 'XXX' })).toEqual(['currency must be one money is charged in (an ISO 4217 code such as USD)']);
    expect(messages({ price: 1, currency: 'XAU' })).toHaveLength(1);
    expect(
      messages({
        price: 9,
        currency: 'USD',
        top_ups: [
          { units: 5, price: 1 },
          { units: 5, price: 2 },
        ],
      }),
    ).toEqual(['each top-up pack sells a different number of units']);
    expect(messages({ price: 9, currency: 'usd' })).toEqual(['currency must be an ISO 4217 code such as USD']);
    expect(messages({ price: 0, currency: 'USD' })).toHaveLength(1);
  });
});

describe('sale on the package form', () => {
  it('reads price, currency and packs into the definition; an empty price is no sale', () => {
    const definition = formToDefinition(form({ sale_price: '49', sale_currency: 'eur', sale_top_ups: '1000:10, 5000:40' }));
    expect(packageDefinitionSchema.parse(definition).sale).toEqual({
      price: 49,
      currency: 'EUR',
      top_ups: [
        { units: 1000, price: 10 },
        { units: 5000, price: 40 },
      ],
    });
    expect(formToDefinition(form({ sale_price: '', sale_top_ups: '' })).sale).toBeUndefined();
    expect(topUpsForForm({ price: 1, currency: 'USD', top_ups: [{ units: 1000, price: 10 }] })).toBe('1000:10');
  });

  it('puts a bad pack next to its field, under its label', () => {
    const definition = formToDefinition(form({ sale_price: '49', sale_currency: 'USD', sale_top_ups: '1000 for 10' }));
    const issue = packageDefinitionSchema.safeParse(definition).error!.issues[0]!;
    const path = issue.path.join('.');
    expect(issueField(path)).toBe('sale_top_ups');
    expect(definitionLabel(path)).toBe('Top-up packs');
    expect(issueField('sale.price')).toBe('sale_price');
  });

  it('shows a changed price in the version diff', () => {
    const base = {
      name: 'Sold',
      quota_units: 500,
      limits: { requests_per_minute: 5, concurrency: 1, max_upload_bytes: 1 },
      operations: {},
    };
    const changes = diffDefinitions(
      definitionOf({ ...base, sale: { price: 49, currency: 'USD', top_ups: [] } }),
      definitionOf({ ...base, sale: { price: 59, currency: 'USD', top_ups: [] } }),
    );
    expect(changes).toEqual([{ path: 'sale.price', kind: 'changed', before: 49, after: 59 }]);
  });

  it('shows a changed unit price and the /openai/v1 idempotency rule in the version diff (both were left out)', () => {
    const base = {
      name: 'Priced',
      quota_units: 500,
      limits: { requests_per_minute: 5, concurrency: 1, max_upload_bytes: 1 },
      operations: {},
    };
    expect(diffDefinitions(definitionOf({ ...base, unit_price: 0.01 }), definitionOf({ ...base, unit_price: 0.02 }))).toEqual([
      { path: 'unit_price', kind: 'changed', before: 0.01, after: 0.02 },
    ]);
    expect(
      diffDefinitions(
        definitionOf(base),
        definitionOf({ ...base, unit_price: 0.01, openai_compatible: { require_idempotency_key: true } }),
      ),
    ).toEqual([
      { path: 'unit_price', kind: 'added', before: undefined, after: 0.01 },
      { path: 'openai_compatible.require_idempotency_key', kind: 'added', before: undefined, after: true },
    ]);
  });

  it('shows top-up packs in the version diff as the form writes them (they showed as [object Object])', () => {
    const base = {
      name: 'Sold',
      quota_units: 500,
      limits: { requests_per_minute: 5, concurrency: 1, max_upload_bytes: 1 },
      operations: {},
    };
    const packs = [
      { units: 1000, price: 10 },
      { units: 5000, price: 40 },
    ];
    const changes = diffDefinitions(
      definitionOf({ ...base, sale: { price: 49, currency: 'USD', top_ups: [] } }),
      definitionOf({ ...base, sale: { price: 49, currency: 'USD', top_ups: packs } }),
    );
    const shown = changes.map((change) => [shownValue(change.path, change.before), shownValue(change.path, change.after)]);
    expect(shown).toEqual([['—', '1000:10, 5000:40']]);
    expect(shownValue('operations.images.generate.styles', ['photo', 'sketch'])).toBe('photo, sketch');
  });
});
