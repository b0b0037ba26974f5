import { expect, test } from '@playwright/test';

// The human API reference renders offline from /v1/openapi.json (its script is served by the app).
test('the API reference page renders every /v1 operation', async ({ page }) => {
  const external: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) && url.protocol.startsWith('http')) external.push(request.url());
  });
  await page.goto('/docs');
  for (const summary of ['Generate text', 'Submit a video job', 'Create a direct private upload', 'Retrieve an owned video job']) {
    await expect(page.getByText(summary).first()).toBeVisible({ timeout: 20_000 });
  }
  await page.screenshot({ path: 'tests/artifacts/api-reference.png', fullPage: false });
  expect(external).toEqual([]);
});

test('the API reference opens with bearer authentication selected, and its example requests are valid', async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByText('Generate text').first()).toBeVisible({ timeout: 20_000 });
  // The key goes straight into the token field of the page's Authentication card: no scheme to
  // pick first. (Scalar's API client, hidden until opened, has a field of the same name, which may
  // come first in the page.) The card's text is checked first, so that a failure shows what the
  // card holds; Scalar renders the card when the page is idle, which on a busy machine comes late.
  const authentication = page.locator('.scalar-reference-intro-auth');
  await expect(authentication).toContainText('Bearer Token', { timeout: 60_000 });
  await expect(authentication.getByLabel('Bearer Token')).toBeVisible();
  await expect(page.getByText('No authentication selected')).toHaveCount(0);
  // The generated curl commands send the schemas' examples, never an empty required field.
  await expect(page.locator('body')).toContainText('"input": "Summarise why idempotency keys matter for paid APIs."', { timeout: 20_000 });
  await expect(page.locator('body')).toContainText('"prompt": "A paper boat drifting down a rain-soaked street."');
  expect(await page.locator('body').innerText()).not.toMatch(/"(?:input|prompt|text|filename|sha256)": ""/);
});
