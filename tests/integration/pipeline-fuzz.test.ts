import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponseSchema } from '@/server/contract/errors';
import { codeGenerateResponse, textGenerateResponse } from '@/server/contract/generation';
import { disconnectDb } from '@/server/db/client';
import { ERROR_CATALOG, type ErrorCode } from '@/server/domain/errors';
import { api, call, createTestKey, type CallResult, type TestKey } from '../helpers/api';

// Thousands of malformed bodies and headers thrown at the pipeline: never a 500, always the
// envelope (or a result that parses with the contract's schema). FUZZ_RUNS sets the total.

const TOTAL = Number(process.env.FUZZ_RUNS ?? 1500);
const runs = (share: number) => Math.max(10, Math.round(TOTAL * share));

afterAll(() => disconnectDb());

let k: TestKey;
let other: TestKey;
beforeAll(async () => {
  k = await createTestKey({ quota: 10_000_000 });
  other = await createTestKey({
    quota: 10_000_000,
    operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } },
  });
});

const routes = [
  { handler: api, path: '/v1/text/generate', schema: textGenerateResponse },
  { handler: api, path: '/v1/code/generate', schema: codeGenerateResponse },
] as const;

const ALLOWED = new Set([200, 400, 401, 402, 403, 409, 413, 415, 422, 429]);

function check(result: CallResult, route: (typeof routes)[number], keys: string[]): void {
  const requestId = result.headers.get('x-request-id') ?? '';
  const context = () => `status ${result.status}: ${result.text.slice(0, 400)}`;
  if (!ALLOWED.has(result.status)) throw new Error(`unexpected ${context()}`);
  if (!/^req_[A-Za-z0-9_-]{24,}$/.test(requestId)) throw new Error(`bad X-Request-Id ${requestId}`);
  if (result.headers.get('cache-control') !== 'no-store') throw new Error('no Cache-Control: no-store');
  for (const key of keys) if (result.text.includes(key)) throw new Error('the API key was echoed');
  if (result.status === 200) {
    route.schema.parse(result.json);
    return;
  }
  const parsed = errorResponseSchema.safeParse(result.json);
  if (!parsed.success) throw new Error(`not the envelope: ${context()}`);
  const { code, request_id: bodyId } = parsed.data.error;
  if (bodyId !== requestId) throw new Error('error.request_id differs from X-Request-Id');
  if (ERROR_CATALOG[code as ErrorCode].status !== result.status) throw new Error(`code ${code} with ${context()}`);
}

// Printable ASCII and a little Latin-1: every value Headers accepts, many of them wrong.
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xff }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
  )
  .map((c) => String.fromCharCode(c));
const headerValue = fc.string({ unit: headerChar, maxLength: 160 });

const route = fc.constantFrom(...routes);

const jsonText = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '[]',
    '{}',
    'null',
    '{"input":',
    '{"input":"x"',
    '{"input":"x"}}',
    '{"input":"x",}',
    '\ufeff{"input":"x"}',
    '{"input":"x","input":"x"}',
    '{"input":"x","\\u0069nput":"y"}',
    '{"__proto__":{"input":"x"}}',
    '{"input":"\\ud800"}',
    '{"input":"\\u0000"}',
  ),
);

const fieldValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constant(''),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 35 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.constantFrom('text', 'markdown', 'json', 'TEXT', 'html'),
);

const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('input', 'context', 'output_format', 'language', 'requirements') },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'Input', 'input ', 'model', 'temperature') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const nearValidBody = fc.dictionary(fieldName, fieldValue, { maxKeys: 5 }).map((object) => {
  // Build the text by hand so __proto__ stays an own member, as a client would send it.
  return `{${Object.keys(object)
    .map((name) => `${JSON.stringify(name)}:${JSON.stringify(object[name]) ?? 'null'}`)
    .join(',')}}`;
});

const mutatedBytes = fc
  .tuple(
    fc.constantFrom(
      '{"input":"hello","context":"ctx"}',
      '{"input":"let x","language":"ts","requirements":["a","b"]}',
      '{"input":"😀 ünï","output_format":"json"}',
    ),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'delete')), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([text, edits]) => {
    const bytes = [...Buffer.from(text)];
    for (const [at, value, kind] of edits) {
      const i = at % (bytes.length + 1);
      if (kind === 'set' && i < bytes.length) bytes[i] = value;
      else if (kind === 'insert') bytes.splice(i, 0, value);
      else if (kind === 'delete') bytes.splice(i, 1);
    }
    return new Uint8Array(bytes);
  });

describe('fuzzing the /v1 pipeline: never a 500, always the envelope', () => {
  it('arbitrary body text', async () => {
    await fc.assert(
      fc.asyncProperty(route, jsonText, async (r, body) => {
        check(await call(r.handler, r.path, undefined, { key: k.key, rawBody: body, method: 'POST' }), r, [k.key]);
      }),
      { numRuns: runs(0.3) },
    );
  });

  it('near-valid objects: wrong types, unknown and prototype-ish members', async () => {
    await fc.assert(
      fc.asyncProperty(route, nearValidBody, async (r, body) => {
        const result = await call(r.handler, r.path, undefined, { key: k.key, rawBody: body, method: 'POST' });
        check(result, r, [k.key]);
        if (![200, 422].includes(result.status)) throw new Error(`a JSON object without duplicates got ${result.status}: ${result.text}`);
      }),
      { numRuns: runs(0.25) },
    );
    expect(({} as Record<string, unknown>).input).toBeUndefined();
  });

  it('mutated bytes of valid bodies (invalid UTF-8, broken syntax)', async () => {
    await fc.assert(
      fc.asyncProperty(route, mutatedBytes, async (r, bytes) => {
        const result = await call(r.handler, r.path, undefined, { key: k.key, rawBody: bytes, method: 'POST' });
        check(result, r, [k.key]);
        if (![200, 400, 422].includes(result.status)) throw new Error(`mutated body got ${result.status}: ${result.text}`);
      }),
      { numRuns: runs(0.2) },
    );
  });

  it('arbitrary Authorization, Content-Type and Idempotency-Key headers', async () => {
    const authorization = fc.oneof(
      fc.constant(`Bearer ${k.key}`),
      fc.constant(`Bearer ${other.key}`),
      fc.constant(`bearer  ${k.key}`),
      headerValue,
      headerValue.map((v) => `Bearer ${v}`),
      headerValue.map((v) => `Bearer ${k.key}${v}`),
    );
    const contentType = fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON; Charset=UTF-8',
        'text/plain',
        'application/json; charset=latin1',
        'application/json;charset="utf-8"',
        'multipart/form-data',
      ),
      headerValue,
    );
    const idempotencyKey = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.~:'.split('')), minLength: 6, maxLength: 130 }),
      fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.~:'.split('')), minLength: 8, maxLength: 128 }).map((v) => `"${v}"`),
      headerValue,
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.option(authorization, { nil: undefined }),
        fc.option(contentType, { nil: undefined }),
        fc.option(idempotencyKey, { nil: undefined }),
        fc.oneof(fc.constant('{"input":"fuzz"}'), jsonText),
        async (r, auth, type, idem, body) => {
          const headers: Record<string, string> = {};
          if (auth !== undefined) headers.Authorization = auth;
          if (type !== undefined) headers['Content-Type'] = type;
          if (idem !== undefined) headers['Idempotency-Key'] = idem;
          // Unique-ish keys collide rarely; a collision is a legitimate replay or 422 reuse.
          const result = await call(r.handler, r.path, undefined, {
            rawBody: body,
            method: 'POST',
            contentType: null,
            idempotencyKey: null,
            headers,
          });
          check(result, r, [k.key, other.key]);
        },
      ),
      { numRuns: runs(0.25) },
    );
  });
});
