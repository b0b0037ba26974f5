import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { OPERATOR } from './cli';

export const ARTIFACTS = join(process.cwd(), 'tests', 'artifacts', 'dashboard');

/** Signs in through the real form, as an operator would (the seeded owner unless told). */
export async function signIn(page: Page, password = OPERATOR.password, email = OPERATOR.email): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** A full-page screenshot kept as a test artifact (tests/artifacts is git-ignored). */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await expect(page.locator('main')).toBeVisible();
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The text of a stat card, e.g. "1,999". */
export const stat = (page: Page, testId: string) => page.getByTestId(testId);
