import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startFakeOpenAi, type FakeOpenAi } from '../../helpers/fake-openai';
import { cli } from '../support/cli';
import { keepScreenshot, signIn } from '../support/dashboard';

// An operator adds a provider (packages file), sets its key in the dashboard without a
// redeploy, and sells text.generate through it, with the local engine as the fallback.

const KEY = `sk-e2e-${randomUUID()}`;
let fake: FakeOpenAi;

test.beforeAll(async () => {
  fake = await startFakeOpenAi();
});
test.afterAll(async () => {
  await fake?.close();
});

test('set a provider key on the Providers page, then sell an operation through that provider', async ({ page, request }) => {
  const name = `e2e-${randomUUID().slice(0, 8)}`;
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-providers-')), 'packages.json');
  writeFileSync(file, JSON.stringify({
    providers: { [name]: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'E2E_UNSET_PROVIDER_KEY' } },
    packages: [{
      slug: name, name: `Through ${name}`, quota_units: 10, limits: { requests_per_minute: 60, concurrency: 2 },
      operations: { 'text.generate': { engine: [`${name}:model-e2e`, 'local'], units: 2 } },
    }],
  }));
  cli('packages', 'apply', file);

  await signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Providers' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Providers' })).toBeVisible();
  const row = page.getByRole('region', { name: 'Providers' }).getByRole('row').filter({ hasText: name });
  await expect(row).toContainText('openai');
  await expect(row).toContainText(fake.baseUrl);
  await expect(row).toContainText('not set (E2E_UNSET_PROVIDER_KEY is empty)');

  const form = page.getByRole('form', { name: `API key of ${name}` });
  await form.getByLabel('API key').fill(KEY);
  await form.getByRole('button', { name: 'Set key' }).click();
  await expect(form.getByRole('status')).toHaveText('Key stored. Every instance uses it within 10 seconds.');
  await expect(row).toContainText('stored (set');
  await expect(form.getByLabel('New API key')).toHaveValue('');
  expect(await page.content()).not.toContain(KEY);
  await keepScreenshot(page, 'providers');

  const issued = cli<{ key: string }>('keys', 'create', '--package', name);
  const response = await request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${issued.key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
    data: { input: 'Through the provider, please.' },
  });
  expect(response.status(), await response.text()).toBe(200);
  const body = await response.json();
  expect(body.output.text).toBe('fake answer from model-e2e');
  expect(body.usage).toEqual({ charged_units: 2, remaining_units: 8 });
  expect(fake.lastAuthorization).toBe(`Bearer ${KEY}`);

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
});
