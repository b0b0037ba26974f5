import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { signIn } from '../support/dashboard';

// The operator's job webhook panel on a key's page (components/webhooks/webhook-panel.tsx, shared
// with the portal's): set with a secret shown once, rotate the secret, remove the webhook.

const secretShown = async (page: Page) => (await page.getByTestId('webhook-secret').locator('code').textContent())!.trim();

test("an operator sets, rotates and removes a key's job webhook", async ({ page }) => {
  const issued = cli<{ id: string }>('keys', 'create', '--package', 'starter', '--label', 'webhook-panel');
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await page.goto(`/keys/${issued.id}`);
  await expect(page.getByText('When a video job of this key ends,')).toBeVisible();

  // The buyer's e-mail refused is its field's error too (a11y review: announced, but not tied to the field).
  await page.locator('#buyer-email').fill('not-an-email');
  await page.getByRole('button', { name: 'Save e-mail' }).click();
  await expect(page.locator('#buyer-email')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#buyer-email')).toHaveAccessibleDescription(/e-mail/i);

  // A refused URL is the field's error: marked invalid and described by it (admin pages audit).
  await page.getByLabel('Endpoint URL').fill('hooks.example.com/operator');
  await page.getByRole('button', { name: 'Set webhook' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'must be an absolute URL' })).toHaveText(
    /^The webhook URL must be an absolute URL/,
  );
  await expect(page.getByLabel('Endpoint URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Endpoint URL')).toHaveAccessibleDescription(/must be an absolute URL/);
  await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/operator');
  await page.getByRole('button', { name: 'Set webhook' }).click();
  await expect(page.getByLabel('Endpoint URL')).not.toHaveAttribute('aria-invalid');
  await expect(page.getByText('Job events are POSTed to https://hooks.example.com/operator.')).toBeVisible();
  await expect(page.getByTestId('webhook-secret')).toContainText('whsec_');
  const first = await secretShown(page);
  await expect(page.getByRole('button', { name: 'Save (new secret)' })).toBeVisible();
  await expectAccessible(page, 'the key page with a webhook set');

  // Rotating and removing ask first; Cancel (which has the focus) changes nothing.
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  const question = page.getByRole('alertdialog', { name: 'Rotate the signing secret?' });
  await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await question.getByRole('button', { name: 'Cancel' }).click();
  expect(await secretShown(page)).toBe(first);
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate secret' }).click();
  await expect(page.getByText('New signing secret; the old one no longer signs.')).toBeVisible();
  expect(await secretShown(page)).toMatch(/^whsec_/);
  expect(await secretShown(page)).not.toBe(first);

  await page.getByRole('button', { name: 'Remove webhook' }).click();
  await page.getByRole('alertdialog', { name: 'Remove the webhook?' }).getByRole('button', { name: 'Remove webhook' }).click();
  await expect(page.getByText('Webhook removed.')).toBeVisible();
  await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Set webhook' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Rotate secret' })).toHaveCount(0);
});

test("each delivery's Resend is named by its delivery, and keeps the focus while it works (admin pages audit)", async ({ page }) => {
  const issued = cli<{ id: string; key: string }>('keys', 'create', '--package', 'starter', '--label', 'webhook-resend');
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page).toHaveTitle('Overview · Workflow Generation Service');
  await page.goto(`/keys/${issued.id}`);
  await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/resend');
  await page.getByRole('button', { name: 'Set webhook' }).click();
  await expect(page.getByTestId('webhook-secret')).toContainText('whsec_');
  const submitted = await page.request.post('/v1/videos/generate', {
    headers: { authorization: `Bearer ${issued.key}`, 'idempotency-key': `resend-${issued.id}` },
    data: { prompt: 'a delivery to resend' },
  });
  expect(submitted.status(), await submitted.text()).toBe(202);
  const resend = page.getByRole('button', { name: /^Resend job\.succeeded delivery msg_/ });
  await expect(async () => {
    await page.reload();
    await expect(resend).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await resend.focus();
  await resend.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Queued.' })).toBeVisible();
  await expect(resend).toBeFocused();
});
