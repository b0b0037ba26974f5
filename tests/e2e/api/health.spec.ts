import { expect, test } from '@playwright/test';

test('the product answers on its health route', async ({ request }) => {
  const response = await request.get('/healthz');
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: 'ok' });
});

test('responses outside /v1 carry a request id and no-store too, and the API keeps its own', async ({ request }) => {
  for (const path of ['/healthz', '/docs', '/signin', '/no-such-page']) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.headers()['x-request-id'], path).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
    expect(response.headers()['cache-control'], path).toContain('no-store');
  }
  const refused = await request.post('/v1/text/generate', { headers: { Authorization: 'Bearer nope' }, data: {} });
  expect(refused.status()).toBe(401);
  expect(refused.headers()['x-request-id']).toBe((await refused.json()).error.request_id);
});

test('a large body outside /v1 (sign-in, dashboard API) is refused before it is read: 413, and the server stays up', async ({
  request,
}) => {
  const big = 'a'.repeat(2 * 1024 * 1024);
  const refused = await request.post('/api/auth/callback/credentials', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    data: big,
  });
  expect(refused.status()).toBe(413);
  expect((await refused.json()).error.code).toBe('payload_too_large');
  expect((await request.get('/healthz')).status()).toBe(200);
});

test('/signin?error=__proto__ is the sign-in page with a generic message, not a 500', async ({ request }) => {
  const page = await request.get('/signin?error=__proto__');
  expect(page.status()).toBe(200);
  expect(await page.text()).toContain('Sign-in failed.');
});

test('a body nesting 500,000 levels is refused before it is parsed, signed in or not: the portal 400, sign-in 415 (outside audit: 150 ms of CPU each)', async ({
  request,
}) => {
  const deep = `{"secret":"wgs_live_x","z":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
  const portal = await request.post('/api/portal/session', { headers: { 'Content-Type': 'application/json' }, data: deep });
  expect(portal.status()).toBe(400);
  expect((await portal.json()).error).toMatchObject({
    code: 'invalid_request',
    message: 'The request body nests more than 128 levels deep.',
  });
  const signIn = await request.post('/api/auth/callback/credentials', { headers: { 'Content-Type': 'application/json' }, data: deep });
  expect(signIn.status()).toBe(415);
  // next-auth reads a body as JSON whenever its Content-Type merely contains application/json.
  const disguised = await request.post('/api/auth/callback/credentials', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded; x=application/json' },
    data: deep,
  });
  expect(disguised.status()).toBe(415);
  expect((await request.get('/healthz')).status()).toBe(200);
});
