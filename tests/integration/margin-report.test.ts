import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { marginByKey, marginByPackage, marginReport } from '@/server/domain/reports/margin';
import { usageCsvLines } from '@/server/domain/reports/usage-events';
import { resolveTimeRange } from '@/server/domain/reports/time-range';
import { createTestKey, type TestKey } from '../helpers/api';
import { operatorCaller } from './trpc/helpers';

// Revenue, provider cost and margin on a known data set, exact: two packages (unit prices 0.01
// and 0.05), events on three UTC days and one outside the range, a failed call with a cost, an
// unpriced call, a call whose cost is estimated, and an operation that loses money.

let a: TestKey;
let b: TestKey;
const range = resolveTimeRange({ range: 'custom', from: '2031-01-10', to: '2031-01-12' });

async function event(
  key: TestKey,
  e: { op: string; units: number; cost: string | null; day: string; failed?: boolean; estimated?: boolean },
) {
  const apiKey = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } });
  await getPrisma().usageEvent.create({
    data: {
      apiKeyId: key.id,
      packageVersionId: apiKey.packageVersionId,
      operation: e.op,
      engine: 'p:m',
      outcome: e.failed ? 'failed' : 'succeeded',
      units: e.units,
      errorCode: e.failed ? 'provider_unavailable' : null,
      requestId: `req_${randomUUID()}`,
      durationMs: 5,
      providerCost: e.cost,
      unpriced: e.cost === null,
      usageEstimated: e.estimated ?? false,
      createdAt: new Date(`${e.day}T12:00:00Z`),
    },
  });
}

beforeAll(async () => {
  const ops = {
    'text.generate': { engine: 'local', units: 1 },
    'code.generate': { engine: 'local', units: 1 },
    'images.generate': { engine: 'local', units: 1 },
  };
  a = await createTestKey({ operations: ops, unitPrice: 0.01 });
  b = await createTestKey({ operations: ops, unitPrice: 0.05 });
  await event(a, { op: 'text.generate', units: 10, cost: '0.0312345', day: '2031-01-10' });
  await event(a, { op: 'text.generate', units: 20, cost: '0.05', day: '2031-01-11', estimated: true });
  await event(a, { op: 'text.generate', units: 0, cost: '0.004', day: '2031-01-11', failed: true });
  await event(a, { op: 'images.generate', units: 5, cost: '0.09', day: '2031-01-11' });
  await event(a, { op: 'code.generate', units: 3, cost: null, day: '2031-01-12' });
  await event(b, { op: 'text.generate', units: 2, cost: '0.02', day: '2031-01-10' });
  await event(a, { op: 'text.generate', units: 100, cost: '1', day: '2031-01-13' }); // outside the range
});
afterAll(disconnectDb);

describe('margin', () => {
  it('in total: revenue = units × unit price, cost and failed cost apart, margin and margin %', async () => {
    const report = await marginReport(getSqlDb(), { range });
    expect(report.totals).toEqual({
      requests: 6,
      revenue: '0.48',
      cost: '0.1912345',
      failed_cost: '0.004',
      margin: '0.2847655',
      margin_pct: 59.33,
      unpriced: 1,
      estimated: 1,
      estimated_cost: '0.05',
      no_unit_price: 0,
    });
  });

  it('of a package, by operation (the loss marked) and by day', async () => {
    const report = await marginReport(getSqlDb(), { range, packageSlug: a.slug });
    expect(report.totals).toMatchObject({ revenue: '0.38', cost: '0.1712345', failed_cost: '0.004', margin: '0.2047655' });
    expect(report.by_operation.map((o) => [o.operation, o.revenue, o.cost, o.failed_cost, o.margin, o.unpriced, o.loss])).toEqual([
      ['code.generate', '0.03', '0', '0', '0.03', 1, false],
      ['images.generate', '0.05', '0.09', '0', '-0.04', 0, true],
      ['text.generate', '0.3', '0.0812345', '0.004', '0.2147655', 0, false],
    ]);
    expect(report.by_bucket.map((d) => [d.at.slice(0, 10), d.revenue, d.cost, d.failed_cost, d.margin])).toEqual([
      ['2031-01-10', '0.1', '0.0312345', '0', '0.0687655'],
      ['2031-01-11', '0.25', '0.14', '0.004', '0.106'],
      ['2031-01-12', '0.03', '0', '0', '0.03'],
    ]);
  });

  it('of a key; packages and keys sorted by margin', async () => {
    const report = await marginReport(getSqlDb(), { range, apiKeyId: b.id });
    expect(report.totals).toMatchObject({ requests: 1, revenue: '0.1', cost: '0.02', margin: '0.08', margin_pct: 80 });
    const packages = (await marginByPackage(getSqlDb(), { range }, 'margin_asc')).filter((p) => [a.slug, b.slug].includes(p.slug));
    expect(packages.map((p) => [p.slug, p.margin])).toEqual([
      [b.slug, '0.08'],
      [a.slug, '0.2047655'],
    ]);
    const keys = (await marginByKey(getSqlDb(), { range }, 'margin_desc')).filter((k) => [a.id, b.id].includes(k.id));
    expect(keys.map((k) => k.id)).toEqual([a.id, b.id]);
  });

  it("the usage CSV carries each event's provider cost, revenue and margin, summing to the report", async () => {
    const lines: string[] = [];
    const filters = { apiKeyId: a.id, from: range.from, to: range.to };
    for await (const line of usageCsvLines(getPrisma(), getSqlDb(), filters)) lines.push(line.trimEnd());
    const header = lines[0]!.split(',');
    const rows = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((cell, i) => [header[i], cell])));
    const images = rows.find((row) => row.operation === 'images.generate')!;
    expect([images.provider_cost, images.revenue, images.margin, images.unpriced]).toEqual(['0.09', '0.05', '-0.04', 'false']);
    const code = rows.find((row) => row.operation === 'code.generate')!;
    expect([code.provider_cost, code.revenue, code.margin, code.unpriced]).toEqual(['', '0.03', '', 'true']);
    const cents = (field: string) => rows.reduce((sum, row) => sum + Math.round(Number(row[field] || 0) * 1e7), 0) / 1e7;
    expect(cents('revenue')).toBe(0.38);
    expect(cents('provider_cost')).toBe(0.1752345); // succeeded 0.1712345 + failed 0.004
  });
});

describe('a key sold through Stripe Checkout', () => {
  it("is counted at what was paid per unit, in the CSV as in the report (outside audit: the CSV used the version's price)", async () => {
    const sold = await createTestKey({ operations: { 'text.generate': { engine: 'local', units: 1 } }, unitPrice: 0.05 });
    const apiKey = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: sold.id } });
    // 12.34 USD paid for 1,000 units, 0.34 refunded: 0.012 a unit, not the version's 0.05.
    await getPrisma().purchase.create({
      data: {
        kind: 'package',
        status: 'fulfilled',
        packageVersionId: apiKey.packageVersionId,
        apiKeyId: sold.id,
        units: 1000,
        amount: 1234,
        currency: 'USD',
        amountPaid: 1234,
        amountRefunded: 34,
      },
    });
    await event(sold, { op: 'text.generate', units: 7, cost: '0.01', day: '2031-01-10' });
    await event(sold, { op: 'text.generate', units: 3, cost: '0.01', day: '2031-01-11' });
    const [byKey] = (await marginByKey(getSqlDb(), { range })).filter((k) => k.id === sold.id);
    expect([byKey!.revenue, byKey!.margin]).toEqual(['0.12', '0.1']);
    const lines: string[] = [];
    for await (const line of usageCsvLines(getPrisma(), getSqlDb(), { apiKeyId: sold.id, from: range.from, to: range.to }))
      lines.push(line);
    const header = lines[0]!.trimEnd().split(',');
    const cells = lines.slice(1).map((line) => line.trimEnd().split(','));
    const column = (name: string) => cells.map((row) => row[header.indexOf(name)]);
    expect(column('revenue').sort()).toEqual(['0.036', '0.084']);
    expect(column('margin').sort()).toEqual(['0.026', '0.074']);
  });
});

describe('the dashboard API', () => {
  it('margin.report, packages and keys answer the same figures, in CURRENCY', async () => {
    const { caller } = await operatorCaller();
    const report = await caller.margin.report({ range: 'custom', from: '2031-01-10', to: '2031-01-12', package: a.slug });
    expect(report.currency).toBe('USD');
    expect(report.totals.margin).toBe('0.2047655');
    const packages = await caller.margin.packages({ range: 'custom', from: '2031-01-10', to: '2031-01-12', sort: 'margin_desc' });
    expect(packages.find((p) => p.slug === a.slug)?.revenue).toBe('0.38');
    const keys = await caller.margin.keys({ range: 'custom', from: '2031-01-10', to: '2031-01-12' });
    expect(keys.find((k) => k.id === b.id)?.margin).toBe('0.08');
  });

  it("the Providers page saves a provider's prices, checked by the packages file's schema", async () => {
    const { caller } = await operatorCaller();
    const name = `priced-${randomUUID().slice(0, 8)}`;
    const prices = { 'gpt-4o-mini': { input_per_mtok: 0.2, output_per_mtok: 0.8 } };
    await caller.providers.save({ name, mode: 'create', entry: { type: 'openai', prices } });
    expect((await caller.providers.get({ name })).prices).toEqual(prices);
    await expect(
      caller.providers.save({ name, mode: 'update', entry: { type: 'openai', prices: { m: { input_per_mtok: -1 } } } }),
    ).rejects.toThrow();
    expect((await caller.providers.get({ name })).prices).toEqual(prices);
  });
});
