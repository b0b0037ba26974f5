import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disconnectDb } from '@/server/db/client';
import { createRequestLogger, useRequestLogger } from '@/server/observability/request-log';
import { api, call, createTestKey } from '../../helpers/api';

// One JSON line per /v1 request, with what an operator needs and nothing secret.

const lines: Record<string, unknown>[] = [];
const raw: string[] = [];

beforeAll(() => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      raw.push(line);
      lines.push(JSON.parse(line));
    }
  });
  useRequestLogger(createRequestLogger('json', stream));
});
afterAll(async () => {
  useRequestLogger(null);
  await disconnectDb();
});

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('the request log', () => {
  it('writes one line per request: id, key prefix, operation, status, code, units, engine, duration', async () => {
    const key = await createTestKey();
    const secretInput = 'a body that must never be logged';
    const ok = await call(api, '/v1/text/generate', { input: secretInput }, { key: key.key });
    const refused = await call(api, '/v1/text/generate', { input: '' }, { key: key.key });
    const anonymous = await call(api, '/v1/nope', undefined, {});
    await flushed();

    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request',
      request_id: ok.headers.get('x-request-id'),
      method: 'POST',
      route: '/v1/text/generate',
      key_prefix: key.key.slice(0, 13),
      package: key.slug,
      operation: 'text.generate',
      status: 200,
      units: 1,
      engine: 'local',
    });
    expect(lines[0]!.code).toBeUndefined();
    expect(typeof lines[0]!.duration_ms).toBe('number');
    expect(typeof lines[0]!.time).toBe('string');
    expect(lines[1]).toMatchObject({ request_id: refused.headers.get('x-request-id'), status: 422, code: 'validation_error', units: 0 });
    expect(lines[2]).toMatchObject({
      request_id: anonymous.headers.get('x-request-id'),
      route: 'unmatched',
      status: 404,
      code: 'not_found',
    });
    expect(lines[2]!.key_prefix).toBeUndefined();
    for (const line of raw) {
      expect(line).not.toContain(key.key);
      expect(line).not.toContain(secretInput);
    }
  });

  it('LOG_FORMAT=pretty writes readable lines for a terminal, and off writes none', async () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    createRequestLogger('pretty', stream)!.info({ request_id: 'req_pretty', status: 429, code: 'rate_limited' }, 'request');
    await flushed();
    expect(text).toMatch(/INFO.*request/);
    expect(text).toContain('"request_id":"req_pretty"');
    expect(text).toContain('"code":"rate_limited"');
    expect(text.trimEnd().split('\n')).toHaveLength(1); // one line a request, as documented (config audit: it wrote ten)
    expect(() => JSON.parse(text)).toThrow();
    expect(createRequestLogger('off')).toBeNull();
  });
});
