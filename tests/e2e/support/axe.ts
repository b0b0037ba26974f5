import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** axe-core on the page as it stands: no serious or critical violation (WCAG 2.x A and AA rules). */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await expect(page.locator('body')).toBeVisible();
  // Legacy mode runs axe in the page itself; the default opens a blank page per call to merge
  // the frames' results, which doubled each call's time. These pages have no frames to merge.
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  const summary = serious.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.nodes
        .map((node) => node.target.join(' '))
        .slice(0, 3)
        .join(', ')}`,
  );
  expect(summary, `accessibility of ${name}`).toEqual([]);
}
