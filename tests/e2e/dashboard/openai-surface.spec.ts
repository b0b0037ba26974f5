import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import OpenAI from 'openai-v7';
import { baseURL } from '../../../playwright.config';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { signIn } from '../support/dashboard';

// A call through the OpenAI-compatible surface, made with the official SDK under a model alias,
// shown as such on the key's page (operator) and in the portal's recent calls (customer), where the
// portal also gives both base URLs with a curl and an OpenAI SDK example.

test.describe.configure({ timeout: 180_000 });

const slug = `openai-${randomUUID().slice(0, 8)}`;

function applyPackage() {
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-openai-')), 'packages.json');
  const operations = { 'text.generate': { engine: 'local', units: 2, model_aliases: ['gpt-4o-mini'] } };
  const definition = { slug, name: `OpenAI ${slug}`, quota_units: 50, limits: { requests_per_minute: 60, concurrency: 2 }, operations };
  writeFileSync(file, JSON.stringify({ packages: [definition] }));
  cli('packages', 'apply', file);
}

async function portalSignIn(page: Page, secret: string) {
  await page.goto('/portal');
  await page.getByLabel('API key').fill(secret);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('a call made with the OpenAI SDK shows on the key page and in the portal, named by its surface', async ({ page }) => {
  applyPackage();
  const issued = cli<{ id: string; key: string; prefix: string }>('keys', 'create', '--package', slug);
  const client = new OpenAI({ baseURL: `${baseURL}/openai/v1`, apiKey: issued.key });
  const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
  expect(completion.object).toBe('chat.completion');
  expect(completion.model).toBe('gpt-4o-mini');

  await test.step("the operator sees the call on the key's page, through /openai/v1", async () => {
    await signIn(page);
    await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    await page.goto(`/keys/${issued.id}`);
    const recent = page.getByRole('region', { name: 'Recent requests with this key' });
    await expect(recent.getByRole('row')).toHaveCount(2);
    await expect(recent.getByRole('row').nth(1)).toContainText('text.generate');
    await expect(recent.getByRole('row').nth(1)).toContainText('/openai/v1');
  });

  await test.step('the customer sees it in the portal, with both base URLs and the operation in words', async () => {
    await page.context().clearCookies();
    await portalSignIn(page, issued.key);
    const calls = page.getByRole('region', { name: 'Your latest calls' });
    await expect(calls.getByRole('row')).toHaveCount(2);
    await expect(calls.getByRole('row').nth(1)).toContainText('/openai/v1');
    await expect(calls.getByRole('row').nth(1)).toContainText('2');
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('48');
    const examples = page.getByTestId('api-examples');
    await expect(examples).toContainText(`${baseURL}/v1`);
    await expect(examples).toContainText(`baseURL: '${baseURL}/openai/v1'`);
    await expect(examples).toContainText(`curl ${baseURL}/v1/text/generate`);
    await expect(examples).toContainText("model: 'text.generate'");
    await expect(page.locator('#package')).toContainText('Text generation (text.generate, 2 units)');
    await expectAccessible(page, 'the portal with an OpenAI-compatible call');
  });
});
