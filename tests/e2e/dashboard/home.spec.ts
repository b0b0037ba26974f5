import { expect, test } from '@playwright/test';

test('the home page loads in the browser', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Workflow Generation Service');
});
