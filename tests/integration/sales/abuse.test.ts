import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { authenticateKey, clearKeyCache } from '@/server/domain/keys/authenticate-key';
import { expireOverduePurchases } from '@/server/domain/sales/expire-purchases';
import { reinstateKey } from '@/server/domain/sales/key-suspension';
import { purgeUnrevealedSecrets } from '@/server/domain/sales/sold-key-secret';
import type { FakeStripe } from '../../../fakes/fake-stripe';
import { api, call } from '../../helpers/api';
import { deliver, keysOfPurchase, packageForSale, startCheckout, turnSellingOff, turnSellingOn, visitSuccess } from './support';

// Selling that cannot be abused, against the fake Stripe with the product's own handlers: the
// success page's questions to Stripe, expiry, refunds and disputes in either order, amounts that
// differ, and secrets never shown.

let fake: FakeStripe;
let versionId: string;

beforeAll(async () => {
  fake = await turnSellingOn();
  ({ versionId } = await packageForSale());
});
afterAll(async () => {
  turnSellingOff();
  await fake.close();
  await disconnectDb();
});

const sessionReads = (sessionId: string) =>
  fake.calls.filter((c) => c.method === 'GET' && c.path === `/v1/checkout/sessions/${sessionId}`).length;
const purchaseOf = (sessionId: string) => getPrisma().purchase.findUniqueOrThrow({ where: { stripeSessionId: sessionId } });

/** A key bought and fulfilled by the webhook; its secret revealed to the buying browser. */
async function boughtKey() {
  const started = await startCheckout(versionId);
  fake.pay(started.sessionId);
  await deliver(fake.events.completed(started.sessionId));
  const page = await visitSuccess(started.sessionId, started.cookie);
  if (page.state !== 'revealed') throw new Error(`expected the key, got ${page.state}`);
  const { purchase } = await keysOfPurchase(started.sessionId);
  return { ...started, secret: page.key, keyId: purchase.apiKeyId! };
}

describe('the success page asks Stripe', () => {
  it('only for the browser that started the checkout, at most once per session every few seconds', async () => {
    const started = await startCheckout(versionId);
    // A stranger with the link, however often: no call.
    for (let i = 0; i < 20; i++) expect((await visitSuccess(started.sessionId, null)).state).toBe('processing');
    expect(sessionReads(started.sessionId)).toBe(0);
    // The buyer's reload loop, unpaid: one call, then none for a few seconds.
    const visits = await Promise.all(Array.from({ length: 20 }, () => visitSuccess(started.sessionId, started.cookie)));
    expect(visits.every((visit) => visit.state === 'processing')).toBe(true);
    expect(sessionReads(started.sessionId)).toBe(1);
    fake.pay(started.sessionId);
    expect((await visitSuccess(started.sessionId, started.cookie)).state).toBe('processing');
    expect(sessionReads(started.sessionId)).toBe(1);
    // After the interval the buyer's page asks again and shows the key.
    await expect
      .poll(async () => (await visitSuccess(started.sessionId, started.cookie)).state, { timeout: 15_000, interval: 1000 })
      .toBe('revealed');
    expect(sessionReads(started.sessionId)).toBe(2);
  });
});

describe('purchases expire with their session', () => {
  it('checkout.session.expired closes the purchase: nothing is asked or issued after', async () => {
    const started = await startCheckout(versionId);
    expect(await deliver(fake.events.expired(started.sessionId))).toMatchObject({ status: 200, body: { result: 'expired' } });
    expect(await deliver(fake.events.expired(started.sessionId))).toMatchObject({ status: 200, body: { result: 'unchanged' } });
    expect(await purchaseOf(started.sessionId)).toMatchObject({ status: 'expired' });
    expect(await visitSuccess(started.sessionId, started.cookie)).toEqual({ state: 'expired' });
    expect(sessionReads(started.sessionId)).toBe(0);
  });

  it("the sweep closes an open purchase after its session's expires_at; Stripe's word that it was paid still wins", async () => {
    const started = await startCheckout(versionId);
    const late = await startCheckout(versionId);
    const session = fake.sessions.get(started.sessionId)!;
    expect((await purchaseOf(started.sessionId)).expiresAt?.getTime()).toBe(session.expires_at * 1000);
    // Past both sessions' ends: on a loaded machine the second checkout may start seconds after the first.
    const past = new Date(Math.max(session.expires_at, fake.sessions.get(late.sessionId)!.expires_at) * 1000 + 1000);
    expect(await expireOverduePurchases(getSqlDb(), past)).toBeGreaterThanOrEqual(2);
    expect(await purchaseOf(started.sessionId)).toMatchObject({ status: 'expired' });
    expect(await purchaseOf(late.sessionId)).toMatchObject({ status: 'expired' });
    // Paid at the last moment, its event late: fulfilled all the same.
    fake.pay(late.sessionId);
    expect((await deliver(fake.events.completed(late.sessionId))).body.result).toBe('fulfilled');
    expect((await keysOfPurchase(late.sessionId)).keys).toHaveLength(1);
  });
});

describe('refunds and disputes, whatever their order', () => {
  it('a dispute before fulfilment is kept, and the key is issued suspended: /v1 refuses it until an operator reinstates it', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    expect((await deliver(fake.events.disputeCreated(started.sessionId))).body.result).toBe('reversal_kept');
    expect((await deliver(fake.events.completed(started.sessionId))).body.result).toBe('fulfilled');
    const page = await visitSuccess(started.sessionId, started.cookie);
    if (page.state !== 'revealed') throw new Error(`expected the key, got ${page.state}`);
    const { purchase, keys } = await keysOfPurchase(started.sessionId);
    expect(purchase.disputedAt).not.toBeNull();
    expect(keys[0]).toMatchObject({ status: 'suspended' });
    clearKeyCache();
    const refused = await call(api, '/v1/text/generate', { input: 'hi' }, { key: page.key });
    expect([refused.status, refused.json.error.code]).toEqual([401, 'invalid_api_key']);
    await reinstateKey(getPrisma(), CLI_ACTOR, keys[0]!.id);
    expect(await authenticateKey(getSqlDb(), `Bearer ${page.key}`)).toMatchObject({ id: keys[0]!.id });
    const actions = await getPrisma().auditLog.findMany({
      where: { targetId: { in: [purchase.id, keys[0]!.id] } },
      orderBy: { id: 'asc' },
    });
    expect(actions.map((a) => a.action)).toEqual(['key.create', 'purchase.fulfil', 'purchase.dispute', 'key.suspend', 'key.reinstate']);
  });

  it('a dispute after fulfilment suspends the key at once, from a warm key cache too', async () => {
    const bought = await boughtKey();
    await authenticateKey(getSqlDb(), `Bearer ${bought.secret}`);
    await Promise.all([1, 2, 3].map(() => deliver(fake.events.disputeCreated(bought.sessionId))));
    await expect(authenticateKey(getSqlDb(), `Bearer ${bought.secret}`)).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(await getPrisma().auditLog.count({ where: { action: 'key.suspend', targetId: bought.keyId } })).toBe(1);
  });

  it('a refunded top-up takes back its unspent units, in either order, once', async () => {
    const bought = await boughtKey();
    // A refund that arrives before its top-up's fulfilment is kept and applied by it.
    const { createTopUpCheckout } = await import('@/server/domain/sales/start-checkout');
    const { getStripe } = await import('@/server/payments/stripe-client');
    const topUp = await createTopUpCheckout(getPrisma(), getStripe()!, { keyId: bought.keyId, units: 1000, origin: 'http://x.test' });
    fake.pay(topUp.sessionId);
    expect((await deliver(fake.events.refunded(topUp.sessionId, 500))).body.result).toBe('reversal_kept');
    expect((await deliver(fake.events.completed(topUp.sessionId))).body.result).toBe('fulfilled');
    // Half refunded: 500 of the 1,000 units go back; 500 + 500 left.
    expect(await getPrisma().apiKey.findUniqueOrThrow({ where: { id: bought.keyId } })).toMatchObject({ remainingUnits: 1000 });
    // Spend most of it, then the rest is refunded: only what is left is taken.
    await getPrisma().apiKey.update({ where: { id: bought.keyId }, data: { remainingUnits: 200 } });
    const full = fake.events.refunded(topUp.sessionId);
    expect((await deliver(full)).body.result).toBe('refund_recorded');
    expect((await deliver(full)).body.result).toBe('unchanged');
    expect(await getPrisma().apiKey.findUniqueOrThrow({ where: { id: bought.keyId } })).toMatchObject({ remainingUnits: 0 });
    const purchase = await purchaseOf(topUp.sessionId);
    expect(purchase).toMatchObject({ amountRefunded: 1000, unitsReclaimed: 700 });
    const reclaims = await getPrisma().auditLog.findMany({ where: { action: 'key.reclaim', targetId: bought.keyId } });
    expect(reclaims.map((entry) => (entry.after as { units_taken_back: number }).units_taken_back)).toEqual([500, 200]);
  });
});

describe('fulfilment compares what Stripe reports', () => {
  it.each([
    ['amount', (id: string) => (fake.sessions.get(id)!.amount_total = 100)],
    ['currency', (id: string) => (fake.sessions.get(id)!.currency = 'eur')],
  ])('refuses another %s, issues nothing and alerts the operator', async (_what, alter) => {
    const alerts = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const started = await startCheckout(versionId);
      fake.pay(started.sessionId);
      alter(started.sessionId);
      expect((await deliver(fake.events.completed(started.sessionId))).body.result).toBe('refused');
      expect((await deliver(fake.events.completed(started.sessionId))).body.result).toBe('refused');
      expect(await visitSuccess(started.sessionId, started.cookie)).toEqual({ state: 'refused' });
      const { purchase, keys } = await keysOfPurchase(started.sessionId);
      expect(keys).toHaveLength(0);
      expect(purchase).toMatchObject({ status: 'refused', secretCiphertext: null });
      expect(purchase.refusal).toMatch(/^Stripe reported (amount 100|currency EUR) instead of/);
      expect(await getPrisma().auditLog.count({ where: { action: 'purchase.refuse', targetId: purchase.id } })).toBe(1);
      const lines = alerts.mock.calls.map((args) => String(args[0])).filter((line) => line.includes(purchase.id));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'sales alert', reason: 'fulfilment_refused' });
    } finally {
      alerts.mockRestore();
    }
  });
});

describe('secrets never shown', () => {
  it('are deleted SOLD_SECRET_RETENTION_HOURS after fulfilment; the page then says so', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    await deliver(fake.events.completed(started.sessionId));
    expect(await purgeUnrevealedSecrets(getPrisma(), 24)).toBe(0);
    const purged = await purgeUnrevealedSecrets(getPrisma(), 24, new Date(Date.now() + 25 * 3_600_000));
    expect(purged).toBeGreaterThanOrEqual(1);
    const { purchase } = await keysOfPurchase(started.sessionId);
    expect(purchase).toMatchObject({ secretCiphertext: null, secretIv: null, secretAuthTag: null, revealedAt: null });
    expect(purchase.secretPurgedAt).not.toBeNull();
    expect(await visitSuccess(started.sessionId, started.cookie)).toMatchObject({ state: 'key_issued', secret: 'deleted' });
  });
});
