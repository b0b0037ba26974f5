import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { revokeKey } from '@/server/domain/keys/manage-keys';
import { clearAuthFailures } from '@/server/domain/rate-limit/auth-failures';
import { api, call, createTestKey, expectEnvelope } from '../helpers/api';
import { createUpload, putBytes, samplePng } from './support/storage/uploads';

// The abuse limits of a public gateway (SECURITY.md, "Abuse limits"): failed authentications
// per client address, the job read counted against the key's rate, file names that cannot
// disguise themselves, output URLs without the key's id, and a revoked key's upload URL.

const TEXT = '/v1/text/generate';
const BAD_KEY = `wgs_live_${'x'.repeat(40)}`;

/** A request from a connection whose peer is `address`, with `extra` headers. */
const from = (address: string, extra: Record<string, string> = {}) => ({ from: address, headers: extra });

function withEnv(values: Record<string, string>): void {
  Object.assign(process.env, values);
  resetConfigForTests();
}

afterEach(() => {
  delete process.env.AUTH_FAILURES_PER_MINUTE;
  delete process.env.TRUST_PROXY;
  resetConfigForTests();
  clearAuthFailures();
  vi.restoreAllMocks();
});

describe('failed authentications per client address (AUTH_FAILURES_PER_MINUTE)', () => {
  it('past the limit an address gets 429 with Retry-After, even with a good key, and no query reaches the database', async () => {
    withEnv({ AUTH_FAILURES_PER_MINUTE: '5' });
    const { key } = await createTestKey();
    for (let i = 0; i < 5; i++) {
      expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...from('203.0.113.7') }), 401, 'invalid_api_key');
    }
    const queries = vi.spyOn(pg.Pool.prototype, 'query');
    const refused = await call(api, TEXT, { input: 'x' }, { key, ...from('203.0.113.7') });
    expectEnvelope(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectEnvelope(
      await call(api, '/v1/jobs/job_xxxxxxxxxxxxxxxxxxxxxxxx', undefined, { key: BAD_KEY, ...from('203.0.113.7') }),
      429,
      'rate_limited',
    );
    expect(queries).not.toHaveBeenCalled();
    queries.mockRestore();

    // another address is untouched: its bad key is a 401, its good key served
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...from('203.0.113.8') }), 401, 'invalid_api_key');
    expect((await call(api, TEXT, { input: 'x' }, { key, ...from('203.0.113.8') })).status).toBe(200);
  });

  it('counts only failures; an IPv6 client counts per /64; a well-behaved client is never refused', async () => {
    withEnv({ AUTH_FAILURES_PER_MINUTE: '2' });
    const { key } = await createTestKey();
    for (let i = 0; i < 10; i++) expect((await call(api, TEXT, { input: `ok ${i}` }, { key, ...from('198.51.100.1') })).status).toBe(200);
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...from('2001:db8:1:2::1') }), 401, 'invalid_api_key');
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: null, ...from('2001:db8:1:2:ffff::9') }), 401, 'invalid_api_key');
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key, ...from('2001:0db8:0001:0002::5') }), 429, 'rate_limited');
    expect((await call(api, TEXT, { input: 'x' }, { key, ...from('2001:db8:1:3::1') })).status).toBe(200);
  });

  it('X-Forwarded-For is believed only with TRUST_PROXY=true, and then only its last entry', async () => {
    withEnv({ AUTH_FAILURES_PER_MINUTE: '1' });
    const { key } = await createTestKey();
    // without TRUST_PROXY a forged header changes nothing: the connection's address is counted
    expectEnvelope(
      await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...from('192.0.2.1', { 'X-Forwarded-For': '192.0.2.50' }) }),
      401,
      'invalid_api_key',
    );
    expectEnvelope(
      await call(api, TEXT, { input: 'x' }, { key, ...from('192.0.2.1', { 'X-Forwarded-For': '192.0.2.51' }) }),
      429,
      'rate_limited',
    );
    clearAuthFailures();

    withEnv({ AUTH_FAILURES_PER_MINUTE: '1', TRUST_PROXY: 'true' });
    expectEnvelope(
      await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...from('10.0.0.1', { 'X-Forwarded-For': '192.0.2.9, 192.0.2.60' }) }),
      401,
      'invalid_api_key',
    );
    // the same proxy, another client: served; the same client behind it, whatever it puts first: refused
    expect((await call(api, TEXT, { input: 'x' }, { key, ...from('10.0.0.1', { 'X-Forwarded-For': '192.0.2.61' }) })).status).toBe(200);
    expectEnvelope(
      await call(api, TEXT, { input: 'x' }, { key, ...from('10.0.0.1', { 'X-Forwarded-For': '192.0.2.1, 192.0.2.60' }) }),
      429,
      'rate_limited',
    );
  });
});

describe('behind a chain of proxies (CDN -> load balancer -> ingress), each customer keeps their own count', () => {
  // Customer A (198.51.100.10) and customer B (198.51.100.20) reach the CDN edge (173.245.48.5),
  // which the load balancer (10.1.0.5) forwards to the ingress (10.2.0.7), the connection the app sees.
  const chain = (customer: string, sent = '') => from('10.2.0.7', { 'X-Forwarded-For': `${sent}${customer}, 173.245.48.5, 10.1.0.5` });

  async function expectOwnCounts(): Promise<void> {
    const { key } = await createTestKey();
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...chain('198.51.100.10') }), 401, 'invalid_api_key');
    // A is refused, whatever it writes in front of its own address; B behind the same proxies is served
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key, ...chain('198.51.100.10', '198.51.100.20, ') }), 429, 'rate_limited');
    expect((await call(api, TEXT, { input: 'x' }, { key, ...chain('198.51.100.20') })).status).toBe(200);
  }

  it('TRUST_PROXY=3: the third X-Forwarded-For entry from the end is the client', async () => {
    withEnv({ AUTH_FAILURES_PER_MINUTE: '1', TRUST_PROXY: '3' });
    await expectOwnCounts();
  });

  it("TRUST_PROXY as the proxies' CIDR ranges: the first address from the connection back outside them is the client", async () => {
    withEnv({ AUTH_FAILURES_PER_MINUTE: '1', TRUST_PROXY: '10.0.0.0/8, 173.245.48.0/20, 2400:cb00::/32' });
    await expectOwnCounts();
    // a connection from outside the ranges is the client itself: its X-Forwarded-For is not believed
    const { key } = await createTestKey();
    const direct = (sent: string) => from('203.0.113.30', { 'X-Forwarded-For': sent });
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...direct('198.51.100.40') }), 401, 'invalid_api_key');
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key, ...direct('198.51.100.41') }), 429, 'rate_limited');
  });
});

describe('a loopback address is not counted (the host itself, or a proxy on it without TRUST_PROXY)', () => {
  it('its bad keys stay 401 past the limit, and its good key is served', async () => {
    withEnv({ AUTH_FAILURES_PER_MINUTE: '1' });
    const { key } = await createTestKey();
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      for (let i = 0; i < 3; i++)
        expectEnvelope(await call(api, TEXT, { input: 'x' }, { key: BAD_KEY, ...from(address) }), 401, 'invalid_api_key');
    expect((await call(api, TEXT, { input: 'x' }, { key, ...from('127.0.0.1') })).status).toBe(200);
  });
});

describe("GET /v1/jobs/{jobId} counts against the key's requests per minute", () => {
  it('shares the minute with the POST routes: each answer, a 404 too, carries the RateLimit headers; the (n+1)th is 429', async () => {
    const { key } = await createTestKey({ rpm: 3 });
    const job = 'job_doesnotexist0000000000000';
    expect((await call(api, TEXT, { input: 'x' }, { key })).status).toBe(200);
    const first = await call(api, `/v1/jobs/${job}`, undefined, { key });
    expectEnvelope(first, 404, 'not_found');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    const second = await call(api, `/v1/jobs/${job}`, undefined, { key });
    expectEnvelope(second, 404, 'not_found');
    expect(second.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
    const limited = await call(api, `/v1/jobs/${job}`, undefined, { key });
    expectEnvelope(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key }), 429, 'rate_limited');
  });
});

const IMAGE_OPS = { 'images.generate': { engine: 'local', units: 1, input_uploads: true } };

describe('uploads and outputs', () => {
  it('a filename with control or bidirectional-override characters is 422 naming filename', async () => {
    const { key } = await createTestKey({ operations: IMAGE_OPS });
    const png = await samplePng();
    for (const filename of [
      'invoice\u202Efdp.exe',
      'a\nb.png',
      'tab\there.png',
      'x\u0085.png',
      'iso\u2066late.png',
      'mark\u200F.png',
      'del\u007F.png',
    ]) {
      const refused = await createUpload(key, { purpose: 'image_input', mime_type: 'image/png', filename }, png);
      expectEnvelope(refused, 422, 'validation_error');
      expect(refused.json.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual(['filename']);
    }
    for (const filename of ['ordinary.png', 'Übersicht – März.png', 'דוח.png', 'emoji 📷.png']) {
      expect((await createUpload(key, { purpose: 'image_input', mime_type: 'image/png', filename }, png)).status).toBe(201);
    }
  });

  it("output and upload URLs carry nothing of the key's internal id", async () => {
    const { key, id } = await createTestKey({ operations: IMAGE_OPS });
    const image = await call(api, '/v1/images/generate', { prompt: 'a lighthouse' }, { key });
    expect(image.status, image.text).toBe(200);
    expect(image.json.output.url).not.toContain(id);
    const created = await createUpload(key, { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' }, await samplePng());
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(id);
  });

  it("a revoked key's upload URL stops taking bytes at once: 403, nothing received", async () => {
    const { key, id } = await createTestKey({ operations: IMAGE_OPS });
    const png = await samplePng();
    const created = await createUpload(key, { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' }, png);
    expect(created.status).toBe(201);
    await revokeKey(getSqlDb(), CLI_ACTOR, id);
    expectEnvelope(await putBytes(created.json.upload_url, png, 'image/png'), 403, 'forbidden');
    const row = await getPrisma().upload.findUniqueOrThrow({ where: { id: created.json.upload_id } });
    expect(row.receivedBytes).toBeNull();
  });
});
