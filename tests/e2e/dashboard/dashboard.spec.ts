import { randomUUID } from 'node:crypto';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { OPERATOR } from '../support/cli';
import { keepScreenshot, signIn, stat } from '../support/dashboard';

// The operator's whole journey against `next start`: sign in, publish a package version,
// sell a key, watch the API spend it, top it up, revoke it, sign out.

function generate(request: APIRequestContext, key: string) {
  return request.post('/v1/text/generate', {
    headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-${randomUUID()}`, 'Content-Type': 'application/json' },
    data: { input: 'Say hello to the dashboard.' },
  });
}

test('pages and tRPC refuse a visitor who has not signed in', async ({ page, request }) => {
  for (const path of ['/', '/keys', '/packages/starter', '/usage', '/audit']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to the operator dashboard');
  }
  const trpc = await request.get('/api/trpc/keys.list?input=%7B%7D');
  expect(trpc.status()).toBe(401);
  // A batch over the limit is refused whole, before any of its calls runs.
  const calls = Array.from({ length: 11 }, () => 'keys.list');
  const input = encodeURIComponent(JSON.stringify(Object.fromEntries(calls.map((_, i) => [i, {}]))));
  const batch = await request.get(`/api/trpc/${calls.join(',')}?batch=1&input=${input}`);
  expect(batch.status()).toBe(400);
  expect(await batch.text()).toContain('Batch call exceeds maximum size');
  expect((await request.get('/usage/export')).status()).toBe(401);
});

test('signed out, a dashboard page sends the operator to sign in and back to it', async ({ page }) => {
  await page.goto('/keys?status=active');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fkeys%3Fstatus%3Dactive$/);
  await page.getByLabel('E-mail').fill(OPERATOR.email);
  await page.getByLabel('Password').fill(OPERATOR.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/keys\?status=active$/);
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
});

test('a wrong password is refused with a clear message', async ({ page }) => {
  await signIn(page, 'not the password at all');
  await expect(page.getByRole('alert').filter({ hasText: 'The e-mail or password is not correct.' })).toBeVisible();
  await expect(page).toHaveURL(/\/signin/);
});

test('a callbackUrl leads only to a page of the dashboard itself', async ({ page, baseURL }) => {
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  for (const crafted of [
    '/\\example.org',
    '//example.org',
    'https://example.org/',
    '/\\/example.org/keys',
    '/.//example.org',
    '/..//example.org',
    '/%2e//example.org',
    '/./\\example.org',
  ]) {
    // The signed-in sign-in page answers with a redirect: its target, read without following it
    // (each followed redirect would render the Overview's reports again).
    const answer = await page.request.get(`/signin?callbackUrl=${encodeURIComponent(crafted)}`, { maxRedirects: 0 });
    expect(answer.status(), crafted).toBe(307);
    const target = new URL(answer.headers()['location']!, baseURL);
    expect(target.origin, crafted).toBe(new URL(baseURL!).origin);
    expect(target.pathname, crafted).toBe('/');
  }
  // Followed in the browser, such a redirect lands on the Overview.
  await page.goto(`/signin?callbackUrl=${encodeURIComponent('//example.org')}`);
  expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await page.goto(`/signin?callbackUrl=${encodeURIComponent('/keys?status=active')}`);
  await expect(page).toHaveURL(/\/keys\?status=active$/);
});

test('odd cookies and next-auth requests are answered (no 500), and no page may be framed', async ({ page, baseURL }) => {
  // A same-site origin could plant an unparseable callback URL; next-auth used to fail every request on it.
  await page.context().addCookies([{ name: 'next-auth.callback-url', value: 'http://%5B', url: baseURL! }]);
  const signin = await page.goto('/signin');
  expect(signin!.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to the operator dashboard');
  expect(signin!.headers()['x-frame-options']).toBe('DENY');
  expect(signin!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect((await page.request.get('/api/auth/session?callbackUrl=http://%5B')).status()).toBe(400);
  expect((await page.request.get('/api/auth/session?callbackUrl=%2Fkeys')).status()).toBe(200);
  const csrfToken = (await (await page.request.get('/api/auth/csrf')).json()).csrfToken as string;
  const badCallback = await page.request.post('/api/auth/callback/credentials', {
    form: { csrfToken, email: 'nobody@example.com', password: 'wrong password here', callbackUrl: 'http://[' },
  });
  expect(badCallback.status()).toBe(400);
  expect((await page.request.get('/api/auth/csrf')).status()).toBe(200);
  const callback = await page.request.get('/api/auth/callback/credentials');
  expect(callback.status()).toBe(405);
  expect(await callback.text()).not.toContain('Error');
  expect((await page.request.post('/api/auth/_log', { form: { level: 'error', code: 'x', message: 'forged' } })).status()).toBe(404);
  // next-auth put an error name that is no header value into its redirect's Location: a 500.
  for (const error of ['%ff', '%0d%0aSet-Cookie:x=1', '%E2%82']) {
    const answer = await page.request.get(`/api/auth/error?error=${error}`, { maxRedirects: 0 });
    expect([error, answer.status(), answer.headers().location]).toEqual([error, 302, '/signin?error=Default']);
  }
  const named = await page.request.get('/api/auth/error?error=CredentialsSignin', { maxRedirects: 0 });
  expect([named.status(), named.headers().location]).toEqual([302, expect.stringContaining('/signin?error=CredentialsSignin')]);
});

test('the sign-in form posts: without its script, the password never lands in the URL', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/signin?callbackUrl=%2Fkeys');
  await page.getByLabel('E-mail').fill(OPERATOR.email);
  await page.getByLabel('Password').fill('not the real password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForLoadState();
  expect(page.url()).not.toContain('password');
  expect(page.url()).not.toContain('not+the+real');
  // Nothing signs in without the script (the form's POST only renders the page again), and nothing fails.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to the operator dashboard');
  await context.close();
});

test('operator journey: package version, key, API usage, top-up, revoke, sign out', async ({ page, request }) => {
  // Many pages, each rendered by a server that shares two cores with the rest of npm test.
  test.setTimeout(300_000);

  await test.step('sign in', async () => {
    await signIn(page);
    await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    await expect(page.getByTestId('operator-email')).toHaveText(OPERATOR.email);
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
    await keepScreenshot(page, 'overview-empty');
  });

  await test.step('create a package version from the form, with validation', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Packages' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Packages' })).toBeVisible();
    await keepScreenshot(page, 'packages');
    await page.getByRole('link', { name: 'Starter' }).click();
    await page.getByRole('link', { name: 'New version' }).click();
    const quota = page.getByLabel('Quota (units)');
    await quota.fill('-5');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Fix the highlighted fields' })).toBeVisible();
    await expect(quota).toHaveAttribute('aria-invalid', 'true');
    await quota.fill('2000');
    await page.getByRole('button', { name: 'Create version' }).click();
    await expect(page).toHaveURL(/\/packages\/starter\?created=2/);
    await expect(page.getByText('Version 2 created.')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Version 2 (latest)' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Version 1', exact: true })).toBeVisible();
    await keepScreenshot(page, 'package-detail');
  });

  let key = '';
  let keyId = '';
  await test.step('issue a key and read it from the page', async () => {
    await page.getByRole('link', { name: 'Issue a key' }).click();
    await expect(page.getByLabel('Package')).toHaveValue('starter');
    await expect(page.getByLabel('Version')).toHaveValue('2');
    // The hint names the chosen version's own quota (outside audit: always the latest's).
    await expect(page.getByText("On top of version 2's 2,000 units")).toBeVisible();
    await page.getByLabel('Version').selectOption('1');
    await expect(page.getByText("On top of version 1's 1,000 units")).toBeVisible();
    await page.getByLabel('Version').selectOption('2');
    await page.getByLabel('Label').fill('e2e customer');
    await page.getByRole('button', { name: 'Issue key' }).click();
    key = (await page.getByTestId('issued-key').textContent()) ?? '';
    // The form that held the focus is gone: it moves to the key shown.
    await expect(page.getByRole('heading', { name: 'Key issued' })).toBeFocused();
    expect(key).toMatch(/^wgs_live_[0-9A-Za-z]{32,}$/);
    await expect(page.getByRole('button', { name: 'Copy key' })).toBeVisible();
    await keepScreenshot(page, 'key-issued');
    // A dashboard reached over plain HTTP off localhost has no Clipboard API: the copy still works.
    await page.evaluate(() => {
      Object.defineProperty(window, 'isSecureContext', { value: false, configurable: true });
      Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
      document.addEventListener('copy', () => ((window as { copied?: string }).copied = document.getSelection()?.toString()));
    });
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Copied.' })).toBeVisible();
    expect(await page.evaluate(() => (window as { copied?: string }).copied)).toBe(key);
    await expect(page.getByRole('button', { name: 'Copy key' })).toBeFocused();
    await page.getByRole('link', { name: 'Open the key' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'e2e customer' })).toBeVisible();
    keyId = new URL(page.url()).pathname.split('/').at(-1)!;
    await expect(stat(page, 'remaining-units')).toHaveText('2,000');
    await expect(stat(page, 'request-count')).toHaveText('0');
  });

  await test.step('call the API with the key and see usage and remaining units change', async () => {
    const response = await generate(request, key);
    expect(response.status(), await response.text()).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ object: 'generation', operation: 'text.generate', usage: { charged_units: 1, remaining_units: 1999 } });
    await page.reload();
    await expect(stat(page, 'remaining-units')).toHaveText('1,999');
    await expect(stat(page, 'units-used')).toHaveText('1');
    await expect(stat(page, 'request-count')).toHaveText('1');
    const recent = page.getByRole('region', { name: 'Recent requests with this key' });
    await expect(recent.getByRole('row')).toHaveCount(2);
    await expect(recent).toContainText('text.generate');
    await expect(recent).toContainText('succeeded');
    await keepScreenshot(page, 'key-detail');
  });

  await test.step('top up units (audited)', async () => {
    await page.getByLabel('Units to add').fill('10');
    await page.getByRole('button', { name: 'Top up' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Added 10 units' })).toBeVisible();
    await expect(stat(page, 'remaining-units')).toHaveText('2,009');
  });

  await test.step('usage, jobs, uploads and the overview show the traffic', async () => {
    await page.goto('/usage?operation=text.generate');
    await expect(page.getByRole('region', { name: 'Usage events' })).toContainText(key.slice(0, 13));
    await keepScreenshot(page, 'usage');
    const csv = await page.request.get('/usage/export?operation=text.generate');
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect(await csv.text()).toContain(key.slice(0, 13));
    await page.goto('/');
    await expect(stat(page, 'total-requests')).not.toHaveText('0');
    await keepScreenshot(page, 'overview');
    await page.goto('/jobs');
    await expect(page.getByRole('heading', { level: 1, name: 'Jobs' })).toBeVisible();
    await keepScreenshot(page, 'jobs');
    await page.goto('/input-uploads');
    await expect(page.getByRole('heading', { level: 1, name: 'Uploads' })).toBeVisible();
    await keepScreenshot(page, 'uploads');
    await page.goto('/keys?q=e2e+customer');
    await expect(page).toHaveTitle('API keys · Workflow Generation Service');
    await expect(page.getByRole('region', { name: 'API keys' }).getByRole('row')).toHaveCount(2);
    await keepScreenshot(page, 'keys');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Keys' })).toBeVisible();
    await keepScreenshot(page, 'keys-narrow');
    // A phone's width: the key's page does not scroll sideways (its details ran 181 px past a 375 px screen; dashboard audit).
    await page.setViewportSize({ width: 375, height: 800 });
    await page
      .getByRole('region', { name: 'API keys' })
      .getByRole('link', { name: /wgs_live_/ })
      .click();
    await expect(page.getByRole('heading', { level: 1, name: 'e2e customer' })).toBeVisible();
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await keepScreenshot(page, 'key-narrow');
    await page.goBack();
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await test.step('revoke the key and see the API answer 401', async () => {
    await page
      .getByRole('region', { name: 'API keys' })
      .getByRole('link', { name: /wgs_live_/ })
      .click();
    // An in-page confirmation that names the key (not the browser's confirm box).
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page
      .getByRole('alertdialog', { name: /Revoke wgs_live_\w{4}… \(e2e customer\)\?/ })
      .getByRole('button', { name: /^Revoke wgs_live_/ })
      .click();
    await expect(stat(page, 'key-status')).toHaveText('revoked');
    await expect(page.getByRole('button', { name: 'Revoke key' })).toHaveCount(0);
    // Nor is a webhook offered, which the server refuses for a revoked key (dashboard audit).
    await expect(page.getByRole('button', { name: 'Set webhook' })).toHaveCount(0);
    await expect(page.getByText('A revoked key runs no jobs, so it takes no webhook endpoint.')).toBeVisible();
    // The question went with its answer: the focus it held goes to the page's heading, not to nowhere.
    await expect(page.getByRole('heading', { level: 1 })).toBeFocused();
    await expect.poll(async () => (await generate(request, key)).status(), { timeout: 5_000 }).toBe(401);
  });

  await test.step('the audit log names the operator for each action', async () => {
    // The key's own entries (a spec running beside this one may issue dozens of keys as the same operator meanwhile).
    const actor = encodeURIComponent(OPERATOR.email);
    await page.goto(`/audit?actor=${actor}&target=${keyId}`);
    const log = page.getByRole('region', { name: 'Audit log entries' });
    for (const action of ['key.revoke', 'key.topup', 'key.create']) await expect(log).toContainText(action);
    await page.goto(`/audit?actor=${actor}&action=package.version.create`);
    await expect(log).toContainText('package.version.create');
    await keepScreenshot(page, 'audit');
  });

  await test.step('sign out and see pages refuse access, even to a copy of the old session cookie', async () => {
    const signedInCookies = await page.context().cookies();
    expect((await page.request.get('/api/trpc/keys.list?input=%7B%7D')).status()).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.goto('/keys');
    await expect(page).toHaveURL(/\/signin/);
    expect((await page.request.get('/api/trpc/keys.list?input=%7B%7D')).status()).toBe(401);
    // The cookie is still a validly signed, unexpired JWT; the server ended the session it names.
    await page.context().addCookies(signedInCookies);
    expect((await page.request.get('/api/trpc/keys.list?input=%7B%7D')).status()).toBe(401);
    expect(await (await page.request.get('/api/auth/session')).json()).not.toHaveProperty('user');
    expect((await page.request.get('/usage/export')).status()).toBe(401);
    await page.goto('/keys');
    await expect(page).toHaveURL(/\/signin/);
  });
});
