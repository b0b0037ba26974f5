import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { POST as checkoutStart } from '@/app/buy/checkout/route';
import { POST as stripeWebhook } from '@/app/api/stripe/webhook/route';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { successPage } from '@/server/http/sales/buy-pages';
import { startFakeStripe, type FakeStripe, type SignedDelivery } from '../../../fakes/fake-stripe';
import { BASE } from '../../helpers/api';

// Selling against the fake Stripe: the product's own handlers called in-process, the SDK
// pointed at the fake on 127.0.0.1 by STRIPE_API_BASE, events signed as Stripe signs them.

export const WEBHOOK_SECRET = 'whsec_integration_test_secret';

export async function turnSellingOn(): Promise<FakeStripe> {
  const fake = await startFakeStripe({ webhookSecret: WEBHOOK_SECRET });
  process.env.STRIPE_SECRET_KEY = 'sk_test_integration';
  process.env.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET;
  process.env.STRIPE_API_BASE = fake.apiBase;
  resetConfigForTests();
  return fake;
}

export function turnSellingOff() {
  delete process.env.STRIPE_SECRET_KEY;
  delete process.env.STRIPE_WEBHOOK_SECRET;
  delete process.env.STRIPE_API_BASE;
  resetConfigForTests();
}

/** A fresh package for sale: 49.00 USD for 500 units (or `sale`'s terms), and a 1,000-unit top-up for 10.00. */
export async function packageForSale(sale: { price: number; currency: string } = { price: 49, currency: 'USD' }) {
  const slug = `sale-${randomBytes(5).toString('hex')}`;
  const file = parsePackagesFile({
    packages: [
      {
        slug,
        name: `Sale ${slug}`,
        quota_units: 500,
        limits: { requests_per_minute: 600, concurrency: 4 },
        sale: { ...sale, top_ups: [{ units: 1000, price: 10 }] },
        operations: { 'text.generate': { engine: 'local', units: 1 } },
      },
    ],
  });
  await applyPackages(getPrisma(), CLI_ACTOR, file);
  const pkg = await getPrisma().package.findUniqueOrThrow({ where: { slug }, include: { versions: true } });
  return { slug, versionId: pkg.versions[0]!.id };
}

/** The catalogue's form posted by a browser: the redirect to Stripe and the checkout cookie. */
export async function startCheckout(packageVersionId: string, cookie?: string) {
  const response = await checkoutStart(
    new Request(`${BASE}/buy/checkout`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: BASE, ...(cookie ? { Cookie: cookie } : {}) },
      body: new URLSearchParams({ package_version_id: packageVersionId }),
    }),
  );
  expect(response.status).toBe(303);
  const location = response.headers.get('location')!;
  const setCookie = response.headers.get('set-cookie') ?? '';
  const sessionId = location.split('/').at(-1)!;
  return { response, location, setCookie, sessionId, cookie: setCookie.split(';')[0]! };
}

export async function deliver(delivery: SignedDelivery, header = delivery.header) {
  const response = await stripeWebhook(
    new Request(`${BASE}/api/stripe/webhook`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
      body: delivery.payload,
    }),
  );
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { result?: string; error?: { code: string } },
  };
}

export const visitSuccess = (sessionId: string, cookie: string | null) => successPage(sessionId, cookie);

export async function keysOfPurchase(sessionId: string) {
  const purchase = await getPrisma().purchase.findUniqueOrThrow({ where: { stripeSessionId: sessionId } });
  const keys = await getPrisma().apiKey.findMany({ where: { purchaseId: purchase.id } });
  const audits = await getPrisma().auditLog.count({ where: { action: 'purchase.fulfil', targetId: purchase.id } });
  return { purchase, keys, audits };
}
