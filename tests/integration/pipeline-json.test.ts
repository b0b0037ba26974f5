import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeGenerateResponse, textGenerateResponse } from '@/server/contract/generation';
import { disconnectDb } from '@/server/db/client';
import { api, call, createTestKey, expectEnvelope, remainingUnits, type TestKey } from '../helpers/api';

// Strict JSON (CONTRACT.md §1): Content-Type, 1 MiB limit (streamed), UTF-8, one object,
// no repeated member names, unknown fields 422, lengths in code points, enums and limits.

afterAll(() => disconnectDb());

const TEXT = '/v1/text/generate';
const CODE = '/v1/code/generate';
const MiB = 1024 * 1024;
const EMOJI = '😀'; // one code point, two UTF-16 units, four UTF-8 bytes

let k: TestKey;
beforeAll(async () => {
  k = await createTestKey({ quota: 1_000_000 });
});

const text = (body: unknown, options: Parameters<typeof call>[3] = {}) => call(api, TEXT, body, { key: k.key, ...options });
const code = (body: unknown, options: Parameters<typeof call>[3] = {}) => call(api, CODE, body, { key: k.key, ...options });
const raw = (rawBody: BodyInit, options: Parameters<typeof call>[3] = {}) =>
  call(api, TEXT, undefined, { key: k.key, rawBody, method: 'POST', ...options });

function expectIssue(result: Awaited<ReturnType<typeof call>>, path: string, issueCode?: string) {
  expectEnvelope(result, 422, 'validation_error');
  const issues = result.json.error.details.issues as { path: string; code: string; message: string }[];
  expect(
    issues.map((i) => i.path),
    result.text,
  ).toContain(path);
  if (issueCode) expect(issues.find((i) => i.path === path)?.code, result.text).toBe(issueCode);
}

describe('Content-Type', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON; Charset=UTF-8'])('accepts %j', async (contentType) => {
    const result = await text({ input: 'hi' }, { contentType });
    expect(result.status, result.text).toBe(200);
    textGenerateResponse.parse(result.json);
  });

  it.each([
    ['none', null],
    ['text/plain', 'text/plain'],
    ['charset=latin1', 'application/json; charset=latin1'],
    ['form', 'application/x-www-form-urlencoded'],
    ['json-ish', 'application/jsonx'],
  ])('refuses %s with 415', async (_name, contentType) => {
    expectEnvelope(await text({ input: 'hi' }, { contentType }), 415, 'unsupported_media_type');
  });
});

describe('size: more than 1 MiB is 413', () => {
  it('a body of exactly 1 MiB is read (422 for its length), one byte more is 413', async () => {
    const prefix = '{"input":"';
    const exact = `${prefix}${'a'.repeat(MiB - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(exact)).toBe(MiB);
    expectIssue(await raw(exact), 'input', 'too_big');
    const over = `${prefix}${'a'.repeat(MiB - prefix.length - 1)}"}`;
    expectEnvelope(await raw(over), 413, 'payload_too_large');
  });

  it('a declared Content-Length above 1 MiB is 413', async () => {
    const body = JSON.stringify({ input: 'a'.repeat(MiB + 100) });
    const result = await raw(body, { headers: { 'Content-Length': String(Buffer.byteLength(body)) } });
    expectEnvelope(result, 413, 'payload_too_large');
  });

  it('a streamed body without Content-Length is refused without reading it all', async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
    const stream = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"input":"'));
        },
        pull(controller) {
          pulled += chunk.byteLength;
          if (pulled > 64 * MiB) controller.close();
          else controller.enqueue(chunk);
        },
      },
      { highWaterMark: 0 },
    );
    const result = await raw(stream);
    expectEnvelope(result, 413, 'payload_too_large');
    expect(pulled).toBeLessThan(4 * MiB); // stopped near the limit, not at 64 MiB
  });

  it('a streamed body under the limit is accepted', async () => {
    const parts = ['{"inp', 'ut":"str', 'eamed ', EMOJI, '"}'];
    const bytes = new TextEncoder().encode(parts.join(''));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.slice(i, i + 3)); // splits the emoji across chunks
        controller.close();
      },
    });
    const result = await raw(stream);
    expect(result.status, result.text).toBe(200);
  });
});

describe('400 invalid_request: UTF-8, one JSON object, no repeated member names', () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it.each([
    ['a 0xFF byte', bytes('{"input":"', [0xff], '"}')],
    ['a truncated sequence', bytes('{"input":"', [0xe2, 0x82], '"}')],
    ['an overlong slash', bytes('{"input":"', [0xc0, 0xaf], '"}')],
    ['an encoded surrogate', bytes('{"input":"', [0xed, 0xa0, 0x80], '"}')],
    ['a latin1 é', bytes('{"input":"caf', [0xe9], '"}')],
    ['UTF-16', Buffer.from('{"input":"x"}', 'utf16le')],
  ])('invalid UTF-8 (%s) -> 400', async (_name, body) => {
    expectEnvelope(await raw(new Uint8Array(body)), 400, 'invalid_request');
  });

  it.each([
    ['top level', '{"input":"a","input":"b"}'],
    ['escaped name', '{"input":"a","\\u0069nput":"b"}'],
    ['escaped first', '{"\\u0069\\u006e\\u0070\\u0075\\u0074":"a","input":"b"}'],
    ['nested object', '{"input":"a","context":"c","x":{"y":1,"y":2}}'],
    ['inside an array', '{"input":"a","list":[{"z":1,"z":1}]}'],
    ['with whitespace', '{ "input" : "a" ,\n "input" : "a" }'],
  ])('duplicate member names (%s) -> 400', async (_name, body) => {
    const result = await raw(body);
    expectEnvelope(result, 400, 'invalid_request');
  });

  it.each([
    ['empty', ''],
    ['whitespace', '   \n'],
    ['array', '[{"input":"a"}]'],
    ['string', '"input"'],
    ['number', '42'],
    ['null', 'null'],
    ['true', 'true'],
    ['truncated', '{"input":"a"'],
    ['trailing comma', '{"input":"a",}'],
    ['single quotes', "{'input':'a'}"],
    ['two objects', '{"input":"a"}{"input":"b"}'],
    ['comment', '{"input":"a"/* x */}'],
    ['NaN', '{"input":NaN}'],
  ])('not one JSON object (%s) -> 400', async (_name, body) => {
    expectEnvelope(await raw(body), 400, 'invalid_request');
  });
});

describe('422 validation_error: schema', () => {
  it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'extra', 'Input'])(
    'unknown field %j -> 422',
    async (field) => {
      const before = await remainingUnits(k.id);
      const result = await raw(`{"input":"a","${field}":{"polluted":true}}`);
      expectIssue(result, field, 'unknown_field');
      expect(await remainingUnits(k.id)).toBe(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('many or long unknown field names are named only in part: the answer stays small', async () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `made_up_field_${i}`);
    const body = `{"input":"a",${names.map((name) => `"${name}":1`).join(',')}}`;
    const many = await raw(body);
    expect(many.json.error.message).toBe(`Unknown fields: ${names.slice(0, 10).join(', ')} and 19990 more.`);
    // One issue for each of the first ten, each on its own path, and one that counts the rest.
    expect(many.json.error.details.issues).toEqual([
      ...names.slice(0, 10).map((name) => ({ path: name, code: 'unknown_field', message: `Unknown field: ${name}.` })),
      { path: '', code: 'unknown_field', message: '19990 more unknown fields, not listed.' },
    ]);
    expect(many.text.length).toBeLessThan(2_500);
    const long = await raw(`{"input":"a","${'😀'.repeat(200_000)}":1}`);
    expect(long.status).toBe(422);
    expect(long.json.error.details.issues[0]).toMatchObject({ code: 'unknown_field', path: '😀'.repeat(200_000) });
    expect(long.json.error.message).toBe(`Unknown field: ${'😀'.repeat(100)}….`);
    expect(long.text.length).toBeLessThan(400_000 + 2_000); // the name once (its exact path), not three times
  });

  it('several unknown fields: one issue each, nested ones by their dotted path', async () => {
    const result = await code({ input: 'x', f0: 1, f1: 2 });
    expect(result.json.error.message).toBe('Unknown fields: f0, f1.');
    expect(result.json.error.details.issues).toEqual([
      { path: 'f0', code: 'unknown_field', message: 'Unknown field: f0.' },
      { path: 'f1', code: 'unknown_field', message: 'Unknown field: f1.' },
    ]);
    const one = await code({ input: 'x', f0: 1 });
    expect(one.json.error.message).toBe('Unknown field: f0.');
  });

  it('a missing field is `required`, said in words', async () => {
    const result = await text({ context: 'c' });
    expect(result.json.error.details.issues).toEqual([{ path: 'input', code: 'required', message: 'input: required.' }]);
  });

  it('a lone surrogate the client sent is never echoed: every string of the error body is well-formed Unicode', async () => {
    for (const body of ['{"input":"x","\\ud800":1}', '{"input":"x","\\udfff\\ud800":1,"a\\ud83d":2}']) {
      const result = await raw(body);
      expectEnvelope(result, 422, 'validation_error');
      expect(result.text).not.toMatch(/\\ud[89a-f]/i); // no escaped surrogate at all: pairs come out as the characters themselves
      expect(result.json.error.details.issues[0].path).toContain('\uFFFD');
      expect(result.json.error.message.isWellFormed()).toBe(true);
    }
    const repeated = await raw('{"input":"x","\\ud800":1,"\\ud800":2}');
    expectEnvelope(repeated, 400, 'invalid_request');
    expect(repeated.text).not.toMatch(/\\ud[89a-f]/i);
  });

  it('counts text.generate input in code points: 64,000 emoji ok, 64,001 refused', async () => {
    const ok = await text({ input: EMOJI.repeat(64_000) });
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    textGenerateResponse.parse(ok.json);
    expectIssue(await text({ input: EMOJI.repeat(64_001) }), 'input', 'too_big');
    expectIssue(await text({ input: 'a'.repeat(64_001) }), 'input', 'too_big');
  });

  it('counts context in code points: 16,000 ok, 16,001 refused; empty context ok', async () => {
    expect((await text({ input: 'x', context: EMOJI.repeat(16_000) })).status).toBe(200);
    expect((await text({ input: 'x', context: '' })).status).toBe(200);
    expectIssue(await text({ input: 'x', context: EMOJI.repeat(16_001) }), 'context', 'too_big');
  });

  it('input is required, non-empty, a string, well-formed Unicode', async () => {
    expectIssue(await text({}), 'input', 'required');
    expectIssue(await text({ input: '' }), 'input', 'too_small');
    // Present but of the wrong type is not "required".
    expectIssue(await text({ input: 5 }), 'input', 'invalid_type');
    expectIssue(await text({ input: null }), 'input', 'invalid_type');
    expectIssue(await text({ input: ['a'] }), 'input', 'invalid_type');
    expectIssue(await raw('{"input":"\\ud800"}'), 'input', 'invalid_string');
  });

  it.each(['text', 'markdown', 'json'])('output_format %j is accepted', async (outputFormat) => {
    const result = await text({ input: 'list three colours', output_format: outputFormat });
    expect(result.status, result.text).toBe(200);
    const body = textGenerateResponse.parse(result.json);
    if (outputFormat === 'json') expect(() => JSON.parse(body.output.text)).not.toThrow();
  });

  it.each(['TEXT', 'html', '', null, 1])('output_format %j is refused', async (outputFormat) => {
    expectIssue(await text({ input: 'x', output_format: outputFormat }), 'output_format');
  });

  it('code.generate: language 1..80 code points', async () => {
    expect((await code({ input: 'x', language: EMOJI.repeat(80) })).status).toBe(200);
    expectIssue(await code({ input: 'x', language: EMOJI.repeat(81) }), 'language', 'too_big');
    expectIssue(await code({ input: 'x', language: '' }), 'language', 'too_small');
  });

  it('code.generate: requirements at most 30 entries of 1..500 code points', async () => {
    const ok = await code({ input: 'x', requirements: Array.from({ length: 30 }, () => EMOJI.repeat(500)) });
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    codeGenerateResponse.parse(ok.json);
    expect((await code({ input: 'x', requirements: [] })).status).toBe(200);
    expectIssue(await code({ input: 'x', requirements: Array.from({ length: 31 }, () => 'r') }), 'requirements', 'too_big');
    expectIssue(await code({ input: 'x', requirements: ['ok', EMOJI.repeat(501)] }), 'requirements.1', 'too_big');
    expectIssue(await code({ input: 'x', requirements: ['ok', ''] }), 'requirements.1', 'too_small');
    expectIssue(await code({ input: 'x', requirements: ['ok', 3] }), 'requirements.1');
    expectIssue(await code({ input: 'x', requirements: 'one' }), 'requirements');
  });

  it('code.generate: input 1..64,000 code points, unknown fields refused', async () => {
    expect((await code({ input: EMOJI.repeat(64_000) })).status).toBe(200);
    expectIssue(await code({ input: EMOJI.repeat(64_001) }), 'input', 'too_big');
    expectIssue(await code({ input: '' }), 'input', 'too_small');
    expectIssue(await code({ input: 'x', output_format: 'text' }), 'output_format', 'unknown_field');
    expectIssue(await code({ input: 'x', execute: true }), 'execute', 'unknown_field');
  });

  it('422 never charges', async () => {
    const before = await remainingUnits(k.id);
    await text({ input: '' });
    await code({ input: 'x', requirements: [''] });
    await text({ input: 'x', nope: 1 });
    expect(await remainingUnits(k.id)).toBe(before);
  });
});
