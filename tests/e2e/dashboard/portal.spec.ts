import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { codeIn, startSmtpInbox, type SmtpInbox } from '../../helpers/smtp-inbox';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { e2eSmtpPort } from '../support/mail';

// A customer's portal: sign in with the API key, see the package, the units left, the usage chart
// and the call just made, set a job webhook, rotate the key (the old one refused by /v1 at once)
// and sign in again with the new one, rotate the webhook's secret and remove it: each change
// confirmed with the code e-mailed to the key's buyer, read from a real SMTP server, who is told
// of each. axe on the sign-in form, the portal and the code form; a 1440x900 screenshot.

test.describe.configure({ timeout: 300_000 });

let inbox: SmtpInbox;
test.beforeAll(async () => {
  inbox = await startSmtpInbox({ port: e2eSmtpPort() });
});
test.afterAll(async () => {
  await inbox?.close();
});

const owner = `owner-${randomUUID().slice(0, 8)}@example.com`;

/** Enters the code of the owner's `n`th e-mail (codes and change notices alternate) and confirms. */
async function confirmWithCode(page: Page, n: number) {
  const mail = await inbox.waitForMail(owner, n);
  await page.getByLabel('Code from the e-mail').fill(codeIn(mail));
  await page.getByRole('button', { name: 'Confirm', exact: true }).click();
}

const slug = `portal-${randomUUID().slice(0, 8)}`;

function applyPackage() {
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-portal-')), 'packages.json');
  const operations = { 'text.generate': { engine: 'local', units: 3, output_formats: ['text'] } };
  const definition = { slug, name: `Portal ${slug}`, quota_units: 100, limits: { requests_per_minute: 60, concurrency: 2 }, operations };
  writeFileSync(file, JSON.stringify({ packages: [definition] }));
  cli('packages', 'apply', file);
}

const generate = (request: APIRequestContext, key: string) =>
  request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
    data: { input: 'Hello from the portal test.' },
  });

async function portalSignIn(page: Page, secret: string) {
  await page.goto('/portal');
  await page.getByLabel('API key').fill(secret);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('a customer signs in with their key, sees their call and units, sets a webhook and rotates the key', async ({ page, request }) => {
  applyPackage();
  const issued = cli<{ id: string; key: string; prefix: string }>('keys', 'create', '--package', slug);
  cli('keys', 'email', issued.id, '--email', owner);
  expect((await generate(request, issued.key)).status()).toBe(200);

  await test.step('the sign-in form refuses a wrong key and is accessible', async () => {
    await page.goto('/portal');
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to your customer portal' })).toBeVisible();
    await expectAccessible(page, 'the portal sign-in');
    await portalSignIn(page, `wgs_live_${'Q'.repeat(40)}`);
    await expect(page.locator('#portal-signin-error')).toHaveText('That key is not an active API key.');
  });

  await test.step('the portal shows the package, the units left and the call', async () => {
    await portalSignIn(page, issued.key);
    await expect(page.getByRole('heading', { level: 1, name: 'Your API key' })).toBeVisible();
    // The form that had the focus is gone: the page's heading takes it (a11y review: the body).
    await expect(page.getByRole('heading', { level: 1, name: 'Your API key' })).toBeFocused();
    // On a phone the examples scroll sideways: each is focusable, so a keyboard scrolls it too (a11y review).
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId('api-examples').locator('pre').first()).toHaveAttribute('tabindex', '0');
    await expectAccessible(page, 'the portal at 390 px');
    await page.setViewportSize(wide);
    await expect(page.getByTestId('portal-key-prefix')).toHaveText(`${issued.prefix}…`);
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('97');
    await expect(page.getByTestId('portal-units-used')).toHaveText('3');
    const calls = page.getByRole('region', { name: 'Your latest calls' });
    await expect(calls.getByRole('row')).toHaveCount(2);
    await expect(calls.getByRole('row').nth(1)).toContainText('text.generate');
    await expect(calls.getByRole('row').nth(1)).toContainText('succeeded');
    await expect(page.getByText(`Portal ${slug} (${slug}, version 1)`)).toBeVisible();
    await expect(page.locator('.chart svg').first()).toBeVisible();
    await expectAccessible(page, 'the portal');
    mkdirSync('tests/artifacts', { recursive: true });
    await page.screenshot({ path: 'tests/artifacts/portal.png', fullPage: false });
    await page.screenshot({ path: 'tests/artifacts/portal-full.png', fullPage: true });
    // A phone's width: the examples' long lines scroll in their blocks, not the page (871 px at 375: portal audit).
    await expect(page.getByTestId('api-examples')).toContainText("model: 'text.generate'");
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 375, height: 800 });
    // Polled: the chart takes the new width a moment after the resize.
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth))
      .toBeLessThanOrEqual(0);
    await page.setViewportSize(viewport);
  });

  await test.step('the job webhook: its URL field as wide as the card, set with the e-mailed code, a secret shown once', async () => {
    const field = await page.getByLabel('Endpoint URL').boundingBox();
    const card = await page.locator('#webhook').boundingBox();
    expect(field!.width).toBeGreaterThan(card!.width * 0.6);
    await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/portal');
    await page.getByRole('button', { name: 'Set webhook' }).click();
    await expect(page.getByTestId('confirm-code')).toContainText('o•••@example.com');
    await expectAccessible(page, 'the portal code form');
    await page.getByLabel('Code from the e-mail').fill('AAAA-AAAA');
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect(page.getByTestId('confirm-code').getByRole('alert')).toHaveText('That is not the code (4 tries left).');
    await confirmWithCode(page, 1);
    await expect(page.getByTestId('webhook-secret')).toContainText('whsec_');
    await expect(page.getByText('Job events are POSTed to https://hooks.example.com/portal.')).toBeVisible();
    expect((await inbox.waitForMail(owner, 2)).text).toContain('Endpoint: https://hooks.example.com/portal');
  });

  await test.step('rotating the key with the e-mailed code: the new secret once, the old one refused, sign in again', async () => {
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page.keyboard.press('Escape'); // the question closes, the focus back on its button
    await expect(page.getByRole('button', { name: 'Rotate key' })).toBeFocused();
    await page.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('button', { name: 'E-mail me a code' }).click();
    expect((await generate(request, issued.key)).status()).toBe(200); // nothing changes before the code
    await confirmWithCode(page, 3);
    const shown = page.getByTestId('rotated-secret');
    // The confirmation that held the focus is gone: it moves to the key shown once.
    await expect(shown).toBeFocused();
    await expect(shown).toContainText('wgs_live_');
    const secret = (await shown.locator('code').textContent())!.trim();
    expect(secret).not.toBe(issued.key);
    expect((await generate(request, issued.key)).status()).toBe(401);
    expect((await generate(request, secret)).status()).toBe(200);
    await page.getByRole('button', { name: 'Sign in with the new key' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to your customer portal' })).toBeVisible();
    await portalSignIn(page, secret);
    await expect(page.getByTestId('portal-remaining-units')).toHaveText('91');
    await expect(page.getByLabel('Endpoint URL')).toHaveValue('https://hooks.example.com/portal');
  });

  await test.step("the job webhook's secret rotated, then the webhook removed", async () => {
    expect((await inbox.waitForMail(owner, 4)).text).toContain("Your API key's secret was replaced");
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await confirmWithCode(page, 5);
    await expect(page.getByTestId('webhook-secret')).toContainText('whsec_');
    await page.getByRole('button', { name: 'Remove webhook' }).click();
    await confirmWithCode(page, 7);
    await expect(page.getByText('Webhook removed.')).toBeVisible();
    expect((await inbox.waitForMail(owner, 8)).text).toContain("Your API key's job webhook was removed.");
    await expect(page.getByTestId('webhook-secret')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Set webhook' })).toBeVisible();
  });

  await test.step('a sign-out the server never got says so and stays signed in; the next one ends the session', async () => {
    await page.route('**/api/portal/session', (route) => (route.request().method() === 'DELETE' ? route.abort() : route.continue()));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByTestId('sign-out-error')).toContainText('you are still signed in');
    await expect(page.getByTestId('portal-key-prefix')).toBeVisible();
    await page.unroute('**/api/portal/session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to your customer portal' })).toBeVisible();
  });
});
