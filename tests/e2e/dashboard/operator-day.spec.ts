import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import sharp from 'sharp';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { keepScreenshot, signIn, stat } from '../support/dashboard';

// An operator's day in the dashboard (issue 20): no UUID or schema path to read, every page
// checked with axe-core, screenshots kept in tests/artifacts/dashboard.

const tag = () => randomUUID().slice(0, 6);

// Each test works on its own package and keys, so the file's tests may run in both workers at
// once (this file alone is the longest of the suite). axe runs on many pages here, on a machine
// shared with other work.
test.describe.configure({ mode: 'parallel', timeout: 300_000 });

function generate(request: APIRequestContext, key: string) {
  return request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
    data: { input: 'Hello from an operator day.' },
  });
}

function applyPackage(slug: string) {
  const dir = mkdtempSync(join(tmpdir(), 'wgs-e2e-pkg-'));
  const file = join(dir, 'packages.json');
  writeFileSync(
    file,
    JSON.stringify({
      packages: [
        {
          slug,
          name: `Day ${slug}`,
          quota_units: 300,
          limits: { requests_per_minute: 60, concurrency: 2 },
          operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } },
        },
      ],
    }),
  );
  cli('packages', 'apply', file);
}

async function signedIn(page: Page) {
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
}

test('keys: issue with expiry and extra units, plain errors, edit the label, filters as you type, revoke in the page', async ({ page }) => {
  const label = `day-customer-${tag()}`;
  await signedIn(page);
  await page.goto('/keys/new?package=starter');
  await page.getByLabel('Label').fill(label);
  await page.getByLabel('Expires after').fill('31/12/2099');
  await page.getByLabel('Extra units').fill('lots');
  await page.getByRole('button', { name: 'Issue key' }).click();
  await expect(page.getByTestId('expiresOn-error')).toHaveText('Expires after must be a day written YYYY-MM-DD');
  await expect(page.getByTestId('extraUnits-error')).toHaveText('Extra units must be a whole number from 0 to 1,000,000,000');
  await expect(page.getByLabel('Expires after')).toHaveAttribute('aria-invalid', 'true');
  // Announced (a11y review: the fields changed in silence).
  await expect(page.getByRole('alert').filter({ hasText: 'Fix the highlighted fields.' })).toBeVisible();
  await expectAccessible(page, 'issue a key, with errors');
  await keepScreenshot(page, 'key-new-errors');
  // A day in the past is said with the other errors, not after them.
  await page.getByLabel('Expires after').fill('2020-01-01');
  await page.getByRole('button', { name: 'Issue key' }).click();
  await expect(page.getByTestId('expiresOn-error')).toHaveText(/^Expires after must be today \(\d{4}-\d{2}-\d{2}\) or later$/);
  await expect(page.getByTestId('extraUnits-error')).toBeVisible();
  await page.getByLabel('Expires after').fill('2099-12-31');
  await page.getByLabel('Extra units').fill('500');
  await page.getByRole('button', { name: 'Issue key' }).click();
  await expect(page.getByText('works until 2099-12-31 (UTC, inclusive)')).toBeVisible();
  await page.getByRole('link', { name: 'Open the key' }).click();

  await expect(page.getByRole('heading', { level: 1, name: label })).toBeVisible();
  // Each record's page has a title of its own (a11y review: every key's was "API key").
  await expect(page).toHaveTitle(`API key ${label} · Workflow Generation Service`);
  const remaining = (await stat(page, 'remaining-units').textContent())!;
  await expect(page.getByTestId('units-bar')).toContainText(`${remaining} of ${remaining}`);
  await expect(page.getByRole('meter', { name: 'Remaining units' })).toHaveAttribute(
    'aria-valuetext',
    `${remaining} of ${remaining} units remaining`,
  );
  await expectAccessible(page, 'key page');
  await keepScreenshot(page, 'key-detail-with-bar');

  // Escape closes the form, and the focus goes back to "Edit label" (as after a save).
  await page.getByRole('button', { name: 'Edit label' }).click();
  await page.getByRole('textbox', { name: 'Label' }).press('Escape');
  await expect(page.getByRole('textbox', { name: 'Label' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Edit label' })).toBeFocused();
  await page.getByRole('button', { name: 'Edit label' }).click();
  await page.getByRole('textbox', { name: 'Label' }).fill(`${label}-renamed`);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: `${label}-renamed` })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit label' })).toBeFocused();

  await page.goto('/keys');
  await page.getByRole('searchbox', { name: 'Search' }).pressSequentially(`${label}-ren`, { delay: 20 });
  // No Apply: the filter lands in the URL by itself.
  await expect(page).toHaveURL(new RegExp(`[?&]q=${label}-ren`));
  await expect(page.getByRole('region', { name: 'API keys' }).getByRole('row')).toHaveCount(2);
  await expectAccessible(page, 'keys list');
  await keepScreenshot(page, 'keys-filtered');
  await page.getByRole('searchbox', { name: 'Search' }).fill('zz-nobody-has-this');
  await expect(page.getByText('No keys match “zz-nobody-has-this”')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Issue the first key' })).toHaveCount(0);
  await page.getByRole('searchbox', { name: 'Search' }).fill(`${label}-renamed`);
  await expect(page.getByRole('region', { name: 'API keys' }).getByRole('row')).toHaveCount(2);
  // Reset empties the fields with the list (they kept the filter the list no longer applied), and keeps the focus in the form.
  await page.getByRole('link', { name: 'Reset' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/keys$/);
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('');
  await expect(page.getByRole('searchbox', { name: 'Search' })).toBeFocused();
  await page.getByRole('searchbox', { name: 'Search' }).fill(`${label}-renamed`);
  await expect(page.getByRole('region', { name: 'API keys' }).getByRole('row')).toHaveCount(2);

  await page
    .getByRole('region', { name: 'API keys' })
    .getByRole('link', { name: /wgs_live_/ })
    .click();
  await page.getByRole('button', { name: 'Revoke key' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText(`(${label}-renamed)?`);
  await expect(dialog).toContainText(/Revoke wgs_live_\w{4}…/);
  await expectAccessible(page, 'revoke confirmation');
  await keepScreenshot(page, 'key-revoke-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(stat(page, 'key-status')).toHaveText('active');
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await page
    .getByRole('alertdialog')
    .getByRole('button', { name: /^Revoke wgs_live_/ })
    .click();
  await expect(stat(page, 'key-status')).toHaveText('revoked');
});

test('usage: one customer by prefix, filters that cannot apply, totals, request ids that link and copy, the export', async ({
  page,
  request,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const label = `usage-customer-${tag()}`;
  const issued = cli<{ key: string; prefix: string; id: string }>('keys', 'create', '--package', 'starter', '--label', label);
  for (let i = 0; i < 2; i++) expect((await generate(request, issued.key)).status()).toBe(200);
  await signedIn(page);

  await page.goto(`/usage?key=${issued.prefix}`);
  const table = page.getByRole('region', { name: 'Usage events' });
  await expect(table.locator('tbody tr')).toHaveCount(2);
  await expect(table.locator('tfoot')).toContainText('Totals of all 2 matching requests');
  await expect(table.locator('tfoot')).toContainText('2 succeeded, 0 failed');
  await expect(page.getByText('Matches 1 key.')).toBeVisible();
  await expectAccessible(page, 'usage filtered by prefix');
  await keepScreenshot(page, 'usage-by-prefix');

  await page.goto(`/usage?key=${issued.prefix}&operation=text.delete&from=2026-13-45`);
  await expect(page.getByTestId('filter-operation-error')).toContainText('Operation must be one of text.generate');
  await expect(page.getByTestId('filter-from-error')).toHaveText(
    'From must be a UTC day written YYYY-MM-DD, from 1970-01-01 to 9999-12-30.',
  );
  await expect(page.getByLabel('From')).toHaveValue('2026-13-45');
  // Nothing is listed or exported until every filter can be read (the rest alone listed and exported everything; dashboard audit).
  await expect(page.getByText('Fix the filters above')).toBeVisible();
  await expect(table).toHaveCount(0);
  await expect(page.getByRole('link', { name: /Export CSV/ })).toHaveCount(0);
  await expectAccessible(page, 'usage with filters that cannot apply');
  await keepScreenshot(page, 'usage-invalid-filters');

  await page.goto(`/usage?key=${label}`);
  const exportHref = await page.getByRole('link', { name: 'Export CSV (filtered)' }).getAttribute('href');
  expect(exportHref).toBe(`/usage/export?key=${label}`);
  const csv = (await (await page.request.get(exportHref!)).text()).trim().split('\r\n');
  expect(csv).toHaveLength(3);
  expect(csv.slice(1).every((line) => line.includes(issued.prefix))).toBe(true);
  expect((await page.request.get('/usage/export?from=yesterday')).status()).toBe(400);

  const requestCell = table.locator('tbody tr').first().locator('code.mono-id').nth(1);
  const requestId = (await requestCell.getAttribute('title'))!;
  expect(requestId).toMatch(/^req_/);
  await table.locator('tbody tr').first().getByRole('button', { name: 'Copy request id' }).click();
  await expect(table.locator('tbody tr').first().getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(requestId);

  await page.goto(`/keys/${issued.id}`);
  await page.getByRole('region', { name: 'Recent requests with this key' }).getByRole('link', { name: requestId }).click();
  await expect(page).toHaveURL(new RegExp(`/usage\\?request=${requestId}`));
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr.highlight')).toHaveCount(1);
});

test('package: a new version with plain-language errors, tags and sizes, its diff, the audit log, archive', async ({ page }) => {
  const slug = `day-${tag()}`;
  applyPackage(slug);
  await signedIn(page);
  await page.goto(`/packages/${slug}/new-version`);
  await expect(page.getByLabel('Slug')).toHaveAttribute('readonly', '');
  await page.getByLabel('Name', { exact: true }).fill('');
  await page.getByLabel('Requests per minute').fill('0');
  await page.getByRole('button', { name: 'Create version' }).click();
  await expect(page.getByText('Name is required')).toBeVisible();
  await expect(page.getByText('Requests per minute must be a whole number from 1 to 1,000,000')).toBeVisible();
  await expectAccessible(page, 'new version, with errors');
  await keepScreenshot(page, 'package-version-errors');
  await page.getByLabel('Name', { exact: true }).fill(`Day ${slug}`);
  await page.getByLabel('Requests per minute').fill('120');
  await page.getByLabel('Largest upload', { exact: true }).fill('50');
  // Sizes in one unit throughout: typed in MiB, shown in MiB.
  await expect(page.getByLabel('Unit of the largest upload')).toHaveValue('MiB');
  const formats = page.getByRole('group', { name: 'text.generate' });
  await formats.getByRole('button', { name: '+ markdown' }).click();
  await expect(page.getByTestId('tags-text.generate|output_formats')).toContainText('markdown');
  await page.getByRole('button', { name: 'Create version' }).click();
  await expect(page).toHaveURL(new RegExp(`/packages/${slug}\\?created=2`));

  const diff = page.getByRole('region', { name: 'Changes from version 1 to 2' });
  await expect(diff.getByRole('row', { name: /Requests per minute/ })).toContainText('60');
  await expect(diff.getByRole('row', { name: /Requests per minute/ })).toContainText('120');
  await expect(diff.getByRole('row', { name: /Largest upload/ })).toContainText('50.0 MiB');
  await expect(diff.getByRole('row', { name: /Output formats/ })).toContainText('text, markdown');
  await expectAccessible(page, 'package page with diff');
  await keepScreenshot(page, 'package-diff');

  await page.goto(`/audit?target=${slug}`);
  const log = page.getByRole('region', { name: 'Audit log entries' });
  await expect(log.getByRole('link', { name: `${slug} v2` })).toBeVisible();
  await expect(log.getByRole('region', { name: `Changes from version 1 to 2 of ${slug}` })).toContainText('Requests per minute');
  await expectAccessible(page, 'audit log');
  await keepScreenshot(page, 'audit-diff');

  await page.goto(`/packages/${slug}`);
  await page.getByRole('button', { name: 'Archive package' }).click();
  await page
    .getByRole('alertdialog')
    .getByRole('button', { name: `Archive ${slug}` })
    .click();
  await expect(page.getByText(/^Archived on .*: no new keys can be issued/)).toBeVisible();
  await page.goto('/keys/new');
  await expect(page.getByLabel('Package').locator(`option[value="${slug}"]`)).toHaveCount(0);
  expect(() => cli('keys', 'create', '--package', slug)).toThrow(/archived/);
  await page.goto(`/packages/${slug}`);
  await page.getByRole('button', { name: 'Restore package' }).click();
  await expect(page.getByRole('button', { name: 'Archive package' })).toBeVisible();
});

test('jobs and uploads: the video plays through a fresh URL, the upload previews, each links to its calls', async ({ page, request }) => {
  test.setTimeout(180_000);
  const label = `video-customer-${tag()}`;
  const issued = cli<{ key: string; prefix: string }>('keys', 'create', '--package', 'starter', '--label', label);
  const auth = { Authorization: `Bearer ${issued.key}` };
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#2f5bea' } })
    .png()
    .toBuffer();
  const sha256 = createHash('sha256').update(png).digest('hex');
  const created = await request.post('/v1/uploads', {
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `e2e-${randomBytes(8).toString('hex')}` },
    data: { purpose: 'image_input', filename: 'square.png', mime_type: 'image/png', size_bytes: png.length, sha256 },
  });
  expect(created.status(), await created.text()).toBe(201);
  const upload = await created.json();
  expect((await request.fetch(upload.upload_url, { method: upload.upload_method, headers: upload.upload_headers, data: png })).ok()).toBe(
    true,
  );
  const completed = await request.post(`/v1/uploads/${upload.upload_id}/complete`, {
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `e2e-${randomBytes(8).toString('hex')}` },
    data: { sha256 },
  });
  expect(completed.status(), await completed.text()).toBe(200);
  const submitted = await request.post('/v1/videos/generate', {
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `e2e-${randomBytes(8).toString('hex')}` },
    data: { prompt: 'the square slowly turns', input_upload_id: upload.upload_id },
  });
  expect(submitted.status(), await submitted.text()).toBe(202);
  const { job_id: jobId } = await submitted.json();
  await expect
    .poll(async () => (await (await request.get(`/v1/jobs/${jobId}`, { headers: auth })).json()).status, {
      timeout: 120_000,
      intervals: [1000],
    })
    .toBe('succeeded');
  // The same upload as an image's input: a second call that used it.
  const image = await request.post('/v1/images/generate', {
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `e2e-${randomBytes(8).toString('hex')}` },
    data: { prompt: 'the square, in pencil', input_upload_id: upload.upload_id },
  });
  expect(image.status(), await image.text()).toBe(200);
  const imageRequestId = image.headers()['x-request-id']!;

  await signedIn(page);
  await page.goto(`/jobs?key=${issued.prefix}&status=succeeded`);
  const jobs = page.getByRole('region', { name: 'Jobs' });
  await expect(jobs.locator('tbody tr')).toHaveCount(1);
  // Every job is a video generation: no filter by operation to offer.
  await expect(page.getByRole('search', { name: 'Filter jobs' }).getByLabel('Status')).toBeVisible();
  await expect(page.getByRole('search', { name: 'Filter jobs' }).getByLabel('Operation')).toHaveCount(0);
  await expectAccessible(page, 'jobs');
  await keepScreenshot(page, 'jobs-filtered');
  await jobs.locator('tbody tr').first().getByRole('link').first().click();
  const video = page.getByTestId('media-video');
  const first = (await video.getAttribute('src'))!;
  expect(first).toMatch(/^\/files\//);
  const file = await page.request.get(first);
  expect(file.headers()['content-type']).toBe('video/mp4');
  await expectAccessible(page, 'job page');
  await keepScreenshot(page, 'job-video');
  await page.reload();
  expect(await page.getByTestId('media-video').getAttribute('src')).not.toBe(first);
  await page.getByRole('link', { name: 'Usage row of this request' }).click();
  await expect(page.getByRole('region', { name: 'Usage events' }).locator('tbody tr')).toHaveCount(1);

  await page.goto(`/input-uploads/${upload.upload_id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'square.png' })).toBeVisible();
  const preview = page.getByTestId('media-image');
  await expect.poll(() => preview.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBe(32);
  await expect(page.getByRole('link', { name: 'Download' })).toHaveAttribute('download', 'square.png');
  const calls = page.getByRole('region', { name: 'Calls that used this upload' }).locator('tbody tr');
  await expect(calls).toHaveCount(2);
  await expect(calls.nth(0)).toContainText('images.generate');
  await expect(calls.nth(0)).toContainText('succeeded');
  await expect(calls.nth(0)).toContainText('5');
  await expect(calls.nth(1)).toContainText('videos.generate');
  await expect(calls.nth(1)).toContainText('succeeded');
  await expect(calls.nth(1).getByRole('link', { name: jobId })).toHaveAttribute('href', `/jobs/${jobId}`);
  await expectAccessible(page, 'upload page');
  await keepScreenshot(page, 'upload-preview');
  await calls.nth(0).getByRole('link', { name: imageRequestId }).click();
  await expect(page).toHaveURL(new RegExp(`/usage\\?request=${imageRequestId}`));
  await expect(page.getByRole('region', { name: 'Usage events' }).locator('tbody tr.highlight')).toContainText('images.generate');
  await page.goto('/input-uploads');
  await expectAccessible(page, 'uploads');
});

test('layout: a styled 404 everywhere, a long e-mail truncates, controls are reachable by keyboard', async ({ page, browser, baseURL }) => {
  const anonymous = await browser.newContext({ baseURL });
  const outside = await anonymous.newPage();
  const missing = await outside.goto('/no-such-page-anywhere');
  expect(missing!.status()).toBe(404);
  await expect(outside.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expectAccessible(outside, '404 outside the dashboard');
  await outside.setViewportSize({ width: 1440, height: 900 });
  await keepScreenshot(outside, 'not-found-outside');
  await outside.goto('/signin');
  await expectAccessible(outside, 'sign-in page');
  await anonymous.close();

  const email = `a-very-long-operator-address-${tag()}@operations.example-company.com`;
  cli('operators', 'create', '--email', email, '--password', 'a long enough password', '--role', 'owner');
  await page.goto('/signin');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const shown = page.getByTestId('operator-email');
  await expect(shown).toHaveText(email);
  await expect(shown).toHaveAttribute('title', email);
  expect(
    await shown.evaluate((element) => [
      getComputedStyle(element).textOverflow,
      element.scrollWidth > element.clientWidth,
      element.getBoundingClientRect().height < 24,
    ]),
  ).toEqual(['ellipsis', true, true]);

  await page.goto(`/keys/${randomUUID()}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(page).toHaveTitle('Page not found · Workflow Generation Service');
  await expectAccessible(page, '404 in the dashboard');
  await keepScreenshot(page, 'not-found-dashboard');

  await page.goto('/usage');
  const keyFilter = page.getByRole('searchbox', { name: 'Key' });
  for (let presses = 0; presses < 40 && !(await keyFilter.evaluate((element) => element === document.activeElement)); presses++)
    await page.keyboard.press('Tab');
  await expect(keyFilter).toBeFocused();
});

// The pages no other test of this file runs axe on: the keys, usage, jobs, audit, new-version
// and issue-a-key pages are checked above, filled in, where they show the most.
test('layout: the overview and the package pages pass axe', async ({ page }) => {
  await signedIn(page);
  await expectAccessible(page, '/');
  for (const path of ['/packages', '/packages/starter', '/packages/new']) {
    await page.goto(path);
    await expectAccessible(page, path);
  }
});
