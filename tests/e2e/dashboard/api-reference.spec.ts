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
