import { createHash, randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { cli } from '../support/cli';
import { signIn } from '../support/dashboard';

// The dashboard's doors, read from the real answers of `npm start` (run here with
// TRUST_PROXY=true: X-Forwarded-Proto: https stands for a TLS proxy in front).

const HTTPS = { 'X-Forwarded-Proto': 'https' };

/** Every value of one header of an answer (Playwright joins repeated ones). */
const values = (headers: { name: string; value: string }[], name: string) =>
  headers.filter((header) => header.name.toLowerCase() === name).map((header) => header.value);

test('pages: a nonce policy for scripts that every script of the page carries, and nothing blocked', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to (?:execute|load)/i.test(message.text())) violations.push(message.text());
  });
  const answer = await page.goto('/signin');
  const policies = values(await answer!.headersArray(), 'content-security-policy');
  const policy = policies.find((value) => value.includes('script-src'));
  expect(policy, policies.join(' | ')).toBeDefined();
  const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)' 'strict-dynamic'/.exec(policy!)?.[1];
  expect(nonce).toBeDefined();
  expect(policy).toContain("object-src 'none'");
  expect(policy).toContain("base-uri 'none'");
  expect(/script-src[^;]*unsafe-inline/.test(policy!)).toBe(false);
  const scripts = await page.locator('script').evaluateAll((elements) => elements.map((element) => (element as HTMLScriptElement).nonce));
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.every((value) => value === nonce)).toBe(true);
  // Each answer has its own nonce.
  const again = values(await (await page.request.get('/signin')).headersArray(), 'content-security-policy').join(' ');
  expect(again).not.toContain(nonce!);

  expect(answer!.headers()['referrer-policy']).toBe('strict-origin');
  expect(answer!.headers()['strict-transport-security']).toBeUndefined();

  // The page works under it: sign in, and the dashboard's client scripts run (navigation).
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Keys' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  expect(violations).toEqual([]);
});

test('over https: HSTS, and Secure cookies (whatever NEXTAUTH_URL says)', async ({ request }) => {
  const page = await request.get('/signin', { headers: HTTPS });
  expect(page.headers()['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  const csrf = await request.get('/api/auth/csrf', { headers: HTTPS });
  const cookies = values(csrf.headersArray(), 'set-cookie');
  expect(cookies.length).toBeGreaterThan(0);
  for (const cookie of cookies) expect(cookie, cookie).toMatch(/;\s*Secure/i);
  expect(cookies.some((cookie) => cookie.startsWith('__Host-next-auth.csrf-token='))).toBe(true);

  const plain = await request.get('/api/auth/csrf');
  for (const cookie of values(plain.headersArray(), 'set-cookie')) expect(cookie).not.toMatch(/;\s*Secure/i);
  expect((await request.get('/signin')).headers()['strict-transport-security']).toBeUndefined();
});

test('the API reference has its own policy: its script file and its inline script by hash', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const answer = await page.goto('/docs');
  const policy = values(await answer!.headersArray(), 'content-security-policy').find((value) => value.includes('script-src'));
  const html = await answer!.text();
  const inline = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)![1]!;
  const hash = createHash('sha256').update(inline).digest('base64');
  expect(policy).toContain(`script-src 'self' 'sha256-${hash}'`);
  expect(policy).not.toContain('nonce-');
  await expect(page.getByText('Generate text').first()).toBeVisible({ timeout: 20_000 });
  expect(violations).toEqual([]);
});

test('signed URLs answer with Referrer-Policy: no-referrer', async ({ request }) => {
  const key = cli<{ key: string }>('keys', 'create', '--package', 'starter').key;
  const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const created = await request.post('/v1/uploads', {
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    data: {
      purpose: 'image_input',
      filename: 'a.png',
      mime_type: 'image/png',
      size_bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const uploadUrl = new URL((await created.json()).upload_url as string);
  const put = await request.put(`${uploadUrl.pathname}${uploadUrl.search}`, { data: bytes, headers: { 'Content-Type': 'image/png' } });
  expect(put.status(), await put.text()).toBeLessThan(500);
  expect(put.headers()['referrer-policy']).toBe('no-referrer');
  const file = await request.get('/files/not-a-key?exp=1&sig=x');
  expect(file.status()).toBe(404);
  expect(file.headers()['referrer-policy']).toBe('no-referrer');
  const notAllowed = await request.post('/files/not-a-key?exp=1&sig=x'); // a 405 too (it said strict-origin)
  expect([notAllowed.status(), notAllowed.headers()['referrer-policy']]).toEqual([405, 'no-referrer']);
});

test('another site cannot mutate through the dashboard or sign in to it: 403', async ({ page, baseURL }) => {
  await signIn(page);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible({ timeout: 30_000 });
  const issue = (headers: Record<string, string>) =>
    page.request.post('/api/trpc/keys.issue', { data: { packageSlug: 'starter', label: 'doors' }, headers });
  const foreign = await issue({ Origin: 'http://evil.example' });
  expect(foreign.status()).toBe(403);
  expect(await foreign.text()).toContain('Cross-site');
  expect((await issue({ 'Sec-Fetch-Site': 'cross-site' })).status()).toBe(403);
  expect((await issue({ Origin: 'null' })).status()).toBe(403);
  expect((await issue({ Origin: baseURL!, 'Sec-Fetch-Site': 'same-origin' })).status()).toBe(200);

  const signInPost = await page.request.post('/api/auth/callback/credentials', {
    form: { email: 'operator@example.com', password: 'whatever', csrfToken: 'x' },
    headers: { Origin: 'http://evil.example' },
  });
  expect(signInPost.status()).toBe(403);
});
