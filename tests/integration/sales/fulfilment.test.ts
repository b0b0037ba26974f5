import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import type { PrismaClient } from '@/server/db/generated/client';
import { checkoutPageState } from '@/server/domain/sales/checkout-page';
import { getStripe } from '@/server/payments/stripe-client';
import { hashKeySecret } from '@/server/domain/keys/key-secret';
import { listKeys } from '@/server/domain/keys/manage-keys';
import type { FakeStripe } from '../../../fakes/fake-stripe';
import { POST as checkoutStart } from '@/app/buy/checkout/route';
import { api, BASE, call, createTestKey } from '../../helpers/api';
import {
  deliver,
  keysOfPurchase,
  packageForSale,
  startCheckout,
  turnSellingOff,
  turnSellingOn,
  visitSuccess,
  WEBHOOK_SECRET,
} from './support';

// Fulfilment exactly once (issue 38 point 3 and 4): one key per paid session whatever the
// deliveries and races, a bad signature changes nothing, an unpaid or unknown session issues
// nothing, and the secret is shown once, to the browser that started the checkout.

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

describe('checkout', () => {
  it('creates a payment-mode session priced from the package version, with the purchase in its metadata, and an httpOnly cookie', async () => {
    const started = await startCheckout(versionId);
    expect(started.location).toBe(`${fake.apiBase}/checkout/${started.sessionId}`);
    expect(started.setCookie).toMatch(/^__Host-wgs_checkout=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=86400$/);
    const create = fake.calls.find(
      (c) =>
        c.method === 'POST' &&
        c.path === '/v1/checkout/sessions' &&
        fake.sessions.get(started.sessionId)?.metadata.purchase_id === (c.body.metadata as Record<string, string>).purchase_id,
    )!;
    const purchase = await getPrisma().purchase.findUniqueOrThrow({ where: { stripeSessionId: started.sessionId } });
    expect(create.body).toMatchObject({
      mode: 'payment',
      client_reference_id: purchase.id,
      metadata: { purchase_id: purchase.id, package_version_id: versionId, kind: 'package' },
      line_items: { '0': { quantity: '1', price_data: { currency: 'usd', unit_amount: '4900' } } },
      success_url: 'http://127.0.0.1:3999/buy/success?session_id={CHECKOUT_SESSION_ID}',
    });
    expect(purchase).toMatchObject({ status: 'open', amount: 4900, currency: 'USD', units: 500, apiKeyId: null });
  });

  it("sends Stripe the amount in Stripe's minor unit where ICU's differs: HUF 5,000 is 500000 hundredths", async () => {
    const huf = await packageForSale({ price: 5000, currency: 'HUF' });
    const started = await startCheckout(huf.versionId);
    const purchase = await getPrisma().purchase.findUniqueOrThrow({ where: { stripeSessionId: started.sessionId } });
    expect(purchase).toMatchObject({ amount: 500_000, currency: 'HUF' });
    expect(fake.sessions.get(started.sessionId)).toMatchObject({ amount_total: 500_000, currency: 'huf' });
    fake.pay(started.sessionId);
    expect(await deliver(fake.events.completed(started.sessionId))).toMatchObject({ status: 200, body: { result: 'fulfilled' } });
  });

  it("refuses another site's form (403) and a version not for sale (back to the catalogue), starting nothing", async () => {
    const before = await getPrisma().purchase.count();
    const crossSite = await checkoutStart(
      new Request(`${BASE}/buy/checkout`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' },
        body: new URLSearchParams({ package_version_id: versionId }),
      }),
    );
    expect(crossSite.status).toBe(403);
    const notForSale = await createTestKey();
    const version = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: notForSale.id } });
    const refused = await checkoutStart(
      new Request(`${BASE}/buy/checkout`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: BASE },
        body: new URLSearchParams({ package_version_id: version.packageVersionId }),
      }),
    );
    expect([refused.status, refused.headers.get('location')]).toEqual([303, `${BASE}/buy?error=unavailable`]);
    expect(await getPrisma().purchase.count()).toBe(before);
  });
});

describe('fulfilment exactly once', () => {
  it('issues one key locked to the bought version, with the buyer and an audit entry; the key works on /v1', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId, { email: 'ada@example.com' });
    expect(await deliver(fake.events.completed(started.sessionId))).toMatchObject({ status: 200, body: { result: 'fulfilled' } });
    const { keys, audits, purchase } = await keysOfPurchase(started.sessionId);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ packageVersionId: versionId, buyerEmail: 'ada@example.com', remainingUnits: 500, status: 'active' });
    // The buyer's e-mail is kept apart, not in the label (clearing it must remove it); keys are found by it.
    expect(keys[0]!.label).toBe('Bought through Stripe Checkout');
    expect((await listKeys(getPrisma(), { search: 'ADA@example' })).items.map((key) => key.id)).toContain(keys[0]!.id);
    expect(keys[0]!.stripeCustomerId).toMatch(/^cus_test_/);
    expect(audits).toBe(1);
    expect(purchase).toMatchObject({ status: 'fulfilled', amountPaid: 4900, apiKeyId: keys[0]!.id });
    expect(purchase.receiptUrl).toMatch(new RegExp(`^${fake.apiBase}/receipts/ch_test_`));

    const page = await visitSuccess(started.sessionId, started.cookie);
    if (page.state !== 'revealed') throw new Error(`expected the key, got ${page.state}`);
    expect(hashKeySecret(page.key)).toBe(keys[0]!.hash);
    const used = await call(api, '/v1/text/generate', { input: 'hello' }, { key: page.key });
    expect(used.status).toBe(200);
  });

  it('a delivery racing the success page, and 20 duplicate deliveries at once, issue one key', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    const completed = fake.events.completed(started.sessionId);
    const [page, ...results] = await Promise.all([
      visitSuccess(started.sessionId, started.cookie),
      ...Array.from({ length: 20 }, () => deliver(completed)),
    ]);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const { keys, audits } = await keysOfPurchase(started.sessionId);
    expect(keys).toHaveLength(1);
    expect(audits).toBe(1);
    expect(page.state).toBe('revealed');
    // Whoever won, every other delivery found the purchase fulfilled.
    expect(results.filter((r) => r.body.result === 'fulfilled').length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.body.result === 'already_fulfilled').length).toBeGreaterThanOrEqual(19);
  });

  it('a replay a day later issues nothing; its day-old signature is refused', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    const original = fake.events.completed(started.sessionId);
    expect((await deliver(original)).body.result).toBe('fulfilled');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 86_400_000);
      expect((await deliver(original)).status).toBe(400); // outside Stripe's 5-minute tolerance
      const redelivered = fake.signed(original.event.type, original.event.data.object, original.event.id);
      expect(await deliver(redelivered)).toMatchObject({ status: 200, body: { result: 'already_fulfilled' } });
    } finally {
      vi.useRealTimers();
    }
    expect((await keysOfPurchase(started.sessionId)).keys).toHaveLength(1);
  });

  it('a bad signature is 400 and changes nothing', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    const delivery = fake.events.completed(started.sessionId);
    const forged = delivery.header.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`);
    expect(await deliver(delivery, forged)).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect((await deliver(delivery, '')).status).toBe(400);
    // A valid signature of another body does not carry over to this one.
    const tampered = { ...delivery, payload: delivery.payload.replace(started.sessionId, 'cs_test_forged') };
    expect((await deliver(tampered)).status).toBe(400);
    // Outside Stripe's 5 minutes either way (its SDK refuses only the past side; sales audit).
    for (const offset of [-400, 400]) {
      const timestamp = Math.floor(Date.now() / 1000) + offset;
      const dated = Stripe.webhooks.generateTestHeaderString({ payload: delivery.payload, secret: WEBHOOK_SECRET, timestamp });
      expect(await deliver(delivery, dated), `signed ${offset} s from now`).toMatchObject({ status: 400 });
    }
    const { keys, purchase } = await keysOfPurchase(started.sessionId);
    expect(keys).toHaveLength(0);
    expect(purchase.status).toBe('open');
  });

  it('an unpaid session issues nothing until its asynchronous payment succeeds, then one key', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId, { async: true });
    expect((await deliver(fake.events.completed(started.sessionId))).body.result).toBe('unpaid');
    expect((await visitSuccess(started.sessionId, started.cookie)).state).toBe('processing');
    expect((await keysOfPurchase(started.sessionId)).keys).toHaveLength(0);
    expect((await deliver(fake.events.asyncSucceeded(started.sessionId))).body.result).toBe('fulfilled');
    expect((await keysOfPurchase(started.sessionId)).keys).toHaveLength(1);
  });

  it('a session this service did not start issues nothing', async () => {
    const stranger = await fake.client().checkout.sessions.create({
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 100, product_data: { name: 'x' } } }],
      metadata: { purchase_id: '00000000-0000-4000-8000-000000000000' },
      success_url: 'http://127.0.0.1/x',
    });
    fake.pay(stranger.id);
    const before = await getPrisma().apiKey.count();
    expect(await deliver(fake.events.completed(stranger.id))).toMatchObject({ status: 200, body: { result: 'unknown' } });
    expect(await getPrisma().apiKey.count()).toBe(before);
    expect((await visitSuccess(stranger.id, null)).state).toBe('unknown');
  });
});

describe('Stripe out of reach', () => {
  /** Runs `during` with the product's Stripe client pointed at a port nothing listens on. */
  async function withStripeAway<T>(during: () => Promise<T>): Promise<T> {
    process.env.STRIPE_API_BASE = 'http://127.0.0.1:9';
    resetConfigForTests();
    try {
      return await during();
    } finally {
      process.env.STRIPE_API_BASE = fake.apiBase;
      resetConfigForTests();
    }
  }

  it('a checkout Stripe could not open ends its purchase at once, rather than leave it open', async () => {
    const before = await getPrisma().purchase.findMany({ select: { id: true } });
    const response = await withStripeAway(() =>
      checkoutStart(
        new Request(`${BASE}/buy/checkout`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: BASE },
          body: new URLSearchParams({ package_version_id: versionId }),
        }),
      ),
    );
    expect([response.status, response.headers.get('location')]).toEqual([303, `${BASE}/buy?error=stripe`]);
    const created = await getPrisma().purchase.findMany({ where: { id: { notIn: before.map((p) => p.id) } } });
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ status: 'expired', stripeSessionId: null });
    expect(created[0]!.expiredAt).not.toBeNull();
  });

  it('a delivery whose session cannot be confirmed is 503 (Stripe delivers it again) and changes nothing', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    const completed = fake.events.completed(started.sessionId);
    const away = await withStripeAway(() => deliver(completed));
    expect(away).toMatchObject({ status: 503, retryAfter: '5', body: { error: { code: 'provider_unavailable' } } });
    expect(await keysOfPurchase(started.sessionId)).toMatchObject({ keys: [], purchase: { status: 'open' } });
    expect(await deliver(completed)).toMatchObject({ status: 200, body: { result: 'fulfilled' } });
  });

  it("a signed refund whose amount is not Stripe's integer is refused 400, not a 500 (Stripe would retry it for days)", async () => {
    const refund = fake.signed('charge.refunded', { object: 'charge', id: 'ch_bad', payment_intent: 'pi_bad', amount_refunded: 'lots' });
    expect(await deliver(refund)).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
  });

  it('a signed session event that names no session is ignored, not a 500', async () => {
    const nameless = fake.signed('checkout.session.completed', { object: 'checkout.session', payment_status: 'paid' });
    expect(await deliver(nameless)).toMatchObject({ status: 200, body: { result: 'ignored' } });
  });
});

describe('the key shown once, to the buyer', () => {
  it('fulfils on the success page when no webhook came, reveals once, and never to another browser', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    // Another browser (another cookie, or none) neither asks Stripe nor sees anything but "processing".
    const asked = () => fake.calls.filter((c) => c.method === 'GET' && c.path === `/v1/checkout/sessions/${started.sessionId}`).length;
    expect((await visitSuccess(started.sessionId, '__Host-wgs_checkout=' + 'x'.repeat(43))).state).toBe('processing');
    expect((await visitSuccess(started.sessionId, null)).state).toBe('processing');
    expect(asked()).toBe(0);

    const first = await visitSuccess(started.sessionId, started.cookie);
    if (first.state !== 'revealed') throw new Error(`expected the key, got ${first.state}`);
    expect(asked()).toBe(1);
    const sealed = await keysOfPurchase(started.sessionId);
    expect(sealed.keys).toHaveLength(1);
    expect(hashKeySecret(first.key)).toBe(sealed.keys[0]!.hash);
    expect(await visitSuccess(started.sessionId, started.cookie)).toEqual({
      state: 'key_issued',
      prefix: first.prefix,
      packageName: first.packageName,
      secret: 'shown',
    });
    expect((await visitSuccess(started.sessionId, null)).state).toBe('key_issued');
    const after = await keysOfPurchase(started.sessionId);
    expect(after.purchase).toMatchObject({ secretCiphertext: null, secretIv: null, secretAuthTag: null });
    expect(after.purchase.revealedAt).not.toBeNull();
  });

  it("each checkout mints a fresh token and keeps the browser's latest five: two checkouts open in one browser each show their key there", async () => {
    const tokensOf = (cookie: string) => cookie.slice('__Host-wgs_checkout='.length).split('.');
    const first = await startCheckout(versionId);
    const second = await startCheckout(versionId, first.cookie);
    expect(tokensOf(second.cookie)).toEqual([expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), ...tokensOf(first.cookie)]);
    expect(tokensOf(second.cookie)[0]).not.toBe(tokensOf(first.cookie)[0]);
    for (const started of [first, second]) fake.pay(started.sessionId);
    // The browser's cookie is now the second's: the first checkout's key still shows there.
    expect((await visitSuccess(first.sessionId, second.cookie)).state).toBe('revealed');
    // A token opens only the checkout it started.
    expect((await visitSuccess(second.sessionId, first.cookie)).state).toBe('processing');
    expect((await visitSuccess(second.sessionId, second.cookie)).state).toBe('revealed');
    let cookie = second.cookie;
    for (let i = 0; i < 5; i++) cookie = (await startCheckout(versionId, cookie)).cookie;
    expect(tokensOf(cookie)).toHaveLength(5);
    expect(tokensOf(cookie)).not.toContain(tokensOf(second.cookie)[0]);
  });

  it('a purchase the webhook fulfilled after the page read it open: the page shows the key, not "processing"', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    await deliver(fake.events.completed(started.sessionId));
    // The page's first read as it was a moment before the webhook: open.
    const purchases = getPrisma().purchase;
    const readBeforeTheWebhook = {
      findUnique: async (args: Parameters<typeof purchases.findUnique>[0]) => ({
        ...(await purchases.findUnique(args))!,
        status: 'open' as const,
      }),
      findUniqueOrThrow: purchases.findUniqueOrThrow.bind(purchases),
    };
    const db = new Proxy(getPrisma(), {
      get: (target, name, receiver) => (name === 'purchase' ? readBeforeTheWebhook : Reflect.get(target, name, receiver)),
    }) as PrismaClient;
    const token = started.cookie.split('=')[1]!;
    const page = await checkoutPageState(db, getSqlDb(), getStripe()!, { sessionId: started.sessionId, browserTokens: [token] });
    expect(page.state).toBe('revealed');
  });

  it('a key fulfilled by the webhook and not shown yet: the page tells anyone else it waits for the browser that started the checkout', async () => {
    const started = await startCheckout(versionId);
    fake.pay(started.sessionId);
    await deliver(fake.events.completed(started.sessionId));
    expect(await visitSuccess(started.sessionId, null)).toMatchObject({ state: 'key_issued', secret: 'waiting' });
    expect((await visitSuccess(started.sessionId, started.cookie)).state).toBe('revealed');
    expect(await visitSuccess(started.sessionId, null)).toMatchObject({ state: 'key_issued', secret: 'shown' });
  });
});
