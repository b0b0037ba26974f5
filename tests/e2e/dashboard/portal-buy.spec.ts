import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { baseURL } from '../../../playwright.config';
import { startFakeStripe } from '../../../fakes/fake-stripe';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { e2eStripePort, E2E_STRIPE_WEBHOOK_SECRET } from '../support/stripe';

// A stranger buys a package (the fake Stripe's checkout page pays and redirects back as Stripe's
// does), sees the key once, calls /v1 with it, signs in to the portal, sees that call, buys a
// top-up from the portal and, back from the checkout, sees the units and both receipts; a second
// top-up, paid by a method confirmed later, shows its units once confirmed, without a reload.

test.describe.configure({ timeout: 180_000 });

let fake: Awaited<ReturnType<typeof startFakeStripe>>;
test.beforeAll(async () => {
  // Fulfilment also arrives as Stripe's webhook, racing the pages that come back from the checkout.
  fake = await startFakeStripe({
    port: e2eStripePort(),
    webhookSecret: E2E_STRIPE_WEBHOOK_SECRET,
    webhookUrl: `${baseURL}/api/stripe/webhook`,
  });
});
test.afterAll(async () => {
  await fake?.close();
});

function applySellingPackage(slug: string) {
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-portal-buy-')), 'packages.json');
  const definition = {
    slug,
    name: `Shop ${slug}`,
    quota_units: 500,
    limits: { requests_per_minute: 60, concurrency: 2 },
    sale: { price: 49, currency: 'USD', top_ups: [{ units: 1000, price: 10 }] },
    operations: { 'text.generate': { engine: 'local', units: 2, output_formats: ['text'] } },
  };
  writeFileSync(file, JSON.stringify({ packages: [definition] }));
  cli('packages', 'apply', file);
}

test('a stranger buys a key, uses it, sees the call in the portal, tops up and sees the units', async ({ page, request }) => {
  const slug = `shop-${randomUUID().slice(0, 8)}`;
  applySellingPackage(slug);

  const key = await test.step('buy the package: the key is shown once', async () => {
    await page.goto('/buy');
    await page.getByRole('button', { name: `Buy Shop ${slug}` }).click();
    await expect(page.getByRole('heading', { name: `Pay Shop ${slug}` })).toBeVisible();
    await page.getByRole('button', { name: 'Pay' }).click();
    const shown = page.getByTestId('purchased-key');
    await expect(shown).toContainText('wgs_live_');
    return (await shown.textContent())!.trim();
  });

  await test.step('call the API with it', async () => {
    const response = await request.post('/v1/text/generate', {
      headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
      data: { input: 'Hello from a buyer.' },
    });
    expect(response.status()).toBe(200);
  });

  await test.step('sign in to the portal and see the call, the units and the receipt', async () => {
    await page.getByRole('link', { name: 'customer portal' }).click();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('498');
    const calls = page.getByRole('region', { name: 'Your latest calls' });
    await expect(calls.getByRole('row').nth(1)).toContainText('text.generate');
    await expect(calls.getByRole('row').nth(1)).toContainText('succeeded');
    const receipts = page.getByRole('region', { name: 'Your purchases and their receipts' });
    await expect(receipts.getByRole('row')).toHaveCount(2);
    await expect(receipts.getByRole('row').nth(1)).toContainText('$49.00');
    await expect(receipts.getByRole('link', { name: /Receipt/ })).toHaveAttribute('href', new RegExp(`^${fake.apiBase}/receipts/ch_`));
  });

  await test.step('buy a top-up: back in the portal with the units added', async () => {
    await page.getByRole('button', { name: 'Buy 1,000 units for $10.00' }).click();
    await expect(page.getByRole('heading', { name: `Pay Shop ${slug}: top-up` })).toBeVisible();
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect(page).toHaveURL(/\/portal\?session_id=cs_/);
    await expect(page.getByText('Thank you: 1,000 units were added to your key.')).toBeVisible();
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('1,498');
    const receipts = page.getByRole('region', { name: 'Your purchases and their receipts' });
    await expect(receipts.getByRole('row')).toHaveCount(3);
    await expect(receipts.getByRole('row').nth(1)).toContainText('Top-up');
    await expect(receipts.getByRole('row').nth(1)).toContainText('$10.00');
    await expectAccessible(page, 'the portal after a top-up');
    mkdirSync('tests/artifacts', { recursive: true });
    await page.screenshot({ path: 'tests/artifacts/portal-top-up.png', fullPage: false });
    // The page reloaded with the same session_id adds nothing more.
    await page.reload();
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('1,498');
  });

  await test.step('a top-up paid by a method confirmed later: its units appear without a reload', async () => {
    await page.getByRole('button', { name: 'Buy 1,000 units for $10.00' }).click();
    await page.getByLabel('Pay by a method confirmed later').check();
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect(page).toHaveURL(/\/portal\?session_id=cs_/);
    await expect(page.getByText('Your payment is being processed')).toBeVisible();
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('1,498');
    const sessionId = new URL(page.url()).searchParams.get('session_id')!;
    expect(await fake.deliver(fake.events.asyncSucceeded(sessionId))).toBe(200);
    await expect(page.getByText('Thank you: 1,000 units were added to your key.')).toBeVisible();
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('2,498');
  });
});
