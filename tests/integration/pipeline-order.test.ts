import { afterAll, describe, expect, it } from 'vitest';
import { readIdempotencyKey } from '@/server/http/headers';
import { resetConfigForTests } from '@/server/config';
import { codeGenerateResponse, textGenerateResponse } from '@/server/contract/generation';
import { disconnectDb, getPool, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { revokeKey } from '@/server/domain/keys/manage-keys';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits, type CallResult } from '../helpers/api';

// CONTRACT.md §3: the first failing check wins, in this order:
// 1 401 key, 2 403 scope, 3 415 content type, 4 400 idempotency key, 5 413 size, 6 400 JSON,
// 7 422 schema/package, 8 idempotency (409 / replay / 422 reused), 9 429, 10 402, 11 provider.

afterAll(() => disconnectDb());

const TEXT = '/v1/text/generate';
const CODE = '/v1/code/generate';
const BIG = JSON.stringify({ input: 'a'.repeat(1024 * 1024 + 10) });
const BIG_INVALID = `{"input": "${'a'.repeat(1024 * 1024 + 10)}`; // too big and not JSON

function expectSuccessHeaders(result: CallResult) {
  expect(result.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
  expect(result.headers.get('cache-control')).toBe('no-store');
}

const textOnly = () => createTestKey({ operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } } });

describe('step 1: 401 invalid_api_key comes before everything else', () => {
  it('refuses missing, malformed, unknown keys even when every other check would fail too', async () => {
    const { key } = await createTestKey();
    const unknown = `wgs_live_${'Z'.repeat(40)}`;
    for (const authorization of [
      undefined,
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer ',
      `Token ${key}`,
      `Bearer ${key}x!`,
      `Bearer sk_live_${'a'.repeat(40)}`,
      `Bearer ${unknown}`,
      `Bearer ${key} extra`,
    ]) {
      const result = await call(api, TEXT, undefined, {
        headers: authorization === undefined ? {} : { Authorization: authorization },
        contentType: 'text/plain',
        idempotencyKey: null,
        rawBody: BIG_INVALID,
        method: 'POST',
      });
      expectEnvelope(result, 401, 'invalid_api_key');
      // RFC 6750 §3.1: error="invalid_token" only when a Bearer token was sent.
      const sentToken = /^Bearer +\S+ *$/i.test(authorization ?? '');
      expect(result.headers.get('www-authenticate')).toBe(sentToken ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"');
      expect(result.text).not.toContain(key);
      expect(result.text).not.toContain(unknown);
    }
  });

  it('a revoked key is refused within a second (key cache TTL), never echoed', async () => {
    const { key, id } = await createTestKey();
    const ok = await call(api, TEXT, { input: 'hello' }, { key });
    expect(ok.status).toBe(200);
    await revokeKey(getSqlDb(), CLI_ACTOR, id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const refused = await call(api, TEXT, { input: 'hello' }, { key });
    expectEnvelope(refused, 401, 'invalid_api_key');
    expect(refused.text).not.toContain(key);
  });

  it('an expired key is refused within a second', async () => {
    const { key, id } = await createTestKey();
    expect((await call(api, TEXT, { input: 'hello' }, { key })).status).toBe(200);
    await getPool().query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expectEnvelope(await call(api, TEXT, { input: 'hello' }, { key }), 401, 'invalid_api_key');
  });

  it('a 401 charges nothing and never reaches the rate limiter', async () => {
    const { key, id } = await createTestKey({ quota: 5, rpm: 1 });
    const revokedOther = `Bearer ${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    for (let i = 0; i < 3; i++) {
      expectEnvelope(await call(api, TEXT, { input: 'x' }, { headers: { Authorization: revokedOther } }), 401, 'invalid_api_key');
    }
    expect((await call(api, TEXT, { input: 'x' }, { key })).status).toBe(200);
    expect(await remainingUnits(id)).toBe(4);
  });
});

describe('step 2: 403 forbidden comes before content type, idempotency, size, JSON and schema', () => {
  it('a wrong-scope key with a malformed body gets 403, not 400', async () => {
    const { key } = await textOnly();
    expectEnvelope(await call(api, CODE, undefined, { key, rawBody: '{"input": ', method: 'POST' }), 403, 'forbidden');
  });

  it('a wrong-scope key gets 403 whatever else is wrong', async () => {
    const { key } = await textOnly();
    const cases: Parameters<typeof call>[3][] = [
      { key, contentType: 'text/plain', rawBody: '{}', method: 'POST' },
      { key, contentType: null, idempotencyKey: null, rawBody: BIG, method: 'POST' },
      { key, idempotencyKey: 'bad key!', rawBody: BIG_INVALID, method: 'POST' },
      { key, rawBody: JSON.stringify({ input: '', unknown: 1 }), method: 'POST' },
      { key, rawBody: '{"input":"a","input":"b"}', method: 'POST' },
    ];
    for (const options of cases) expectEnvelope(await call(api, CODE, undefined, options), 403, 'forbidden');
  });
});

describe('step 3: 415 comes before the idempotency key, size and JSON', () => {
  it.each([
    ['no Content-Type', null],
    ['text/plain', 'text/plain'],
    ['charset=latin1', 'application/json; charset=latin1'],
  ])('%s with no Idempotency-Key and an oversized invalid body -> 415', async (_name, contentType) => {
    const { key } = await createTestKey();
    const result = await call(api, TEXT, undefined, {
      key,
      contentType,
      idempotencyKey: null,
      rawBody: BIG_INVALID,
      method: 'POST',
    });
    expectEnvelope(result, 415, 'unsupported_media_type');
  });
});

describe('step 4: 400 idempotency key comes before size and JSON', () => {
  it('missing key with an oversized body -> 400 missing_idempotency_key', async () => {
    const { key } = await createTestKey();
    expectEnvelope(
      await call(api, TEXT, undefined, { key, idempotencyKey: null, rawBody: BIG, method: 'POST' }),
      400,
      'missing_idempotency_key',
    );
  });

  it('malformed key with an invalid body -> 400 invalid_idempotency_key', async () => {
    const { key } = await createTestKey();
    expectEnvelope(
      await call(api, TEXT, undefined, { key, idempotencyKey: 'short', rawBody: '[1,2', method: 'POST' }),
      400,
      'invalid_idempotency_key',
    );
  });
});

describe('step 5: 413 comes before JSON parsing', () => {
  it('an oversized body that is not JSON -> 413, not 400', async () => {
    const { key } = await createTestKey();
    expectEnvelope(await call(api, TEXT, undefined, { key, rawBody: BIG_INVALID, method: 'POST' }), 413, 'payload_too_large');
  });
});

describe('step 6: 400 JSON comes before the schema', () => {
  it('duplicate members plus an unknown field -> 400 invalid_request', async () => {
    const { key } = await createTestKey();
    expectEnvelope(
      await call(api, TEXT, undefined, { key, rawBody: '{"input":"a","input":"b","nope":1}', method: 'POST' }),
      400,
      'invalid_request',
    );
  });
});

describe('step 7: 422 comes before idempotency, rate limit and quota', () => {
  it('an invalid body under an already used Idempotency-Key is 422 validation_error, not a replay or reuse', async () => {
    const { key } = await createTestKey();
    const idempotencyKey = newIdempotencyKey();
    expect((await call(api, TEXT, { input: 'hello' }, { key, idempotencyKey })).status).toBe(200);
    const result = await call(api, TEXT, { input: 'hello', extra: true }, { key, idempotencyKey });
    expectEnvelope(result, 422, 'validation_error');
    expect(result.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a package-setting violation is 422 not_allowed_by_package, and 422 neither counts against the rate nor charges', async () => {
    const { key, id } = await createTestKey({
      quota: 3,
      rpm: 1,
      operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } },
    });
    for (let i = 0; i < 3; i++) {
      const result = await call(api, TEXT, { input: 'hello', output_format: 'json' }, { key });
      expectEnvelope(result, 422, 'validation_error');
      expect(result.json.error.details.issues[0]).toMatchObject({ path: 'output_format', code: 'not_allowed_by_package' });
    }
    expect(await remainingUnits(id)).toBe(3);
    expect((await call(api, TEXT, { input: 'hello' }, { key })).status).toBe(200);
  });

  it('422 beats an exhausted quota and an exhausted rate', async () => {
    const { key } = await createTestKey({ quota: 0, rpm: 1 });
    expectEnvelope(await call(api, TEXT, { input: 'a' }, { key }), 402, 'quota_exhausted'); // uses the one request
    expectEnvelope(await call(api, TEXT, { input: '' }, { key }), 422, 'validation_error');
  });
});

describe('step 8: idempotency comes before the rate limit and the quota', () => {
  it('a replay and a reuse are answered even when the rate is exhausted', async () => {
    const { key } = await createTestKey({ rpm: 1 });
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'hello' }, { key, idempotencyKey });
    expect(first.status).toBe(200);
    expectEnvelope(await call(api, TEXT, { input: 'other' }, { key }), 429, 'rate_limited');
    const replay = await call(api, TEXT, { input: 'hello' }, { key, idempotencyKey });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectEnvelope(await call(api, TEXT, { input: 'different' }, { key, idempotencyKey }), 422, 'idempotency_key_reused');
  });

  it('a replay is answered even when the quota is spent', async () => {
    const { key, id } = await createTestKey({ quota: 1 });
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'hello' }, { key, idempotencyKey });
    expect(first.status).toBe(200);
    expect(await remainingUnits(id)).toBe(0);
    const replay = await call(api, TEXT, { input: 'hello' }, { key, idempotencyKey });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expectEnvelope(await call(api, TEXT, { input: 'hello' }, { key }), 402, 'quota_exhausted');
  });
});

describe('step 9 before 10: 429 comes before 402', () => {
  it('with no units and no requests left the answer is 429, not 402', async () => {
    const { key } = await createTestKey({ quota: 0, rpm: 1 });
    expectEnvelope(await call(api, TEXT, { input: 'a' }, { key }), 402, 'quota_exhausted');
    expectEnvelope(await call(api, TEXT, { input: 'a' }, { key }), 429, 'rate_limited');
  });
});

describe('every route: success, validation, authentication, authorization', () => {
  it('text.generate and code.generate succeed with exact result shapes', async () => {
    const { key, id } = await createTestKey({ quota: 10 });
    const text = await call(api, TEXT, { input: 'Tell me about the sea.', context: 'Short answers.', output_format: 'markdown' }, { key });
    expect(text.status, text.text).toBe(200);
    expectSuccessHeaders(text);
    const textBody = textGenerateResponse.parse(text.json);
    expect(textBody.usage).toEqual({ charged_units: 1, remaining_units: 9 });
    const code = await call(
      api,
      CODE,
      { input: 'function f(x) { return x * 2 }', language: 'javascript', requirements: ['add types'] },
      { key },
    );
    expect(code.status, code.text).toBe(200);
    expectSuccessHeaders(code);
    const codeBody = codeGenerateResponse.parse(code.json);
    expect(codeBody.usage).toEqual({ charged_units: 2, remaining_units: 7 });
    expect(await remainingUnits(id)).toBe(7);
    expect(text.text).not.toContain(key);
    expect(code.text).not.toContain(key);
  });

  it('validation, authentication and authorization on code.generate', async () => {
    const { key } = await createTestKey();
    expectEnvelope(await call(api, CODE, { input: 'x', requirements: 'not-a-list' }, { key }), 422, 'validation_error');
    expectEnvelope(await call(api, CODE, { input: 'x' }, {}), 401, 'invalid_api_key');
    const { key: textKey } = await textOnly();
    expectEnvelope(await call(api, CODE, { input: 'x' }, { key: textKey }), 403, 'forbidden');
    const { key: codeKey } = await createTestKey({ operations: { 'code.generate': { engine: 'local', units: 1 } } });
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: codeKey }), 403, 'forbidden');
  });
});

describe('unknown paths and wrong methods', () => {
  it('unknown /v1 paths are 404 not_found for every method', async () => {
    const { key } = await createTestKey();
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const result = await call(api, '/v1/nope/nothing', method === 'GET' ? undefined : { input: 'x' }, {
        key,
        method,
      });
      expectEnvelope(result, 404, 'not_found');
    }
    expectEnvelope(await call(api, '/v1', undefined, { key, method: 'GET' }), 404, 'not_found'); // /v1 itself
    const head = await api(new Request('http://127.0.0.1/v1/nope', { method: 'HEAD' }));
    expect(head.status).toBe(404);
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(head.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
  });

  it('wrong methods on a known path are 405 method_not_allowed with Allow: POST', async () => {
    const { key } = await createTestKey();
    for (const path of [TEXT, CODE]) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
        const result = await call(api, path, method === 'GET' ? undefined : { input: 'x' }, { key, method });
        expectEnvelope(result, 405, 'method_not_allowed');
        expect(result.headers.get('allow')).toBe('POST');
      }
      const head = await api(new Request(`http://127.0.0.1${path}`, { method: 'HEAD' }));
      expect(head.status).toBe(405);
      expect(head.headers.get('allow')).toBe('POST');
    }
  });

  it('and on /openai/v1, in its error format, with Allow too', async () => {
    const { key } = await createTestKey();
    const paths = [
      ['/openai/v1/chat/completions', 'POST'],
      ['/openai/v1/models', 'GET, HEAD'],
    ] as const;
    for (const [path, allow] of paths) {
      const response = await api(new Request(`http://127.0.0.1${path}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }));
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow'), path).toBe(allow);
      expect(await response.json(), path).toMatchObject({ error: { type: 'invalid_request_error', code: 'method_not_allowed' } });
    }
  });
});

describe('every /v1 response carries X-Request-Id and Cache-Control: no-store', () => {
  // CONTRACT.md §1 says every response; the public OpenAPI document is a /v1 response too.
  it('GET /v1/openapi.json', async () => {
    const response = await api(new Request('http://127.0.0.1/v1/openapi.json'));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id') ?? '(no X-Request-Id header)').toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
    expect(response.headers.get('cache-control') ?? '(no Cache-Control header)').toBe('no-store');
  });

  it('the OpenAPI document lists exactly the operations the app serves: each one answered, every other method 405', async () => {
    const document = (await (await api(new Request('http://127.0.0.1/v1/openapi.json'))).json()) as {
      paths: Record<string, Record<string, object>>;
    };
    const listed = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m} ${path}`));
    expect(listed.length).toBeGreaterThanOrEqual(12);
    for (const [path, operations] of Object.entries(document.paths)) {
      const concrete = `http://127.0.0.1${path.replace('{jobId}', 'job_missing').replace('{uploadId}', 'upl_missing')}`;
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const answer = await api(new Request(concrete, { method: method.toUpperCase() }));
        await answer.arrayBuffer();
        if (method in operations)
          expect([200, 401], `${method} ${path}`).toContain(answer.status); // public, or asks for a key
        else expect(answer.status, `${method} ${path}`).toBe(405);
      }
    }
  });

  it('the document says what 422 details hold and which fields the package settles', async () => {
    type Schema = { description?: string; pattern?: string; properties?: Record<string, Schema>; items?: Schema };
    const document = (await (await api(new Request('http://127.0.0.1/v1/openapi.json'))).json()) as {
      components: { schemas: Record<string, Schema> };
    };
    const schemas = document.components.schemas;
    const issue = schemas.Error!.properties!.error!.properties!.details!.properties!.issues!.items!;
    expect(Object.keys(issue.properties!)).toEqual(['path', 'code', 'message']);
    expect(issue.properties!.code!.description).toContain('not_allowed_by_package');
    const settled: [string, string][] = [
      ['TextGenerateRequest', 'output_format'],
      ['ImagesGenerateRequest', 'style'],
      ['ImagesGenerateRequest', 'output_format'],
      ['AudioSpeechRequest', 'voice'],
      ['AudioSpeechRequest', 'language'],
      ['AudioSpeechRequest', 'output_format'],
      ['AudioTranscribeRequest', 'language'],
      ['AudioTranscribeRequest', 'timestamps'],
    ];
    for (const [name, field] of settled)
      expect(schemas[name]!.properties![field]!.description, `${name}.${field}`).toContain('not_allowed_by_package');
    // The NUL rule of every text field, as a pattern generated clients can check.
    const nul = new RegExp(schemas.TextGenerateRequest!.properties!.input!.pattern!);
    expect(nul.test('plain text ✓')).toBe(true);
    expect(nul.test('a\u0000b')).toBe(false);
  });

  it("the document names the origin it was fetched from, and its Idempotency-Key pattern is the server's rule", async () => {
    type Doc = {
      servers: { url: string }[];
      paths: Record<string, { post?: { parameters: { name: string; schema: { pattern: string } }[] } }>;
    };
    const fetched = async (host?: string) =>
      (await (await api(new Request('http://127.0.0.1/v1/openapi.json', { headers: host ? { host } : {} }))).json()) as Doc;
    const configured = process.env.PUBLIC_BASE_URL;
    let document: Doc;
    try {
      process.env.PUBLIC_BASE_URL = 'https://api.example.com';
      resetConfigForTests();
      expect((await fetched('other.example.test')).servers).toEqual([{ url: 'https://api.example.com' }]);
      delete process.env.PUBLIC_BASE_URL;
      resetConfigForTests();
      expect((await fetched()).servers).toEqual([{ url: 'http://127.0.0.1' }]);
      document = await fetched('api.example.test:8443');
      expect(document.servers).toEqual([{ url: 'http://api.example.test:8443' }]);
    } finally {
      if (configured === undefined) delete process.env.PUBLIC_BASE_URL;
      else process.env.PUBLIC_BASE_URL = configured;
      resetConfigForTests();
    }
    const parameter = document.paths['/v1/text/generate']!.post!.parameters.find((p) => p.name === 'Idempotency-Key')!;
    const pattern = new RegExp(parameter.schema.pattern, 'u');
    const accepted = (value: string) => {
      try {
        readIdempotencyKey(new Request('http://127.0.0.1/', { headers: { 'Idempotency-Key': value } }));
        return true;
      } catch {
        return false;
      }
    };
    for (const value of [
      'abc12345',
      '"abc12345"',
      'a'.repeat(128),
      'A-Z_a.z~0:9',
      'short',
      'a'.repeat(129),
      'has space',
      'abcd/efgh',
      '"abc12345',
      '"short"',
      '',
    ]) {
      expect(pattern.test(value), value).toBe(accepted(value));
    }
  });

  it('HEAD /v1/openapi.json answers as GET does (the server drops the body)', async () => {
    const response = await api(new Request('http://127.0.0.1/v1/openapi.json', { method: 'HEAD' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('wrong methods on /v1/openapi.json are the 405 envelope with Allow (the route answers every method)', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const response = await api(new Request('http://127.0.0.1/v1/openapi.json', { method }));
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expect(response.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
    }
  });
});
