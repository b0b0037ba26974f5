import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { findPortalSession } from '@/server/domain/portal/portal-session';
import { createPortalInnerContext } from '@/server/trpc/portal/portal-context';
import { createPortalCaller } from '@/server/trpc/portal/portal-router';
import type { FakeStripe } from '../../../fakes/fake-stripe';
import { BASE } from '../../helpers/api';
import { packageForSale, startCheckout, turnSellingOff, turnSellingOn, visitSuccess } from '../sales/support';
import { expectTrpcError } from '../trpc/helpers';
import { keyOnFreshPackage, portalSignIn } from './portal-helpers';

// Buying a top-up from the portal against the fake Stripe: the packs the key's package sells, a
// checkout that comes back to the portal, the units added once (whoever comes first: the return
// or the webhook), the receipts with Stripe's receipt URLs, and nothing of another key's.

let fake: FakeStripe;
let versionId: string;

/** A key bought through the catalogue's checkout, its secret revealed to the buying browser. */
async function boughtKey() {
  const started = await startCheckout(versionId);
  fake.pay(started.sessionId);
  const page = await visitSuccess(started.sessionId, started.cookie);
  if (page.state !== 'revealed') throw new Error(`expected the key to be revealed, got ${page.state}`);
  return page.key;
}

async function signedInBuyer(address?: string) {
  const { session } = await portalSignIn(await boughtKey());
  return { session, caller: createPortalCaller(createPortalInnerContext(session, getPrisma(), BASE, address)) };
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

describe('top-ups from the portal', () => {
  it("offers the package's packs, and a paid top-up adds its units once, back in the portal", async () => {
    const { caller, session } = await signedInBuyer();
    const before = await caller.sales();
    expect(before).toMatchObject({ canTopUp: true, noTopUpReason: null, currency: 'USD', topUps: [{ units: 1000, minor: 1000 }] });
    expect(before.receipts).toMatchObject([{ kind: 'package', state: 'paid', units: 500, amount: 4900, currency: 'USD' }]);
    expect(before.receipts[0]!.receipt_url).toMatch(new RegExp(`^${fake.apiBase}/receipts/ch_`));

    const { url } = await caller.buyTopUp({ units: 1000 });
    const sessionId = url.split('/').at(-1)!;
    expect(fake.sessions.get(sessionId)).toMatchObject({
      amount_total: 1000,
      success_url: `${BASE}/portal?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${BASE}/portal`,
    });
    expect(await caller.topUpReturn({ sessionId })).toEqual({ state: 'processing' });
    fake.pay(sessionId);
    // Stripe is asked about the session at most once every few seconds, however often the portal comes back.
    await expect
      .poll(() => caller.topUpReturn({ sessionId }), { timeout: 15_000, interval: 500 })
      .toEqual({ state: 'topped_up', units: 1000 });
    const returns = await Promise.all([caller.topUpReturn({ sessionId }), caller.topUpReturn({ sessionId })]);
    expect(returns).toEqual([
      { state: 'topped_up', units: 1000 },
      { state: 'topped_up', units: 1000 },
    ]);
    expect(await caller.topUpReturn({ sessionId })).toEqual({ state: 'topped_up', units: 1000 });
    expect((await caller.overview()).key).toMatchObject({ remaining_units: 1500, total_units: 1500 });
    const after = await caller.sales();
    expect(after.receipts.map((receipt) => [receipt.kind, receipt.units, receipt.amount])).toEqual([
      ['top_up', 1000, 1000],
      ['package', 500, 4900],
    ]);
    expect(await getPrisma().auditLog.count({ where: { action: 'key.topup', targetId: session.apiKeyId } })).toBe(1);
  });

  it('a payment that is not the pack\'s price says so on return (it said "being processed" for ever), and adds nothing', async () => {
    const { caller } = await signedInBuyer();
    const { url } = await caller.buyTopUp({ units: 1000 });
    const sessionId = url.split('/').at(-1)!;
    fake.sessions.get(sessionId)!.amount_total = 100;
    fake.pay(sessionId);
    await expect.poll(() => caller.topUpReturn({ sessionId }), { timeout: 15_000, interval: 500 }).toEqual({ state: 'refused' });
    expect((await caller.overview()).key.remaining_units).toBe(500);
  });

  it("refuses a pack the package does not sell, and another key's checkout on return", async () => {
    const a = await signedInBuyer();
    const b = await signedInBuyer();
    await expectTrpcError(a.caller.buyTopUp({ units: 999 }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    const { url } = await b.caller.buyTopUp({ units: 1000 });
    const sessionId = url.split('/').at(-1)!;
    fake.pay(sessionId);
    await expectTrpcError(a.caller.topUpReturn({ sessionId }), 'NOT_FOUND', 'not_found');
    expect((await a.caller.overview()).key.remaining_units).toBe(500);
    // The portal's page, without a request origin, cannot start one.
    await expectTrpcError(createPortalCaller(createPortalInnerContext(a.session)).buyTopUp({ units: 1000 }), 'BAD_REQUEST');
  });

  it('a package that sells nothing, or selling turned off, offers no top-up', async () => {
    const plain = await keyOnFreshPackage('no-sale');
    const { session } = await portalSignIn(plain.secret);
    const caller = createPortalCaller(createPortalInnerContext(session, getPrisma(), BASE));
    expect(await caller.sales()).toEqual({ canTopUp: false, noTopUpReason: 'none_offered', currency: null, topUps: [], receipts: [] });
    await expectTrpcError(caller.buyTopUp({ units: 1000 }), 'UNPROCESSABLE_CONTENT', 'validation_error');

    const buyer = await signedInBuyer();
    turnSellingOff();
    try {
      expect(await buyer.caller.sales()).toMatchObject({ canTopUp: false, noTopUpReason: 'selling_off', topUps: [{ units: 1000 }] });
      await expectTrpcError(buyer.caller.buyTopUp({ units: 1000 }), 'NOT_FOUND', 'not_found');
    } finally {
      fake = await turnSellingOn();
    }
  });

  it('a suspended key is told its top-ups wait for it to be reinstated, not that its package sells none', async () => {
    const { token, session } = await portalSignIn(await boughtKey());
    await getPrisma().apiKey.update({ where: { id: session.apiKeyId }, data: { status: 'suspended', suspendedAt: new Date() } });
    const suspended = await findPortalSession(getPrisma(), token);
    const caller = createPortalCaller(createPortalInnerContext(suspended!, getPrisma(), BASE));
    expect(await caller.sales()).toMatchObject({ canTopUp: false, noTopUpReason: 'key_not_active', topUps: [{ units: 1000 }] });
  });
});

describe('top-up checkouts are limited per key and per client address', () => {
  it('past TOP_UP_STARTS_PER_MINUTE for the key or the address: 429, and Stripe is not called', async () => {
    process.env.TOP_UP_STARTS_PER_MINUTE = '2';
    resetConfigForTests();
    try {
      const created = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').length;
      const [a, b, c] = [await signedInBuyer('198.51.100.17'), await signedInBuyer('198.51.100.17'), await signedInBuyer('198.51.100.19')];
      await a.caller.buyTopUp({ units: 1000 });
      await a.caller.buyTopUp({ units: 1000 });
      const before = created();
      await expectTrpcError(a.caller.buyTopUp({ units: 1000 }), 'TOO_MANY_REQUESTS', 'rate_limited');
      // Another key from the same address is refused too (the address's window is full) ...
      await expectTrpcError(b.caller.buyTopUp({ units: 1000 }), 'TOO_MANY_REQUESTS', 'rate_limited');
      // ... and the same key from another address (its own window is full).
      const elsewhere = createPortalCaller(createPortalInnerContext(a.session, getPrisma(), BASE, '198.51.100.18'));
      await expectTrpcError(elsewhere.buyTopUp({ units: 1000 }), 'TOO_MANY_REQUESTS', 'rate_limited');
      expect(created()).toBe(before);
      // A key and an address of their own start one.
      await expect(c.caller.buyTopUp({ units: 1000 })).resolves.toMatchObject({ url: expect.stringContaining('/checkout/') });
    } finally {
      delete process.env.TOP_UP_STARTS_PER_MINUTE;
      resetConfigForTests();
    }
  });
});
