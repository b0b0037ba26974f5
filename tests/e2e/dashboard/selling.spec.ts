import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as baseExpect, test, type Page } from '@playwright/test';
import { baseURL } from '../../../playwright.config';
import { startFakeStripe, type FakeStripe } from '../../../fakes/fake-stripe';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { signIn } from '../support/dashboard';
import { e2eStripePort, E2E_STRIPE_WEBHOOK_SECRET } from '../support/stripe';

// A stranger buys a package with no operator in the loop (issue 38): the catalogue at /buy, the
// fake Stripe's hosted checkout page (which redirects back as Stripe's does, and delivers the
// signed checkout.session.completed), the key shown once on the success page, a /v1 call with
// it, and the operator's Sales page. Screenshots at 1440×900 go to tests/artifacts/selling.

const expect = baseExpect.configure({ timeout: 20_000 });
const ARTIFACTS = join(process.cwd(), 'tests', 'artifacts', 'selling');

async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) }); // the 1440×900 viewport
}

let fake: FakeStripe;
test.beforeAll(async () => {
  fake = await startFakeStripe({
    port: e2eStripePort(),
    webhookUrl: `${baseURL}/api/stripe/webhook`,
    webhookSecret: E2E_STRIPE_WEBHOOK_SECRET,
  });
});
test.afterAll(async () => {
  await fake?.close();
});

test('a stranger buys a package, sees the key once, calls /v1 with it; the operator sees the sale', async ({ page, request }) => {
  test.setTimeout(150_000);
  const slug = `buy-${randomUUID().slice(0, 8)}`;
  const name = `Starter ${slug}`;
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-selling-')), 'packages.json');
  writeFileSync(
    file,
    JSON.stringify({
      packages: [
        {
          slug,
          name,
          quota_units: 300,
          limits: { requests_per_minute: 60, concurrency: 2 },
          sale: { price: 19, currency: 'USD', top_ups: [{ units: 500, price: 5 }] },
          operations: { 'text.generate': { engine: 'local', units: 1 }, 'code.generate': { engine: 'local', units: 2 } },
        },
      ],
    }),
  );
  cli('packages', 'apply', file);

  await test.step('the catalogue lists the package with what it includes and its price', async () => {
    await page.goto('/buy');
    await expect(page.getByRole('heading', { level: 1, name: 'Buy API access' })).toBeVisible();
    const offer = page.locator(`#package-${slug}`);
    await expect(offer.getByRole('heading', { name })).toBeVisible();
    await expect(offer.getByTestId(`price-${slug}`)).toHaveText('$19.00');
    await expect(offer.getByText('code.generate')).toBeVisible();
    await expect(offer.getByText('500 units for $5.00')).toBeVisible();
    await expectAccessible(page, 'the catalogue');
    await screenshot(page, 'catalogue');
  });

  let key = '';
  await test.step("buying goes to Stripe's checkout, and back to the key, shown once", async () => {
    await page.getByRole('button', { name: `Buy ${name}` }).click();
    await expect(page).toHaveURL(new RegExp(`^${fake.apiBase}/checkout/cs_test_`));
    await expect(page.getByTestId('amount')).toHaveText('19.00 USD');
    await page.getByLabel('Email').fill('stranger@example.com');
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect(page).toHaveURL(new RegExp(`^${baseURL}/buy/success\\?session_id=cs_test_`));
    key = (await page.getByTestId('purchased-key').textContent()) ?? '';
    expect(key).toMatch(/^wgs_live_[0-9A-Za-z]{40}$/);
    await expectAccessible(page, 'the success page');
    await screenshot(page, 'success');
    // On to the portal and Back: the page is asked again, and the key is not shown again.
    await page.getByRole('link', { name: 'customer portal' }).click();
    await expect(page).toHaveURL(/\/portal$/);
    await page.goBack();
    await expect(page.getByTestId('key-issued')).toContainText('shown once');
    await expect(page.getByTestId('purchased-key')).toHaveCount(0);
    await page.reload();
    await expect(page.getByTestId('key-issued')).toBeVisible();
    await expect(page.getByTestId('purchased-key')).toHaveCount(0);
  });

  await test.step('the key works on /v1', async () => {
    const response = await request.post('/v1/text/generate', {
      headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `buy-${randomUUID()}` },
      data: { input: 'hello from a buyer' },
    });
    expect(response.status()).toBe(200);
    expect((await response.json()).usage).toEqual({ charged_units: 1, remaining_units: 299 });
  });

  await test.step('the delivered event found the purchase fulfilled: still one key', async () => {
    await expect.poll(() => fake.deliveries.map((d) => d.status)).toEqual([200]);
  });

  await test.step("the operator's Sales page shows the purchase", async () => {
    await signIn(page);
    await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
    await page.goto('/sales');
    const row = page.getByRole('row').filter({ hasText: 'stranger@example.com' });
    await expect(row).toHaveCount(1);
    await expect(row.getByText('paid', { exact: true })).toBeVisible();
    await expect(row.getByText('$19.00')).toBeVisible();
    await expectAccessible(page, 'the Sales page');
  });
});
