import { randomUUID } from 'node:crypto';
import { expect as baseExpect, test } from '@playwright/test';
import { FAKE_ERROR_TEXT, startFakeOpenAi, type FakeOpenAi } from '../../helpers/fake-openai';
import { keepScreenshot, signIn, stat } from '../support/dashboard';

// An operator adds a provider (an OpenAI-compatible fake on 127.0.0.1 that this spec runs),
// stores its key, tests it, sells text.generate through it with `local` as the fallback, issues
// a key, and a customer's call is answered by the provider; the Providers page counts the call.

// Saving a form waits on the database and a test on the provider: on a loaded machine, over 5 s.
const expect = baseExpect.configure({ timeout: 20_000 });

let fake: FakeOpenAi;
test.beforeAll(async () => {
  fake = await startFakeOpenAi();
});
test.afterAll(async () => {
  await fake.close();
});

const PROVIDER = `fake-${randomUUID().slice(0, 6)}`;
const SLUG = `via-${PROVIDER}`;
const PROVIDER_KEY = `sk-e2e-${randomUUID()}`;

test('add a provider with a key, test it, and sell an operation through it', async ({ page, request }) => {
  test.setTimeout(180_000); // many steps, each a page load or a provider call
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });

  await test.step('add the provider, refused first without the base URL its type requires', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Providers' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Providers' })).toBeVisible();
    await page.getByRole('link', { name: 'Add a provider' }).click();
    await page.getByLabel('Name').fill(PROVIDER);
    await page.getByLabel('Type').selectOption('openai-compatible');
    await expect(page.getByText('Serves text.generate, code.generate, images.generate.')).toBeVisible();
    await page.getByRole('button', { name: 'Add provider' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'base_url' })).toBeVisible();
    await expect(page.getByLabel('Base URL')).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('Base URL').fill(fake.baseUrl);
    await page.getByRole('button', { name: 'Add provider' }).click();
    await expect(page).toHaveURL(new RegExp(`/providers/${PROVIDER}\\?created=1$`));
    await expect(page.getByRole('heading', { level: 1, name: PROVIDER })).toBeVisible();
  });

  await test.step('store its key: write-only, never shown again', async () => {
    await page.getByLabel('Key', { exact: true }).fill(PROVIDER_KEY);
    await page.getByRole('button', { name: 'Store key' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Key stored, encrypted. It is never shown again.' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Replace key' })).toBeVisible();
    expect(await page.content()).not.toContain(PROVIDER_KEY);
    await keepScreenshot(page, 'provider-detail');
  });

  await test.step('test it: the outcome in plain words, the provider\'s own text never shown', async () => {
    await page.getByLabel('Model').fill('fake-model');
    fake.setMode({ kind: 'status', status: 401 });
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.getByTestId('provider-test-result');
    await expect(result).toContainText('The provider refused the key (401).');
    await expect(result).not.toContainText(FAKE_ERROR_TEXT);
    fake.reset();
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect(result).toContainText(/^Answered in \d+ ms\. \(text\.generate with fake-model\)$/);
    expect(fake.lastAuthorization).toBe(`Bearer ${PROVIDER_KEY}`);
  });

  await test.step('sell text.generate through it, with local as the fallback', async () => {
    await page.goto('/packages/new');
    await page.getByLabel('Slug').fill(SLUG);
    await page.getByLabel('Name').fill(`Via ${PROVIDER}`);
    await page.getByLabel('Quota (units)').fill('100');
    await page.getByLabel('Requests per minute').fill('60');
    await page.getByLabel('Concurrent requests').fill('2');
    await page.getByLabel('Sell text.generate').check();
    // Only providers able to serve the operation are offered: this one cannot speak.
    await expect(page.getByLabel('audio.speech engine 1: provider').locator('option', { hasText: PROVIDER })).toHaveCount(0);
    await page.getByLabel('text.generate engine 1: provider').selectOption(PROVIDER);
    await page.getByLabel('text.generate engine 1: model').fill('fake-model');
    await page.getByRole('button', { name: 'Add a fallback' }).first().click();
    await page.getByLabel('text.generate engine 2: provider').selectOption('local');
    // Moving the fallback up and back down leaves the provider first.
    await page.getByRole('button', { name: 'Move text.generate engine 2 up' }).click();
    await expect(page.getByLabel('text.generate engine 1: provider')).toHaveValue('local');
    await page.getByRole('button', { name: 'Move text.generate engine 1 down' }).click();
    await expect(page.getByLabel('text.generate engine 1: provider')).toHaveValue(PROVIDER);
    await page.getByRole('button', { name: 'Create package' }).click();
    await expect(page).toHaveURL(new RegExp(`/packages/${SLUG}\\?created=1$`));
    await expect(page.getByRole('region', { name: 'Operations of version 1' })).toContainText(`${PROVIDER}:fake-model`);
  });

  let key = '';
  await test.step('issue a key for it', async () => {
    await page.getByRole('link', { name: 'Issue a key' }).click();
    await expect(page.getByLabel('Package')).toHaveValue(SLUG);
    await page.getByLabel('Label').fill('provider customer');
    await page.getByRole('button', { name: 'Issue key' }).click();
    key = (await page.getByTestId('issued-key').textContent()) ?? '';
    expect(key).toMatch(/^wgs_live_/);
  });

  await test.step('the customer\'s call is answered by the provider, and the Providers page counts it', async () => {
    fake.reset();
    const response = await request.post('/v1/text/generate', {
      headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
      data: { input: 'Say hello through the provider.' },
    });
    expect(response.status(), await response.text()).toBe(200);
    expect(await response.json()).toMatchObject({ operation: 'text.generate', output: { text: 'fake answer from fake-model' }, usage: { charged_units: 1 } });
    expect(fake.callCount).toBe(1);
    expect(fake.lastAuthorization).toBe(`Bearer ${PROVIDER_KEY}`);
    await page.goto(`/providers/${PROVIDER}`);
    await expect(stat(page, 'provider-calls')).toHaveText('1');
    await expect(stat(page, 'provider-failures')).toHaveText('0 (0%)');
    await expect(stat(page, 'provider-p95')).toHaveText(/^\d[\d,]* ms$/);
    await page.goto('/providers');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: PROVIDER }) });
    await expect(row).toContainText('openai-compatible');
    await expect(row).toContainText('stored');
    await expect(row).toContainText('text.generate, code.generate, images.generate');
    await keepScreenshot(page, 'providers');
  });
});
