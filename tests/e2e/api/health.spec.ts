import { expect, test } from '@playwright/test';

test('the product answers on its health route', async ({ request }) => {
  const response = await request.get('/healthz');
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: 'ok' });
});

test('responses outside /v1 carry a request id too, and the API keeps its own', async ({ request }) => {
  for (const path of ['/healthz', '/docs', '/signin', '/no-such-page']) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.headers()['x-request-id'], path).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
  }
  const refused = await request.post('/v1/text/generate', { headers: { Authorization: 'Bearer nope' }, data: {} });
  expect(refused.status()).toBe(401);
  expect(refused.headers()['x-request-id']).toBe((await refused.json()).error.request_id);
});
