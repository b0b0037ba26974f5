import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as baseExpect, test } from '@playwright/test';
import { FAKE_ERROR_TEXT, startFakeOpenAi, type FakeOpenAi } from '../../../fakes/fake-openai';
import { cli } from '../support/cli';
import { keepScreenshot, signIn, stat } from '../support/dashboard';

// Providers against a fake OpenAI-compatible server on 127.0.0.1 that this spec runs. First the
// dashboard alone: an operator adds a provider, stores its key, tests it, sells text.generate
// through it with `local` as the fallback, issues a key, and a customer's call is answered by
// the provider; the Providers page counts the call. Then a provider from a packages file gets its
// key in the dashboard without a redeploy, and its failure falls back to `local`, charged once.

// Saving a form waits on the database and a test on the provider: on a loaded machine, over 5 s.
const expect = baseExpect.configure({ timeout: 20_000 });

let fake: FakeOpenAi;
test.beforeAll(async () => {
  fake = await startFakeOpenAi();
});
test.afterAll(async () => {
  await fake?.close();
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
    // Said once, by the field's label: the alert above the form only points at it.
    await expect(page.getByRole('alert').filter({ hasText: 'Fix the highlighted fields.' })).toBeVisible();
    await expect(page.getByText('Base URL is required', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Base URL')).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('Base URL').fill(fake.baseUrl);
    await page.getByRole('button', { name: 'Add provider' }).click();
    await expect(page).toHaveURL(new RegExp(`/providers/${PROVIDER}\\?created=1$`));
    await expect(page.getByRole('heading', { level: 1, name: PROVIDER })).toBeVisible();
  });

  await test.step('store its key: write-only, never shown again', async () => {
    const form = page.getByRole('form', { name: `API key of ${PROVIDER}` });
    await form.getByLabel('API key').fill(PROVIDER_KEY);
    await form.getByRole('button', { name: 'Set key' }).click();
    await expect(form.getByRole('status')).toHaveText('Key stored. Every instance uses it within 10 seconds.');
    await expect(form.getByRole('button', { name: 'Replace key' })).toBeVisible();
    expect(await page.content()).not.toContain(PROVIDER_KEY);
    await keepScreenshot(page, 'provider-detail');
  });

  await test.step("test it: the outcome in plain words, the provider's own text never shown", async () => {
    await page.getByLabel('Model').fill('fake-model');
    fake.setMode({ kind: 'status', status: 401 });
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.getByTestId('provider-test-result');
    await expect(result).toContainText('The provider refused the key (401).');
    await expect(result).not.toContainText(FAKE_ERROR_TEXT);
    fake.reset();
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await expect(result).toContainText(/^Answered in \d+ ms\. \(text\.generate with fake-model\)$/);
    await expect(page.getByRole('button', { name: 'Test', exact: true })).toBeFocused(); // it fell to the page's start (admin pages audit)
    expect(fake.lastAuthorization).toBe(`Bearer ${PROVIDER_KEY}`);
    // Another key makes the outcome stale: it goes (it stayed, naming the old key's answer: admin pages audit).
    const form = page.getByRole('form', { name: `API key of ${PROVIDER}` });
    await form.getByLabel('New API key').fill(PROVIDER_KEY);
    await form.getByRole('button', { name: 'Replace key' }).click();
    await expect(form.getByRole('status')).toHaveText('Key replaced. Every instance uses it within 10 seconds.');
    await expect(result).toHaveCount(0);
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

  await test.step("the customer's call is answered by the provider, and the Providers page counts it", async () => {
    fake.reset();
    const response = await request.post('/v1/text/generate', {
      headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
      data: { input: 'Say hello through the provider.' },
    });
    expect(response.status(), await response.text()).toBe(200);
    expect(await response.json()).toMatchObject({
      operation: 'text.generate',
      output: { text: 'fake answer from fake-model' },
      usage: { charged_units: 1 },
    });
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

  await test.step('moving it to another server asks first: its stored key is deleted', async () => {
    await page.goto(`/providers/${PROVIDER}`);
    const edit = page.getByRole('form', { name: 'Edit provider' });
    await edit.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const question = edit.getByRole('alertdialog', { name: `Move ${PROVIDER} to another server?` });
    await expect(question).toHaveAccessibleDescription(/its stored key is deleted/);
    await question.getByRole('button', { name: 'Cancel' }).click();
    await expect(edit.getByRole('button', { name: 'Save changes' })).toBeFocused();
    await page.reload();
    await expect(page.locator('dd').filter({ hasText: /^stored set \d{4}-/ })).toBeVisible(); // nothing was saved
    // Refused by the server once confirmed: the field says why, the focus is back on Save (it fell to the heading), the key kept.
    await edit.getByLabel('Base URL').fill('http://169.254.169.254/v1');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await question.getByRole('button', { name: 'Save and delete the key' }).click();
    await expect(edit.getByLabel('Base URL')).toHaveAttribute('aria-invalid', 'true');
    await expect(edit.getByRole('button', { name: 'Save changes' })).toBeFocused();
    await expect(page.locator('dd').filter({ hasText: /^stored set \d{4}-/ })).toBeVisible();
    await edit.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await question.getByRole('button', { name: 'Save and delete the key' }).click();
    await expect(edit.getByRole('status')).toHaveText(
      'Saved. The type or base URL changed, so its stored key was deleted: set the key again below.',
    );
    await expect(page.locator('dd').filter({ hasText: /^stored set/ })).toHaveCount(0);
    // An edit that keeps the server saves at once: there is no key to lose.
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit.getByRole('status')).toHaveText('Nothing changed.');
  });
});

test('set a provider key on the Providers page, then sell an operation through that provider', async ({ page, request }) => {
  test.setTimeout(120_000);
  fake.reset();
  const name = `e2e-${randomUUID().slice(0, 8)}`;
  const key = `sk-e2e-${randomUUID()}`;
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-providers-')), 'packages.json');
  writeFileSync(
    file,
    JSON.stringify({
      providers: { [name]: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_E2E_UNSET_PROVIDER_KEY' } },
      packages: [
        {
          slug: name,
          name: `Through ${name}`,
          quota_units: 10,
          limits: { requests_per_minute: 60, concurrency: 2 },
          operations: { 'text.generate': { engine: [`${name}:model-e2e`, 'local'], units: 2 } },
        },
      ],
    }),
  );
  cli('packages', 'apply', file);

  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Providers' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Providers' })).toBeVisible();
  const row = page.getByRole('region', { name: 'Providers' }).getByRole('row').filter({ hasText: name });
  await expect(row).toContainText('openai');
  await expect(row).toContainText(fake.baseUrl);
  await expect(row).toContainText('not set WGS_PROVIDER_KEY_E2E_UNSET_PROVIDER_KEY is unset');

  await row.getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  const form = page.getByRole('form', { name: `API key of ${name}` });
  await form.getByLabel('API key').fill(key);
  await form.getByRole('button', { name: 'Set key' }).click();
  await expect(form.getByRole('status')).toHaveText('Key stored. Every instance uses it within 10 seconds.');
  await expect(page.locator('dd').filter({ hasText: /^stored set \d{4}-/ })).toBeVisible();
  await expect(form.getByLabel('New API key')).toHaveValue('');
  expect(await page.content()).not.toContain(key);

  const issued = cli<{ key: string }>('keys', 'create', '--package', name);
  const response = await request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${issued.key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
    data: { input: 'Through the provider, please.' },
  });
  expect(response.status(), await response.text()).toBe(200);
  const body = await response.json();
  expect(body.output.text).toBe('fake answer from model-e2e');
  expect(body.usage).toEqual({ charged_units: 2, remaining_units: 8 });
  expect(fake.lastAuthorization).toBe(`Bearer ${key}`);

  // The provider fails: the local engine answers, charged once, and the usage page says two engines were tried.
  fake.setMode({ kind: 'status', status: 503 });
  const fallback = await request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${issued.key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
    data: { input: 'And when it fails?' },
  });
  expect(fallback.status(), await fallback.text()).toBe(200);
  expect((await fallback.json()).usage).toEqual({ charged_units: 2, remaining_units: 6 });
  await page.goto('/usage');
  await expect(page.getByRole('row').filter({ hasText: 'local (2 tried)' }).first()).toBeVisible();
  // The Providers page counts both calls to the provider, one of them failed.
  await page.goto(`/providers/${name}`);
  await expect(stat(page, 'provider-calls')).toHaveText('2');
  await expect(stat(page, 'provider-failures')).toHaveText('1 (50%)');
});
