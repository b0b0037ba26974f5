import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { marginByKey, marginReport } from '@/server/domain/reports/margin';
import { resolveTimeRange } from '@/server/domain/reports/time-range';
import type { FakeStripe } from '../../../fakes/fake-stripe';
import { createTestKey } from '../../helpers/api';
import { expectTrpcError, operatorCaller, anonymousCaller } from '../trpc/helpers';
import { deliver, keysOfPurchase, packageForSale, startCheckout, turnSellingOff, turnSellingOn } from './support';

// The operator's view of sales (issue 38 point 6): purchases and top-ups on the Sales page,
// refunds and disputes flagged, and the margin report counting what was actually paid.

let fake: FakeStripe;
let versionId: string;
const range = resolveTimeRange({ range: 'custom', from: '2032-03-01', to: '2032-03-02' });

async function boughtKey(email: string) {
  const started = await startCheckout(versionId);
  fake.pay(started.sessionId, { email });
  await deliver(fake.events.completed(started.sessionId));
  const { keys } = await keysOfPurchase(started.sessionId);
  return { keyId: keys[0]!.id, sessionId: started.sessionId };
}

async function usage(keyId: string, units: number) {
  const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: keyId } });
  await getPrisma().usageEvent.create({
    data: {
      apiKeyId: keyId,
      packageVersionId: key.packageVersionId,
      operation: 'text.generate',
      engine: 'local',
      outcome: 'succeeded',
      units,
      requestId: `req_${randomUUID()}`,
      durationMs: 3,
      providerCost: '0',
      createdAt: new Date('2032-03-01T12:00:00Z'),
    },
  });
}

beforeAll(async () => {
  await operatorCaller(); // the first operator is an owner; the tests' viewers and admins come after
  fake = await turnSellingOn();
  ({ versionId } = await packageForSale());
});
afterAll(async () => {
  turnSellingOff();
  await fake.close();
  await disconnectDb();
});

describe('the Sales page', () => {
  it('lists purchases with session, key, amount and state, a page at a time, to operators only', async () => {
    const { caller } = await operatorCaller('viewer');
    const bought = await boughtKey('list@example.com');
    const open = await startCheckout(versionId);
    const first = await caller.sales.list({ limit: 1 });
    expect(first.selling).toBe(true);
    expect(first.items).toHaveLength(1);
    expect(first.items[0]).toMatchObject({ stripe_session_id: open.sessionId, state: 'open', api_key_id: null, amount: 4900 });
    const second = await caller.sales.list({ limit: 1, cursor: first.next_cursor! });
    expect(second.items[0]).toMatchObject({
      stripe_session_id: bought.sessionId,
      state: 'paid',
      api_key_id: bought.keyId,
      amount_paid: 4900,
      currency: 'USD',
      buyer_email: 'list@example.com',
      package_version: 1,
    });
    expect(second.items[0]!.key_prefix).toMatch(/^wgs_live_/);
    await expectTrpcError(anonymousCaller().sales.list(), 'UNAUTHORIZED');
  });

  it('flags refunds and disputes on the key and in the overview counts', async () => {
    const { caller } = await operatorCaller('viewer');
    const before = await caller.sales.flags();
    const refunded = await boughtKey('refund@example.com');
    const disputed = await boughtKey('dispute@example.com');
    await deliver(fake.events.refunded(refunded.sessionId));
    await deliver(fake.events.disputeCreated(disputed.sessionId));
    // A dispute also suspends its key (docs/selling.md); nothing here was refused.
    expect(await caller.sales.flags()).toEqual({
      refunded: before.refunded + 1,
      disputed: before.disputed + 1,
      refused: before.refused,
      suspended: before.suspended + 1,
    });
    expect((await caller.sales.forKey({ id: refunded.keyId }))[0]).toMatchObject({ state: 'refunded', amount_refunded: 4900 });
    expect((await caller.sales.forKey({ id: disputed.keyId }))[0]).toMatchObject({ state: 'disputed' });
    // The Sales page's row follows the key: suspended by the dispute, then as an operator decided.
    const rowOf = async () => (await caller.sales.list({ limit: 50 })).items.find((item) => item.api_key_id === disputed.keyId);
    expect(await rowOf()).toMatchObject({ state: 'disputed', key_status: 'suspended' });
    await (await operatorCaller('admin')).caller.sales.reinstateKey({ id: disputed.keyId });
    expect(await rowOf()).toMatchObject({ state: 'disputed', key_status: 'active' });
  });
});

describe('the package page', () => {
  it("shows a version's sale, takes a new price from the form as a new version, and diffs it", async () => {
    const { caller } = await operatorCaller('admin');
    const { slug } = await packageForSale();
    const pkg = await caller.packages.get({ slug });
    expect(pkg.versions[0]!.sale).toEqual({ price: 49, currency: 'USD', top_ups: [{ units: 1000, price: 10 }] });
    const definition = {
      slug,
      name: pkg.versions[0]!.name,
      quota_units: 500,
      limits: { requests_per_minute: 600, concurrency: 4 },
      sale: { price: 59, currency: 'USD', top_ups: [] },
      operations: { 'text.generate': { engine: 'local', units: 1 } },
    };
    expect(await caller.packages.createVersion({ mode: 'new-version', definition })).toMatchObject({ version: 2, status: 'updated' });
    const diff = await caller.packages.diff({ slug, from: 1, to: 2 });
    expect(diff.changes.map((change) => change.path)).toEqual(['sale.price', 'sale.top_ups']);
  });
});

describe('margin with sales', () => {
  it('counts what was paid per unit bought for a sold key, less refunds, and the unit price elsewhere', async () => {
    const sold = await boughtKey('margin@example.com'); // 49.00 USD for 500 units: 0.098 a unit
    const listed = await createTestKey({ unitPrice: 0.01 });
    await usage(sold.keyId, 100);
    await usage(listed.id, 100);
    expect((await marginReport(getSqlDb(), { range, apiKeyId: sold.keyId })).totals.revenue).toBe('9.8');
    expect((await marginReport(getSqlDb(), { range, apiKeyId: listed.id })).totals.revenue).toBe('1');

    await deliver(fake.events.refunded(sold.sessionId, 900)); // 40.00 kept: 0.08 a unit
    expect((await marginReport(getSqlDb(), { range, apiKeyId: sold.keyId })).totals.revenue).toBe('8');
    const byKey = await marginByKey(getSqlDb(), { range });
    expect(byKey.find((row) => row.id === sold.keyId)?.revenue).toBe('8');
  });
});
