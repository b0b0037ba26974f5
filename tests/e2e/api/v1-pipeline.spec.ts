import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { expect, test, type APIResponse } from '@playwright/test';
import { codeGenerateResponse, textGenerateResponse } from '../../../server/contract/generation';
import { errorResponseSchema } from '../../../server/contract/errors';
import { cli } from '../support/cli';

// The /v1 pipeline through the real product (`npm start`): HTTP framing, Next routing and
// the same checks the integration tests make in-process.

let key: string;

test.beforeAll(() => {
  key = cli<{ key: string }>('keys', 'create', '--package', 'starter').key;
});

const idem = () => `e2e-${randomBytes(9).toString('base64url')}`;
const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  'Idempotency-Key': idem(),
  ...extra,
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The error envelope, with X-Request-Id equal to error.request_id and Cache-Control: no-store. */
function expectEnvelope(answer: Answer, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  const body = errorResponseSchema.parse(JSON.parse(answer.text));
  expect(body.error.code).toBe(code);
  expect(answer.headers['x-request-id']).toBe(body.error.request_id);
  expect(answer.headers['cache-control']).toBe('no-store');
  return body;
}

async function expectError(response: APIResponse, status: number, code: string) {
  const text = await response.text();
  const body = expectEnvelope({ status: response.status(), headers: response.headers(), text }, status, code);
  expect(text).not.toContain(key);
  return body;
}

test('text.generate succeeds with the documented result shape', async ({ request }) => {
  const response = await request.post('/v1/text/generate', { headers: headers(), data: { input: 'Summarise: the sky is blue.' } });
  expect(response.status(), await response.text()).toBe(200);
  const body = textGenerateResponse.parse(await response.json());
  expect(body.operation).toBe('text.generate');
  expect(body.usage.charged_units).toBe(1);
  expect(body.usage.remaining_units).toBeGreaterThanOrEqual(0);
  expect(response.headers()['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
  expect(response.headers()['cache-control']).toBe('no-store');
});

test('code.generate succeeds with code and explanation', async ({ request }) => {
  const response = await request.post('/v1/code/generate', {
    headers: headers(),
    data: { input: 'function add(a, b) { return a + b }', language: 'javascript', requirements: ['explain it'] },
  });
  expect(response.status(), await response.text()).toBe(200);
  const body = codeGenerateResponse.parse(await response.json());
  expect(body.usage.charged_units).toBe(2);
  expect(typeof body.output.code).toBe('string');
  expect(typeof body.output.explanation).toBe('string');
});

test('401 without a valid key', async ({ request }) => {
  const response = await request.post('/v1/text/generate', {
    headers: headers({ Authorization: 'Bearer wgs_live_notarealkeynotarealkeynotarealkey00' }),
    data: { input: 'x' },
  });
  await expectError(response, 401, 'invalid_api_key');
});

// Next answers some request headers itself (RSC: 1 with a 307 to ?_rsc, X-Middleware-Prefetch: 1
// with 200 {}); on the API they are dropped, so the route answers as it would without them.
const FRAMEWORK_HEADERS: Record<string, string>[] = [
  { RSC: '1' },
  { RSC: '1', 'Next-Router-Prefetch': '1' },
  { 'X-Middleware-Prefetch': '1' },
  { 'Next-Action': 'abc123' },
  { 'X-Nextjs-Data': '1' },
  { Purpose: 'prefetch', 'Next-Router-State-Tree': '%5B%5D' },
];

test('headers Next acts on itself change nothing on /v1: the route authenticates and answers', async ({ request }) => {
  for (const extra of FRAMEWORK_HEADERS) {
    const noKey = await request.post('/v1/text/generate', {
      headers: { ...headers(extra), Authorization: '' },
      data: { input: 'x' },
      maxRedirects: 0,
    });
    await expectError(noKey, 401, 'invalid_api_key');
    await expectError(
      await request.get('/v1/jobs/job_abcdefghijklmnopqrstuvwxyz', { headers: extra, maxRedirects: 0 }),
      401,
      'invalid_api_key',
    );
    await expectError(await request.delete('/v1/nope', { headers: extra, maxRedirects: 0 }), 404, 'not_found');
    const paid = await request.post('/v1/text/generate', { headers: headers(extra), data: { input: 'Say hi.' }, maxRedirects: 0 });
    expect(paid.status(), `${JSON.stringify(extra)}: ${await paid.text()}`).toBe(200);
    expect(textGenerateResponse.parse(await paid.json()).usage.charged_units).toBe(1);
    expect(paid.headers()['cache-control']).toBe('no-store');
  }
});

test('404 for an unknown /v1 path, in the envelope', async ({ request }) => {
  const response = await request.post('/v1/does/not/exist', { headers: headers(), data: { input: 'x' } });
  await expectError(response, 404, 'not_found');
  await expectError(await request.get('/v1/nothing-here'), 404, 'not_found');
});

test('/v1 itself is the 404 envelope too', async ({ request }) => {
  await expectError(await request.get('/v1'), 404, 'not_found');
});

test('a trailing or repeated slash names the same route, answered in the envelope (no redirect)', async ({ request }) => {
  const sameRequest = { headers: headers(), data: { input: 'trailing slash' }, maxRedirects: 0 };
  const slashed = await request.post('/v1/text/generate/', sameRequest);
  expect(slashed.status(), await slashed.text()).toBe(200);
  expect(textGenerateResponse.parse(await slashed.json()).operation).toBe('text.generate');
  // Both spellings are one idempotency scope: the retry without the slash is a replay.
  const retried = await request.post('/v1/text/generate', sameRequest);
  expect(retried.headers()['idempotent-replayed']).toBe('true');
  expect(await retried.text()).toBe(await slashed.text());
  // Repeated slashes are merged before routing (no 308 either), so that is the same request too.
  const doubled = await request.post('/v1//text//generate', sameRequest);
  expect(doubled.status()).toBe(200);
  expect(doubled.headers()['idempotent-replayed']).toBe('true');
  await expectError(await request.get('/v1/text/generate/', { maxRedirects: 0 }), 405, 'method_not_allowed');
  await expectError(await request.get('/v1/nothing-here/', { maxRedirects: 0 }), 404, 'not_found');
});

/** A request exactly as written (method, target, Host), which fetch and Playwright would normalise. */
function raw(baseURL: string, method: string, target: string, extra: Record<string, string | string[]> = {}, body?: string) {
  const url = new URL(baseURL);
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: target, headers: extra }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => (text += chunk))
        .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a path whose percent-encoding does not decode is the 404 envelope, not a bare 500', async ({ baseURL }) => {
  for (const target of ['/v1/%zz', '/v1/%', '/v1/%E0%A4%A', '/v1/text/%zz?x=1']) {
    expectEnvelope(await raw(baseURL!, 'GET', target), 404, 'not_found');
  }
  const post = await raw(baseURL!, 'POST', '/v1/text/%zz', headers(), JSON.stringify({ input: 'x' }));
  expectEnvelope(post, 404, 'not_found');
});

test('methods Next does not route (TRACE, PROPFIND, ...) get the 405 envelope with Allow, or 404 off the map', async ({ baseURL }) => {
  for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'PURGE']) {
    const known = await raw(baseURL!, method, '/v1/text/generate', { Authorization: `Bearer ${key}` });
    expectEnvelope(known, 405, 'method_not_allowed');
    expect(known.headers['allow']).toBe('POST');
    expectEnvelope(await raw(baseURL!, method, '/v1/nothing-here'), 404, 'not_found');
  }
});

test('two Authorization headers are refused (401), not settled by their order', async ({ baseURL }) => {
  const other = cli<{ key: string }>('keys', 'create', '--package', 'starter').key;
  const body = JSON.stringify({ input: 'two keys' });
  for (const pair of [
    [`Bearer ${key}`, `Bearer ${other}`],
    [`Bearer ${key}`, `Bearer ${key}`],
  ]) {
    const response = await raw(baseURL!, 'POST', '/v1/text/generate', { ...headers(), Authorization: pair }, body);
    expectEnvelope(response, 401, 'invalid_api_key');
    expect(response.text).not.toContain(key);
  }
});

test('a repeated Content-Type is 415, not settled by its order', async ({ baseURL }) => {
  const response = await raw(
    baseURL!,
    'POST',
    '/v1/text/generate',
    { ...headers(), 'Content-Type': ['application/json', 'text/plain'] },
    JSON.stringify({ input: 'x' }),
  );
  expectEnvelope(response, 415, 'unsupported_media_type');
});

test('an absolute-form target is normalised too; off the API, unroutable methods are a plain 405', async ({ baseURL }) => {
  expectEnvelope(await raw(baseURL!, 'GET', `${baseURL}/v1/%zz`), 404, 'not_found');
  const absolute = await raw(baseURL!, 'POST', `${baseURL}//v1/text/generate`, headers(), JSON.stringify({ input: 'absolute form' }));
  expect(absolute.status, absolute.text).toBe(200);
  const page = await raw(baseURL!, 'TRACE', '/');
  expect(page.status).toBe(405);
  expect(page.headers['allow']).toBe('GET, HEAD, POST');
});

test('upload URLs name the host the client used (no PUBLIC_BASE_URL set)', async ({ baseURL }) => {
  const declared = { purpose: 'image_input', filename: 'a.png', mime_type: 'image/png', size_bytes: 10, sha256: 'a'.repeat(64) };
  const created = await raw(baseURL!, 'POST', '/v1/uploads', { ...headers(), Host: 'api.example.test:8443' }, JSON.stringify(declared));
  expect(created.status, created.text).toBe(201);
  expect(JSON.parse(created.text).upload_url).toMatch(/^http:\/\/api\.example\.test:8443\/uploads\/upl_/);
  const forwarded = await raw(
    baseURL!,
    'POST',
    '/v1/uploads',
    { ...headers(), 'X-Forwarded-Host': 'api.example.com', 'X-Forwarded-Proto': 'https' },
    JSON.stringify(declared),
  );
  expect(JSON.parse(forwarded.text).upload_url).toMatch(/^https:\/\/api\.example\.com\/uploads\/upl_/);
});

/** Bytes written to a fresh connection; the first response read back (status, headers, body). */
function rawBytes(baseURL: string, bytes: string) {
  const url = new URL(baseURL);
  return new Promise<Answer>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let data = Buffer.alloc(0);
    const parsed = () => {
      const at = data.indexOf('\r\n\r\n');
      if (at === -1) return undefined;
      const [statusLine, ...lines] = data.subarray(0, at).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const status = Number(statusLine!.split(' ')[1]);
      const length = headers['content-length'] ?? (status === 204 ? '0' : undefined);
      return { status, headers, body: data.subarray(at + 4), length: length === undefined ? undefined : Number(length) };
    };
    const done = (answer: NonNullable<ReturnType<typeof parsed>>) => {
      socket.destroy();
      resolve({ status: answer.status, headers: answer.headers, text: answer.body.subarray(0, answer.length).toString('utf8') });
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const answer = parsed();
      if (answer?.length !== undefined && answer.body.length >= answer.length) done(answer);
    });
    socket.on('end', () => {
      const answer = parsed();
      if (answer) done(answer);
      else reject(new Error(`no response: ${JSON.stringify(data.toString('latin1'))}`));
    });
    socket.on('error', reject);
    socket.write(bytes);
  });
}

test('a request offering a protocol upgrade (curl --http2: Upgrade: h2c) is served as HTTP/1.1', async ({ baseURL }) => {
  const upgrade = { Connection: 'Upgrade, HTTP2-Settings', Upgrade: 'h2c', 'HTTP2-Settings': 'AAMAAABkAARAAAAAAAIAAAAA' };
  const generated = await raw(baseURL!, 'POST', '/v1/text/generate', { ...headers(), ...upgrade }, JSON.stringify({ input: 'over h2c?' }));
  expect(generated.status, generated.text).toBe(200);
  expect(JSON.parse(generated.text).object).toBe('generation');
  const websocket = await raw(baseURL!, 'GET', '/v1/jobs/job_nothing', { Connection: 'Upgrade', Upgrade: 'websocket' });
  expectEnvelope(websocket, 401, 'invalid_api_key');
});

test("what Node's parser refuses, and targets that are no path, are answered in the envelope", async ({ baseURL }) => {
  const host = new URL(baseURL!).host;
  const options = await rawBytes(baseURL!, `OPTIONS * HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  expect(options.status).toBe(204);
  expect(options.headers['allow']).toBe('GET, HEAD, POST, PUT');
  expect(options.headers['x-request-id']).toMatch(/^req_/);
  expectEnvelope(await rawBytes(baseURL!, `GET * HTTP/1.1\r\nHost: ${host}\r\n\r\n`), 400, 'invalid_request');
  expectEnvelope(
    await rawBytes(baseURL!, `GET /v1/openapi.json HTTP/1.1\r\nHost: ${host}\r\nHost: other.example\r\n\r\n`),
    400,
    'invalid_request',
  );
  expectEnvelope(await rawBytes(baseURL!, `GET /v1/openapi.json HTTP/1.1\r\n\r\n`), 400, 'invalid_request');
  expectEnvelope(
    await rawBytes(baseURL!, `GET /v1/openapi.json HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    400,
    'invalid_request',
  );
  expectEnvelope(
    await rawBytes(baseURL!, `POST /v1/text/generate HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`),
    400,
    'invalid_request',
  );
  // A body in a coding Node does not undo would be read as if it had none (outside audit).
  const gzipped = expectEnvelope(
    await rawBytes(
      baseURL!,
      `POST /v1/text/generate HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nIdempotency-Key: ${idem()}\r\nTransfer-Encoding: gzip, chunked\r\n\r\ne\r\n{"input":"hi"}\r\n0\r\n\r\n`,
    ),
    400,
    'invalid_request',
  );
  expect(gzipped.error.message).toContain('The transfer coding gzip is not supported');
  expectEnvelope(await rawBytes(baseURL!, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`), 405, 'method_not_allowed');
  // HTTP/1.0 needs no Host.
  expect((await rawBytes(baseURL!, 'GET /v1/openapi.json HTTP/1.0\r\n\r\n')).status).toBe(200);
});

test('HEAD /v1/openapi.json answers like GET, without a body', async ({ baseURL }) => {
  const head = await raw(baseURL!, 'HEAD', '/v1/openapi.json');
  expect(head.status).toBe(200);
  expect(head.text).toBe('');
  expect(head.headers['cache-control']).toBe('no-store');
});

test('405 with Allow for a wrong method on a known path', async ({ request }) => {
  const response = await request.get('/v1/text/generate', { headers: { Authorization: `Bearer ${key}` } });
  await expectError(response, 405, 'method_not_allowed');
  expect(response.headers()['allow']).toBe('POST');
});

test('415 for a non-JSON content type', async ({ request }) => {
  const response = await request.post('/v1/text/generate', {
    headers: headers({ 'Content-Type': 'text/plain' }),
    data: JSON.stringify({ input: 'x' }),
  });
  await expectError(response, 415, 'unsupported_media_type');
});

test('400 when the Idempotency-Key is missing', async ({ request }) => {
  const { 'Idempotency-Key': _omit, ...rest } = headers();
  const response = await request.post('/v1/text/generate', { headers: rest, data: { input: 'x' } });
  await expectError(response, 400, 'missing_idempotency_key');
});

test('422 for an unknown field', async ({ request }) => {
  const response = await request.post('/v1/text/generate', { headers: headers(), data: { input: 'x', temperature: 2 } });
  const body = await expectError(response, 422, 'validation_error');
  expect(JSON.stringify(body.error.details)).toContain('temperature');
});

test('a retry with the same Idempotency-Key replays the stored response', async ({ request }) => {
  const sent = headers();
  const first = await request.post('/v1/text/generate', { headers: sent, data: { input: 'replay me' } });
  expect(first.status()).toBe(200);
  const second = await request.post('/v1/text/generate', { headers: sent, data: { input: 'replay me' } });
  expect(second.status()).toBe(200);
  expect(second.headers()['idempotent-replayed']).toBe('true');
  expect(first.headers()['idempotent-replayed']).toBeUndefined();
  expect(await second.text()).toBe(await first.text());
  expect(second.headers()['x-request-id']).not.toBe(first.headers()['x-request-id']);
});

test('413 for a 2 MiB body', async ({ request }) => {
  const big = Buffer.from(JSON.stringify({ input: 'a'.repeat(2 * 1024 * 1024) }));
  const response = await request.post('/v1/text/generate', { headers: headers(), data: big });
  await expectError(response, 413, 'payload_too_large');
});

test('413 for a streamed (chunked) body without Content-Length', async ({ baseURL }) => {
  const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"input":"'));
    },
    pull(controller) {
      sent += chunk.byteLength;
      if (sent > 3 * 1024 * 1024) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const response = await fetch(`${baseURL}/v1/text/generate`, {
    method: 'POST',
    headers: headers(),
    body,
    // @ts-expect-error Node's fetch needs duplex for stream bodies
    duplex: 'half',
  }).catch((error: unknown) => error);
  // The server may answer 413 before the upload ends, or close the connection once it has answered.
  if (response instanceof Response) {
    expect(response.status).toBe(413);
    const text = await response.text();
    expect(errorResponseSchema.parse(JSON.parse(text)).error.code).toBe('payload_too_large');
  } else {
    throw new Error(`no response: ${String(response)}`);
  }
});

test('every /v1 response carries X-Request-Id and Cache-Control: no-store, the OpenAPI document included', async ({ request }) => {
  const document = await request.get('/v1/openapi.json');
  expect(document.status()).toBe(200);
  expect(document.headers()['x-request-id'] ?? '(no X-Request-Id header)').toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
  expect(document.headers()['cache-control']).toBe('no-store');
  expect((await document.json()).openapi).toBe('3.1.0');
});

test("/v1 answers carry no Vary of Next's router (the API's answers do not depend on its headers)", async ({ request }) => {
  const answers = [
    await request.get('/v1/openapi.json'),
    await request.post('/v1/text/generate', { headers: headers(), data: { input: 'Vary?' } }),
    await request.post('/v1/text/generate', { headers: headers(), data: { input: '' } }),
    await request.get('/v1/no-such-route'),
    await request.get('/v1/jobs/job_nosuchjob0000000000000000', { headers: { Authorization: `Bearer ${key}` } }),
  ];
  for (const answer of answers) expect(answer.headers()['vary'], `${answer.url()} ${answer.status()}`).toBeUndefined();
  // The dashboard's pages keep it: Next's client navigation relies on it.
  expect((await request.get('/signin')).headers()['vary']).toContain('rsc');
});

test('a wrong method on /v1/openapi.json is the 405 envelope with Allow', async ({ request }) => {
  const wrongMethod = await request.post('/v1/openapi.json', { headers: headers(), data: {} });
  await expectError(wrongMethod, 405, 'method_not_allowed');
  expect(wrongMethod.headers()['allow']).toBe('GET, HEAD');
});

test('/v1 has no health route: that lives at /healthz, outside the interface', async ({ request }) => {
  await expectError(await request.get('/v1/health'), 404, 'not_found');
  expect((await request.get('/healthz')).status()).toBe(200);
});
