import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as baseExpect, test } from '@playwright/test';
import { startFakeOpenAi, type FakeOpenAi } from '../../../fakes/fake-openai';
import { cli } from '../support/cli';
import { signIn, stat } from '../support/dashboard';

// Does the package make money? An operator sets a unit price in the package form; three calls go
// through a fake OpenAI provider (5 input + 7 output tokens each) priced by the provider's own
// per-model prices (1,000 per Mtok in and out: 0.012 a call), one more call fails; the package
// page and the overview show revenue 3 × 2 units × 0.01 = 0.06, cost 0.036, margin 0.024 (40 %).

const expect = baseExpect.configure({ timeout: 20_000 });

let fake: FakeOpenAi;
test.beforeAll(async () => {
  fake = await startFakeOpenAi();
});
test.afterAll(async () => {
  await fake?.close();
});

test('an operator sets a unit price and sees revenue, provider cost and margin of real traffic', async ({ page, request }) => {
  test.setTimeout(150_000);
  const name = `m-${randomUUID().slice(0, 8)}`;
  const file = join(mkdtempSync(join(tmpdir(), 'wgs-e2e-margin-')), 'packages.json');
  writeFileSync(
    file,
    JSON.stringify({
      providers: {
        [name]: { type: 'openai', base_url: fake.baseUrl, prices: { 'model-m': { input_per_mtok: 1000, output_per_mtok: 1000 } } },
      },
      packages: [
        {
          slug: name,
          name: `Margin ${name}`,
          quota_units: 100,
          limits: { requests_per_minute: 60, concurrency: 2 },
          operations: { 'text.generate': { engine: `${name}:model-m`, units: 2 } },
        },
      ],
    }),
  );
  cli('packages', 'apply', file);
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });

  await test.step('set the unit price in a new version of the package', async () => {
    await page.goto(`/packages/${name}/new-version`);
    await page.getByLabel('Unit price').fill('0.01');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect(page).toHaveURL(new RegExp(`/packages/${name}\\?created=2$`));
    await expect(page.getByText('$0.01').first()).toBeVisible();
  });

  await test.step('traffic through the fake provider: three answered, one failed', async () => {
    const issued = cli<{ key: string }>('keys', 'create', '--package', name);
    const send = (input: string) =>
      request.post('/v1/text/generate', {
        headers: { Authorization: `Bearer ${issued.key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
        data: { input },
      });
    for (const input of ['one', 'two', 'three']) expect((await send(input)).status()).toBe(200);
    fake.setMode({ kind: 'status', status: 400 });
    expect((await send('four')).status()).toBe(503);
    fake.reset();
  });

  await test.step("the package's page and the overview show the same figures", async () => {
    await page.goto(`/packages/${name}`);
    await expect(stat(page, 'margin-revenue')).toHaveText('$0.06');
    await expect(stat(page, 'margin-cost')).toHaveText('$0.04'); // 0.036
    await expect(stat(page, 'margin-failed-cost')).toHaveText('$0.00');
    await expect(stat(page, 'margin-margin')).toHaveText('$0.02'); // 0.024
    await expect(stat(page, 'margin-pct')).toHaveText('40.00 %');
    await expect(stat(page, 'margin-unpriced')).toHaveText('0');
    await page.goto('/?range=24h');
    await expect(stat(page, 'margin-margin')).toBeVisible();
    const row = page.getByRole('table', { name: 'Packages by margin' }).getByRole('row').filter({ hasText: name });
    await expect(row).toContainText('$0.06');
    await expect(row).toContainText('$0.04');
    await expect(row).toContainText('40.00 %');
  });
});
