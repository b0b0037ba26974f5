import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { cli } from '../support/cli';
import { keepScreenshot, signIn } from '../support/dashboard';

// Each operator role in the browser: what it sees (controls it may not use are absent, not
// failing), what a page it may not use answers (404), and what the API answers when the browser
// is made to call a procedure anyway (403 FORBIDDEN). The seeded operator is the first, an owner.

test.describe.configure({ timeout: 150_000 });

const tag = () => randomUUID().slice(0, 6);
const PASSWORD = 'a long enough password';
const nav = (page: Page) => page.getByRole('navigation', { name: 'Dashboard' });

async function signInAs(page: Page, email: string) {
  await signIn(page, PASSWORD, email);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
}

/** A key on the example package `starter`, issued by the seeded owner. */
function seedKey(): string {
  return cli<{ id: string }>('keys', 'create', '--package', 'starter', '--label', `roles ${tag()}`).id;
}

/** POSTs a tRPC mutation from the signed-in page, as a tampered-with page would. */
const mutate = (page: Page, path: string, input: unknown) =>
  page.evaluate(
    async ([procedure, body]) => {
      const response = await fetch(`/api/trpc/${procedure}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    },
    [path, input] as const,
  );

test('a viewer reads everything and is offered no change; the API refuses one anyway', async ({ page }) => {
  const email = `viewer-${tag()}@example.com`;
  cli('operators', 'create', '--email', email, '--password', PASSWORD, '--role', 'viewer');
  const keyId = seedKey();
  await signInAs(page, email);
  await expect(page.getByTestId('operator-role')).toHaveText('viewer');
  await expect(nav(page).getByRole('link', { name: 'Operators' })).toHaveCount(0);

  await page.goto('/keys');
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Issue a key' })).toHaveCount(0);
  await page.goto(`/keys/${keyId}`);
  await expect(page.getByTestId('key-status')).toContainText('active');
  await expect(page.getByRole('button', { name: /Revoke/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Top up|Add units/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /label/i })).toHaveCount(0);
  await page.goto('/packages');
  await expect(page.getByRole('link', { name: 'New package' })).toHaveCount(0);
  await page.goto('/packages/starter');
  await expect(page.getByRole('link', { name: 'New version' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Archive package' })).toHaveCount(0);
  await page.goto('/providers');
  await expect(page.getByRole('link', { name: 'Add a provider' })).toHaveCount(0);
  await keepScreenshot(page, 'roles-viewer-providers');

  for (const path of ['/keys/new', '/packages/new', '/providers/new', '/operators']) {
    const answer = await page.goto(path);
    expect(answer?.status(), path).toBe(404);
  }

  const refused = await mutate(page, 'keys.revoke', { id: keyId });
  expect(refused.status).toBe(403);
  expect(JSON.parse(refused.text)).toMatchObject({ error: { data: { code: 'FORBIDDEN' } } });
  await page.goto(`/keys/${keyId}`);
  await expect(page.getByTestId('key-status')).toContainText('active');
});

test('an admin changes keys and packages, but sees no operators and no provider key form', async ({ page }) => {
  const email = `admin-${tag()}@example.com`;
  cli('operators', 'create', '--email', email, '--password', PASSWORD, '--role', 'admin');
  const keyId = seedKey();
  await signInAs(page, email);
  await expect(page.getByTestId('operator-role')).toHaveText('admin');
  await expect(nav(page).getByRole('link', { name: 'Operators' })).toHaveCount(0);

  await page.goto('/keys');
  await expect(page.getByRole('link', { name: 'Issue a key' })).toBeVisible();
  await page.goto(`/keys/${keyId}`);
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByRole('button', { name: /^Revoke wgs_live_/ }).click();
  await expect(page.getByTestId('key-status')).toContainText('revoked');
  await page.goto('/packages/starter');
  await expect(page.getByRole('link', { name: 'New version' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Archive package' })).toBeVisible();

  // A provider the admin adds: editable and testable, but its key is an owner's to set.
  const provider = `roles-${tag()}`;
  const saved = await mutate(page, 'providers.save', {
    name: provider,
    mode: 'create',
    entry: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' },
  });
  expect(saved.status, saved.text).toBe(200);
  await page.goto(`/providers/${provider}`);
  await expect(page.getByRole('heading', { level: 1, name: provider })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save changes' })).toBeVisible();
  await expect(page.getByRole('form', { name: `API key of ${provider}` })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Set key|Replace key/ })).toHaveCount(0);
  expect((await mutate(page, 'providers.setKey', { provider, apiKey: 'sk-admin' })).status).toBe(403);

  expect((await page.goto('/operators'))?.status()).toBe(404);
  const refused = await mutate(page, 'operators.setRole', { email, role: 'owner' });
  expect(refused.status).toBe(403);
  await page.goto('/');
  await expect(page.getByTestId('operator-role')).toHaveText('admin');
});

test('an owner sees operators and changes a role there; the change is audited and applies at once', async ({ browser, page }) => {
  const email = `promoted-${tag()}@example.com`;
  cli('operators', 'create', '--email', email, '--password', PASSWORD, '--role', 'viewer');
  const other = await browser.newPage();
  await signInAs(other, email);
  await expect(other.getByTestId('operator-role')).toHaveText('viewer');

  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('operator-role')).toHaveText('owner');
  await nav(page).getByRole('link', { name: 'Operators' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Operators' })).toBeVisible();
  await page.getByLabel(`Role of ${email}`, { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: `Save the role of ${email}` }).click();
  await expect(page.getByTestId(`role-of-${email}`)).toHaveText('admin');
  // The focus, lost with the disabled button, is back on the role, and the change is said.
  await expect(page.getByLabel(`Role of ${email}`, { exact: true })).toBeFocused();
  await expect(page.getByRole('status').filter({ hasText: 'Role saved: admin.' })).toBeVisible();
  await keepScreenshot(page, 'roles-owner-operators');
  // A confirmed action that fails keeps its question, with the error, and the focus on Cancel (it fell to the page).
  await page.route('**/api/trpc/operators.setDisabled**', (route) => route.abort());
  await page.getByRole('button', { name: `Disable ${email}` }).click();
  const question = page.getByRole('alertdialog', { name: `Disable ${email}?` });
  await question.getByRole('button', { name: 'Disable', exact: true }).click();
  await expect(question.getByRole('alert')).toBeVisible();
  await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.unroute('**/api/trpc/operators.setDisabled**');
  await question.getByRole('button', { name: 'Cancel' }).click();

  await other.goto('/keys');
  await expect(other.getByTestId('operator-role')).toHaveText('admin');
  await expect(other.getByRole('link', { name: 'Issue a key' })).toBeVisible();
  await other.close();

  await page.goto(`/audit?action=operator.role`);
  await expect(page.getByRole('cell', { name: /"role":"admin"/ }).first()).toBeVisible();
});
