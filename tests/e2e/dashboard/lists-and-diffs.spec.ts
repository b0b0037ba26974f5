import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from '../support/axe';
import { cli } from '../support/cli';
import { keepScreenshot, signIn } from '../support/dashboard';

// The keys list pages both ways with its state in the URL; a long version diff in the audit log
// stays inside its own box at 1440x900 (the dashboard project's viewport).

const tag = () => randomUUID().slice(0, 6);

test.describe.configure({ timeout: 150_000 });

async function signedIn(page: Page) {
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
}

function applyPackage(definition: Record<string, unknown>) {
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-pkg-')), 'packages.json');
  writeFileSync(file, JSON.stringify({ packages: [definition] }));
  cli('packages', 'apply', file);
}

/** The page scrolls sideways when its content is wider than the window. */
const pageOverflow = (page: Page) =>
  page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));

test('keys: next page, then previous page, lands on the first page again (URL state)', async ({ page }) => {
  const marker = `pager-${tag()}`;
  await signedIn(page);
  // 53 keys: a full page of 50 and a second of 3.
  for (let i = 0; i < 53; i++) {
    const issued = await page.request.post('/api/trpc/keys.issue', { data: { packageSlug: 'starter', label: `${marker} ${i}` } });
    expect(issued.status(), await issued.text()).toBe(200);
  }
  await page.goto(`/keys?q=${marker}`);
  const rows = page.getByRole('region', { name: 'API keys' }).locator('tbody tr');
  await expect(rows).toHaveCount(50);
  const firstPage = await rows.allInnerTexts();
  expect(firstPage[0]).toContain(`${marker} 52`);
  await expect(page.getByRole('link', { name: '← Previous page' })).toHaveCount(0);

  await page.getByRole('link', { name: 'Next page →' }).click();
  await expect(page).toHaveURL(new RegExp(`/keys\\?q=${marker}&cursor=`));
  await expect(rows).toHaveCount(3);
  expect(await rows.allInnerTexts()).toEqual([`${marker} 2`, `${marker} 1`, `${marker} 0`].map((label) => expect.stringContaining(label)));
  await expect(page.getByRole('link', { name: 'Next page →' })).toHaveCount(0);
  await expectAccessible(page, 'keys, second page');
  await keepScreenshot(page, 'keys-second-page');

  await page.getByRole('link', { name: '← Previous page' }).click();
  await expect(page).toHaveURL(new RegExp(`/keys\\?q=${marker}&cursor=`));
  await expect(rows).toHaveCount(50);
  expect(await rows.allInnerTexts()).toEqual(firstPage);
  await expect(page.getByRole('link', { name: '← Previous page' })).toHaveCount(0);
  // The URL is the state: reloaded, the same page.
  await page.reload();
  await expect(rows).toHaveCount(50);
  expect(await rows.allInnerTexts()).toEqual(firstPage);
});

test('audit log: a long version diff wraps inside its own box, the page never scrolls sideways at 1440 px', async ({ page }) => {
  const slug = `long-${tag()}`;
  const styles = (word: string) => Array.from({ length: 4 }, (_, i) => `${word}${i}`.padEnd(120, word.charAt(0)));
  const version = (name: string, word: string) => ({
    slug,
    name,
    quota_units: 300,
    limits: { requests_per_minute: 60, concurrency: 2 },
    operations: {
      'text.generate': { engine: 'local', units: 1, output_formats: ['text'] },
      'images.generate': { engine: 'local', units: 5, output_formats: ['png', 'webp', 'jpeg'], styles: styles(word) },
    },
  });
  applyPackage(version('A'.repeat(120), 'watercolour'));
  applyPackage(version('B'.repeat(120), 'charcoal'));
  await signedIn(page);
  expect(page.viewportSize()).toEqual({ width: 1440, height: 900 });
  await page.goto(`/audit?target=${slug}`);
  const diff = page.getByRole('region', { name: `Changes from version 1 to 2 of ${slug}` });
  await expect(diff.getByRole('row', { name: /Styles/ })).toContainText('charcoal0');
  await expect(diff.getByRole('row', { name: /^Name/ })).toContainText('B'.repeat(20));
  const sizes = await pageOverflow(page);
  expect(sizes.scroll, 'the page is no wider than the window').toBeLessThanOrEqual(sizes.client);
  // The log's own box does not scroll sideways either: the diff wraps inside its cell.
  const log = page.getByRole('region', { name: 'Audit log entries' });
  expect(await log.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  await expectAccessible(page, 'audit log with a long diff');
  await keepScreenshot(page, 'audit-long-diff');
});

test('package: a new version saved untouched keeps list entries with a comma or edge spaces and exact sizes', async ({ page }) => {
  const slug = `lists-${tag()}`;
  applyPackage({
    slug,
    name: `Lists ${slug}`,
    quota_units: 100,
    limits: { requests_per_minute: 60, concurrency: 2, max_upload_bytes: 10_000_000 },
    operations: {
      'images.generate': { engine: 'local', units: 5, styles: ['oil, on canvas', '  spaced ', 'photo'] },
      'audio.speech': { engine: 'local', units: 2, voices: ['Mr, Smith', 'trail '] },
    },
  });
  await signedIn(page);
  await page.goto(`/packages/${slug}/new-version`);
  await expect(page.getByTestId('tags-images.generate|styles')).toContainText('oil, on canvas');
  await page.getByRole('button', { name: 'Create version' }).click();
  // Dashboard audit: the styles came back split at their commas and trimmed, the size 10,000,269 bytes.
  await expect(page.getByText('Nothing changed: version 1 stays the latest.')).toBeVisible();
});

test('back and forward: the filter fields and the time range show what the page lists', async ({ page }) => {
  await signedIn(page);
  await page.goto('/keys');
  await page.goto('/keys?status=active');
  await page.getByRole('searchbox', { name: 'Search' }).fill('zz-nobody-has-this');
  await expect(page).toHaveURL(/q=zz-nobody-has-this/);
  await page.goBack();
  await expect(page).toHaveURL(/\/keys$/);
  // Dashboard audit: the fields kept the filter the list no longer applied.
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('');
  await expect(page.getByRole('search', { name: 'Filter keys' }).getByLabel('Status')).toHaveValue('');

  await page.goto('/?range=7d');
  await page.getByLabel('Time range', { exact: true }).selectOption('24h');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page).toHaveURL(/range=24h/);
  await page.goBack();
  await expect(page).toHaveURL(/range=7d/);
  await expect(page.getByLabel('Time range', { exact: true })).toHaveValue('7d');
});

test("package page: the time range and the compared versions each keep the other's choice", async ({ page }) => {
  // Both forms used `from` and `to`: a custom range was read as versions "2026-…" that do not exist,
  // and comparing versions dropped the range.
  const slug = `pair-${tag()}`;
  for (const quota of [100, 200, 300]) {
    applyPackage({
      slug,
      name: `Pair ${quota}`,
      quota_units: quota,
      limits: { requests_per_minute: 60, concurrency: 2 },
      operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } },
    });
  }
  await signedIn(page);
  await page.goto(`/packages/${slug}`);
  const compare = page.getByRole('form', { name: 'Choose two versions to compare' });
  await compare.getByLabel('From version').selectOption('1');
  await compare.getByRole('button', { name: 'Compare' }).click();
  await expect(page).toHaveURL(/from_version=1&to_version=3/);
  const diff = page.getByRole('region', { name: 'Changes from version 1 to 3' });
  await expect(diff.getByRole('row', { name: /Quota/ })).toContainText('300');

  const range = page.getByRole('form', { name: 'Choose the time range' });
  await range.getByLabel('Time range', { exact: true }).selectOption('custom');
  await range.getByLabel('From', { exact: true }).fill('2026-01-01');
  await range.getByLabel('To', { exact: true }).fill('2026-01-31');
  await range.getByRole('button', { name: 'Show' }).click();
  await expect(page).toHaveURL(/range=custom&from=2026-01-01&to=2026-01-31/);
  await expect(page.getByText(/does not exist/)).toHaveCount(0);
  await expect(diff.getByRole('row', { name: /Quota/ })).toContainText('300');

  await compare.getByLabel('From version').selectOption('2');
  await compare.getByRole('button', { name: 'Compare' }).click();
  await expect(page).toHaveURL(/from_version=2&to_version=3/);
  await expect(page).toHaveURL(/range=custom&from=2026-01-01&to=2026-01-31/);
  await expect(page.getByRole('region', { name: 'Changes from version 2 to 3' })).toBeVisible();
  await expect(range.getByLabel('From', { exact: true })).toHaveValue('2026-01-01');
});

test('filters as you type, slowly: each keystroke stays in its field and the focus where it is (a11y review)', async ({ page }) => {
  await signedIn(page);
  // A chart is an image with its summary: no Tab stop inside it (a11y review: recharts' unnamed "application").
  await expect(page.locator('.chart').first()).toBeVisible();
  await expect(page.locator('.chart [tabindex="0"], .chart [role="application"]')).toHaveCount(0);
  await page.goto('/usage');
  const filters = page.getByRole('search', { name: 'Filter usage events' });
  const from = filters.getByLabel('From');
  // Slower than the filters' debounce: each pause writes the URL, and its page comes back while the next key is typed.
  await from.pressSequentially('2026-12', { delay: 600 });
  await expect(page).toHaveURL(/[?&]from=2026-12(&|$)/);
  await expect(from).toHaveValue('2026-12');
  await expect(from).toBeFocused();
  await expect(filters.getByLabel('Key', { exact: true })).toHaveValue('');
  await page.keyboard.press('Tab');
  await page.keyboard.type('2026', { delay: 600 });
  await expect(page).toHaveURL(/[?&]to=2026(&|$)/);
  await expect(filters.getByLabel('To (inclusive)')).toBeFocused();
  await expect(from).toHaveValue('2026-12');

  // A select changed with the arrow keys applies at once and keeps the focus: the next arrow moves on from there.
  await page.goto('/keys');
  const status = page.getByRole('search', { name: 'Filter keys' }).getByLabel('Status');
  await status.focus();
  await page.keyboard.press('ArrowDown');
  await expect(page).toHaveURL(/[?&]status=/);
  const first = await status.inputValue();
  await expect(status).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(status).not.toHaveValue(first);
  await expect(page).toHaveURL(new RegExp(`[?&]status=${await status.inputValue()}(&|$)`));
  await expect(status).toBeFocused();
});

test('package form by keyboard: the focus stays in the form when a tag or an engine it was on goes or moves (a11y review)', async ({
  page,
}) => {
  await signedIn(page);
  await page.goto('/packages/new');
  const offered = page.getByRole('button', { name: '+ markdown' }).first();
  await offered.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Remove markdown' }).first()).toBeVisible();
  expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
  await page.getByRole('button', { name: 'Remove markdown' }).first().focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Remove markdown' })).toHaveCount(0);
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');

  const engines = page.getByRole('group', { name: 'text.generate engines, first to answer first' });
  await engines.getByRole('button', { name: 'Add a fallback' }).focus();
  await page.keyboard.press('Enter');
  await expect(engines.getByLabel('text.generate engine 2: provider')).toBeFocused();
  await engines.getByRole('button', { name: 'Move text.generate engine 1 down' }).focus();
  await page.keyboard.press('Enter');
  // Now the last engine, whose Move down is disabled: its Move up has the focus.
  await expect(engines.getByRole('button', { name: 'Move text.generate engine 2 up' })).toBeFocused();
  await engines.getByRole('button', { name: 'Remove text.generate engine 2' }).focus();
  await page.keyboard.press('Enter');
  await expect(engines.getByRole('button', { name: 'Add a fallback' })).toBeFocused();
});

test('Reset empties the filters whatever is still being written or loaded (review of the filters as you type)', async ({ page }) => {
  await signedIn(page);
  await page.goto('/keys');
  const search = page.getByRole('searchbox', { name: 'Search' });
  const reset = page.getByRole('search', { name: 'Filter keys' }).getByRole('link', { name: 'Reset' });
  const settled = async () => {
    await expect(page).toHaveURL(/\/keys$/);
    await expect(search).toHaveValue('');
    await page.waitForTimeout(1_000); // nothing written or loaded later brings the filter back
    await expect(page).toHaveURL(/\/keys$/);
    await expect(search).toHaveValue('');
  };

  // Before the typed text was written: it never is.
  await search.pressSequentially('beta', { delay: 20 });
  await reset.click();
  await settled();

  // Written, its page still loading.
  await page.route(/\/keys\?.*q=beta/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 800));
    await route.continue().catch(() => {});
  });
  const loading = page.waitForRequest(/\/keys\?.*q=beta/);
  await search.pressSequentially('beta', { delay: 20 });
  await loading; // written; its page comes 800 ms later
  await reset.click();
  await settled();
  await page.unroute(/\/keys\?.*q=beta/);

  // After an empty query was written on the way (a filter typed and erased).
  await search.pressSequentially('al', { delay: 20 });
  await expect(page).toHaveURL(/[?&]q=al/);
  await search.fill('');
  await expect(page).toHaveURL(/\/keys$/);
  await search.pressSequentially('beta', { delay: 20 });
  await expect(page).toHaveURL(/[?&]q=beta/);
  await reset.click();
  await settled();
});
