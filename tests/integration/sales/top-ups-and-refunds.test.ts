import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as checkoutStart } from '@/app/buy/checkout/route';
import { POST as stripeWebhook } from '@/app/api/stripe/webhook/route';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { topUpReturn } from '@/server/domain/portal/portal-sales';
import { listPurchasesForKey } from '@/server/domain/sales/list-purchases';
import { createTopUpCheckout } from '@/server/domain/sales/start-checkout';
import { cataloguePage, successPage } from '@/server/http/sales/buy-pages';
import { getStripe } from '@/server/payments/stripe-client';
import type { FakeStripe } from '../../../fakes/fake-stripe';
import { BASE } from '../../helpers/api';
import { deliver, keysOfPurchase, packageForSale, startCheckout, turnSellingOff, turnSellingOn, visitSuccess } from './support';

// A top-up adds its units once; refunds and disputes are recorded once and flag the purchase;
// without the Stripe settings, selling is off and nothing is sold.

let fake: FakeStripe;
let versionId: string;

async function boughtKey() {
  const started = await startCheckout(versionId);
  fake.pay(started.sessionId, { email: 'grace@example.com' });
  await deliver(fake.events.completed(started.sessionId));
  const { keys } = await keysOfPurchase(started.sessionId);
  return { keyId: keys[0]!.id, sessionId: started.sessionId };
}

beforeAll(async () => {
  fake = await turnSellingOn();
  ({ versionId } = await packageForSale());
});
afterAll(async () => {
  turnSellingOff();
  await fake.close();
  await disconnectDb();
});

describe('top-ups', () => {
  it("sells a pack of the key's own version, bound to the key, and adds its units exactly once", async () => {
    const { keyId } = await boughtKey();
    const started = await createTopUpCheckout(getPrisma(), getStripe()!, { keyId, units: 1000, origin: BASE, successPath: '/portal' });
    expect(fake.sessions.get(started.sessionId)).toMatchObject({
      amount_total: 1000,
      metadata: { purchase_id: started.purchaseId, package_version_id: versionId, kind: 'top_up' },
      success_url: `${BASE}/portal?session_id={CHECKOUT_SESSION_ID}`,
    });
    fake.pay(started.sessionId);
    const completed = fake.events.completed(started.sessionId);
    // The buyer comes back to the portal (successPath), signed in with the key: its return asks
    // Stripe for that key's top-up, racing the deliveries.
    const back = topUpReturn(getPrisma(), getSqlDb(), getStripe(), { apiKeyId: keyId, sessionId: started.sessionId });
    const results = await Promise.all([...Array.from({ length: 10 }, () => deliver(completed)), back]);
    expect(results.at(-1)).toMatchObject({ state: 'topped_up', units: 1000 });
    const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: keyId } });
    expect(key).toMatchObject({ remainingUnits: 1500, totalUnits: 1500 });
    expect(await getPrisma().auditLog.count({ where: { action: 'key.topup', targetId: keyId } })).toBe(1);
    expect(await getPrisma().apiKey.count({ where: { purchaseId: started.purchaseId } })).toBe(0);

    const purchases = await listPurchasesForKey(getPrisma(), keyId);
    expect(purchases.map((p) => [p.kind, p.state, p.amount_paid, p.units])).toEqual([
      ['top_up', 'paid', 1000, 1000],
      ['package', 'paid', 4900, 500],
    ]);
    expect(purchases.every((p) => p.receipt_url?.startsWith(`${fake.apiBase}/receipts/ch_test_`))).toBe(true);
    const receipt = await fetch(purchases[0]!.receipt_url!);
    expect(receipt.status).toBe(200);
  });

  it('refuses a pack the package does not offer, and a key that is not there', async () => {
    const { keyId } = await boughtKey();
    await expect(createTopUpCheckout(getPrisma(), getStripe()!, { keyId, units: 999, origin: BASE })).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(
      createTopUpCheckout(getPrisma(), getStripe()!, { keyId: '00000000-0000-4000-8000-000000000000', units: 1000, origin: BASE }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a paid top-up whose key was revoked meanwhile: nothing is added, the purchase is refused', async () => {
    const { keyId } = await boughtKey();
    const started = await createTopUpCheckout(getPrisma(), getStripe()!, { keyId, units: 1000, origin: BASE, successPath: '/portal' });
    await getPrisma().apiKey.update({ where: { id: keyId }, data: { status: 'revoked', revokedAt: new Date() } });
    fake.pay(started.sessionId);
    await deliver(fake.events.completed(started.sessionId));
    expect(await getPrisma().apiKey.findUniqueOrThrow({ where: { id: keyId } })).toMatchObject({ remainingUnits: 500, totalUnits: 500 });
    const purchase = await getPrisma().purchase.findUniqueOrThrow({ where: { id: started.purchaseId } });
    expect(purchase).toMatchObject({ status: 'refused', fulfilledAt: null });
    expect(purchase.refusal).toMatch(/revoked/);
    expect(await getPrisma().auditLog.count({ where: { action: 'key.topup', targetId: keyId } })).toBe(0);
    expect(await visitSuccess(started.sessionId, null)).toMatchObject({ state: 'refused' });
  });
});

describe('refunds and disputes', () => {
  it('records a partial then full refund once each, and flags a dispute once, with audit entries', async () => {
    const { keyId, sessionId } = await boughtKey();
    const partial = fake.events.refunded(sessionId, 900);
    expect((await deliver(partial)).body.result).toBe('refund_recorded');
    expect((await deliver(partial)).body.result).toBe('unchanged');
    expect((await listPurchasesForKey(getPrisma(), keyId))[0]).toMatchObject({ state: 'partly_refunded', amount_refunded: 900 });
    const full = fake.events.refunded(sessionId);
    expect((await deliver(full)).body.result).toBe('refund_recorded');
    expect((await deliver(partial)).body.result).toBe('unchanged'); // an older event arriving late
    expect((await listPurchasesForKey(getPrisma(), keyId))[0]).toMatchObject({ state: 'refunded', amount_refunded: 4900 });

    const dispute = fake.events.disputeCreated(sessionId);
    await Promise.all([deliver(dispute), deliver(dispute), deliver(dispute)]);
    expect((await listPurchasesForKey(getPrisma(), keyId))[0]).toMatchObject({ state: 'disputed' });
    const { purchase } = await keysOfPurchase(sessionId);
    const actions = await getPrisma().auditLog.findMany({ where: { targetId: purchase.id }, select: { action: true } });
    expect(actions.map((a) => a.action).sort()).toEqual(['purchase.dispute', 'purchase.fulfil', 'purchase.refund', 'purchase.refund']);
  });
});

describe('selling off', () => {
  // Last in the file: selling stays off after it.
  it('without the Stripe settings: /buy says so, the webhook and checkout do nothing', async () => {
    const purchasesBefore = await getPrisma().purchase.count();
    turnSellingOff();
    try {
      expect(await cataloguePage()).toEqual({ selling: false });
      expect(await successPage('cs_test_x', null)).toEqual({ state: 'off' });
      const hook = await stripeWebhook(new Request(`${BASE}/api/stripe/webhook`, { method: 'POST', body: '{}' }));
      expect(hook.status).toBe(404);
      const buy = await checkoutStart(
        new Request(`${BASE}/buy/checkout`, { method: 'POST', body: new URLSearchParams({ package_version_id: versionId }) }),
      );
      expect([buy.status, buy.headers.get('location')]).toEqual([303, `${BASE}/buy`]);
      expect(await getPrisma().purchase.count()).toBe(purchasesBefore);
    } finally {
      turnSellingOff();
    }
  });
});
