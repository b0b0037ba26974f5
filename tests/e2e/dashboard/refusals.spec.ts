import { randomUUID } from 'node:crypto';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_METRICS_TOKEN } from '../../../playwright.config';
import { cli } from '../support/cli';
import { keepScreenshot, signIn, stat } from '../support/dashboard';

// Refused requests (counted in memory, flushed every second here) appear on the overview and
// on the key's page; the same process serves them as Prometheus metrics to its token.

function post(request: APIRequestContext, key: string, data: unknown, contentType = 'application/json') {
  return request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': contentType },
    data: typeof data === 'string' ? data : JSON.stringify(data),
  });
}

const count = async (page: Page, testId: string) => Number((await stat(page, testId).innerText()).replaceAll(',', ''));

/** The overview's refused count once no earlier request's count is still on its way. */
async function settledRefused(page: Page): Promise<number> {
  let previous = -1;
  for (;;) {
    await page.goto('/?range=24h');
    const current = await count(page, 'total-refused');
    if (current === previous) return current;
    previous = current;
    await page.waitForTimeout(1_500);
  }
}

test("refused requests are counted on the overview, on the key's page and in /metrics", async ({ page, request }) => {
  test.setTimeout(120_000); // several page loads and a sign-in (argon2) on a loaded machine
  const issued = cli<{ id: string; key: string }>('keys', 'create', '--package', 'starter', '--label', 'refusals e2e');
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
  const before = await settledRefused(page);

  for (let i = 0; i < 3; i++) expect((await post(request, issued.key, { input: '' })).status()).toBe(422);
  expect((await post(request, issued.key, 'input=hi', 'text/plain')).status()).toBe(415);
  expect((await post(request, 'wgs_live_nobody', { input: 'hi' })).status()).toBe(401);
  expect((await post(request, issued.key, { input: 'hi' })).status()).toBe(200);

  await expect(async () => {
    await page.goto('/?range=24h');
    expect(await count(page, 'total-refused')).toBe(before + 5);
  }).toPass({ timeout: 20_000 });
  const byCode = page.getByRole('table', { name: 'Refused requests by code' });
  await expect(byCode.getByRole('row').filter({ hasText: 'unsupported_media_type' })).toBeVisible();
  await expect(byCode.getByRole('row').filter({ hasText: 'validation_error' })).toBeVisible();
  // The chart names every bar the table lists (outside audit: a fixed height dropped the names that would overlap).
  const listed = await byCode.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) =>
      [...(row as HTMLTableRowElement).cells]
        .slice(0, 2)
        .map((cell) => cell.textContent!.trim())
        .join(''),
    ),
  );
  const chart = page
    .locator('.card')
    .filter({ has: page.getByRole('heading', { name: 'Refused by code' }) })
    .locator('.chart');
  const ticks = chart.locator('.recharts-cartesian-axis-tick-value');
  await expect(ticks.first()).toBeVisible(); // drawn once its container is measured
  const drawn = await ticks.evaluateAll((texts) => texts.map((text) => text.textContent!.replace(/\s/g, '')));
  for (const name of listed) expect(drawn, name).toContain(name.replace(/\s/g, ''));
  await keepScreenshot(page, 'overview-refusals');

  await page.goto(`/keys/${issued.id}`);
  await expect(page.getByTestId('key-refused')).toHaveText('4');
  const keyTable = page.getByRole('table', { name: 'Refused requests with this key by code' });
  await expect(keyTable.getByRole('row').filter({ hasText: 'validation_error' })).toContainText('3');
  await expect(keyTable.getByRole('row').filter({ hasText: 'unsupported_media_type' })).toContainText('1');
  await keepScreenshot(page, 'key-refusals');

  // The range is URL state: the picker's choice is in the link.
  await page.getByLabel('Time range', { exact: true }).selectOption('7d');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page).toHaveURL(/range=7d/);
  await expect(page.getByText('refused over the last 7 days')).toBeVisible();

  await page.goto('/keys?sort=refusals');
  await expect(page.getByRole('row').filter({ hasText: issued.key.slice(0, 13) })).toContainText('4');

  expect((await request.get('/metrics')).status()).toBe(401);
  const scrape = await request.get('/metrics', { headers: { Authorization: `Bearer ${E2E_METRICS_TOKEN}` } });
  expect(scrape.status()).toBe(200);
  const text = await scrape.text();
  expect(text).toMatch(
    /^wgs_http_request_duration_seconds_count\{route="\/v1\/text\/generate",method="POST",status="422",code="validation_error"\} [1-9]/m,
  );
  expect(text).toMatch(/^wgs_units_charged_total\{package="starter",operation="text.generate"\} [1-9]/m);
  expect(text).toContain('nodejs_eventloop_lag_seconds');
});
