import { describe, expect, it } from 'vitest';
import { textGenerateResponse } from '@/server/contract/generation';
import { getPool } from '@/server/db/client';
import { requestFingerprint } from '@/server/domain/billing/idempotency-store';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits } from '../helpers/api';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// Requests per minute (the sliding window, in PostgreSQL here) and concurrent requests, both from
// the key's package (CONTRACT.md §6); 429 rate_limited with Retry-After.

const TEXT = '/v1/text/generate';
const CODE = '/v1/code/generate';

const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake-rate-secret' });

const slowKey = (concurrency: number, quota = 100) =>
  createTestKey({
    quota,
    concurrency,
    providers: { fakerate: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } },
    operations: { 'text.generate': { engine: 'fakerate:model-slow', units: 1 } },
  });

async function inFlight(id: string): Promise<number> {
  const { rows } = await getPool().query<{ in_flight: number }>('SELECT in_flight FROM api_keys WHERE id = $1', [id]);
  return rows[0]!.in_flight;
}

describe('requests per minute', () => {
  it('the (n+1)th request in the minute is 429 rate_limited with Retry-After and RateLimit headers', async () => {
    const { key, id } = await createTestKey({ rpm: 3, quota: 100 });
    for (let i = 0; i < 3; i++) {
      const ok = await call(api, TEXT, { input: `r${i}` }, { key });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(2 - i));
      const reset = Number(ok.headers.get('ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(0);
      expect(reset).toBeLessThanOrEqual(60); // the wait named is never longer than the window
    }
    const limited = await call(api, TEXT, { input: 'r3' }, { key });
    expectEnvelope(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    // the same, as the structured fields of the draft's current revisions
    expect(limited.headers.get('ratelimit-policy')).toBe('"minute";q=3;w=60');
    expect(limited.headers.get('ratelimit')).toBe(`"minute";r=0;t=${reset}`);
    expect(await remainingUnits(id)).toBe(97); // the 429 charged nothing
  });

  it('the count is per key and shared by the routes of the key', async () => {
    const a = await createTestKey({ rpm: 2 });
    const b = await createTestKey({ rpm: 2 });
    expect((await call(api, TEXT, { input: 'a' }, { key: a.key })).status).toBe(200);
    expect((await call(api, CODE, { input: 'a' }, { key: a.key })).status).toBe(200);
    expectEnvelope(await call(api, CODE, { input: 'a' }, { key: a.key }), 429, 'rate_limited');
    expect((await call(api, TEXT, { input: 'b' }, { key: b.key })).status).toBe(200); // another key is not affected
  });

  it('a 429 leaves the Idempotency-Key free', async () => {
    const { key } = await createTestKey({ rpm: 1 });
    expect((await call(api, TEXT, { input: 'first' }, { key })).status).toBe(200);
    const idempotencyKey = newIdempotencyKey();
    expectEnvelope(await call(api, TEXT, { input: 'second' }, { key, idempotencyKey }), 429, 'rate_limited');
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM idempotency_records WHERE key = $1', [idempotencyKey]);
    expect(rows[0].n).toBe(0);
    // a different body with that key is therefore not a reuse (still limited by the rate)
    expectEnvelope(await call(api, TEXT, { input: 'third' }, { key, idempotencyKey }), 429, 'rate_limited');
  });

  it('idempotency is judged before the rate (CONTRACT.md §3, 8 before 9): replay, 422 and 409 even when the minute is used up', async () => {
    const { key, id } = await createTestKey({ rpm: 2, quota: 100 });
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'kept' }, { key, idempotencyKey });
    expect(first.status, first.text).toBe(200);
    expect((await call(api, TEXT, { input: 'fills the minute' }, { key })).status).toBe(200);
    expectEnvelope(await call(api, TEXT, { input: 'limited' }, { key }), 429, 'rate_limited');

    const replay = await call(api, TEXT, { input: 'kept' }, { key, idempotencyKey });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expectEnvelope(await call(api, TEXT, { input: 'other body' }, { key, idempotencyKey }), 422, 'idempotency_key_reused');

    // a key still running: 409, not 429
    const running = newIdempotencyKey();
    await getPool().query(
      `INSERT INTO idempotency_records (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at)
       VALUES (gen_random_uuid(), $1, 'POST', $2, $3, $4, 'running', now() + interval '1 minute', now() + interval '1 day')`,
      [id, TEXT, running, requestFingerprint('POST', TEXT, { input: 'x' })],
    );
    const inUse = await call(api, TEXT, { input: 'x' }, { key, idempotencyKey: running });
    expectEnvelope(inUse, 409, 'idempotency_key_in_use');
    expect(Number(inUse.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await remainingUnits(id)).toBe(98);
  });

  it('replays and idempotency conflicts give their point back: they do not use up the minute', async () => {
    const { key } = await createTestKey({ rpm: 3, quota: 100 });
    const idempotencyKey = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'once' }, { key, idempotencyKey });
    expect(first.headers.get('ratelimit-remaining')).toBe('2');
    for (let i = 0; i < 4; i++) {
      expect((await call(api, TEXT, { input: 'once' }, { key, idempotencyKey })).headers.get('idempotent-replayed')).toBe('true');
      expectEnvelope(await call(api, TEXT, { input: `other ${i}` }, { key, idempotencyKey }), 422, 'idempotency_key_reused');
    }
    const second = await call(api, TEXT, { input: 'new' }, { key });
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('a burst of 409 retries does not use up the minute, even when it pushes the count past the limit', async () => {
    const { key, id } = await createTestKey({ rpm: 3, quota: 100 });
    expect((await call(api, TEXT, { input: 'first' }, { key })).status).toBe(200);
    const running = newIdempotencyKey();
    await getPool().query(
      `INSERT INTO idempotency_records (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at)
       VALUES (gen_random_uuid(), $1, 'POST', $2, $3, $4, 'running', now() + interval '1 minute', now() + interval '1 day')`,
      [id, TEXT, running, requestFingerprint('POST', TEXT, { input: 'slow' })],
    );
    // Most of these are refused by the limiter (the count passes 3) before step 8 answers them.
    const retries = await Promise.all(
      Array.from({ length: 12 }, () => call(api, TEXT, { input: 'slow' }, { key, idempotencyKey: running })),
    );
    for (const retry of retries) expectEnvelope(retry, 409, 'idempotency_key_in_use');
    const next = await call(api, TEXT, { input: 'second' }, { key });
    expect(next.status, next.text).toBe(200);
    expect(next.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('many concurrent requests against a small limit: exactly the limit succeed', async () => {
    const { key, id } = await createTestKey({ rpm: 5, quota: 100 });
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => call(api, TEXT, { input: `c${i}` }, { key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of results.filter((r) => r.status !== 200)) expectEnvelope(r, 429, 'rate_limited');
    expect(await remainingUnits(id)).toBe(95);
  });
});

describe('concurrency', () => {
  it('concurrency + 1 simultaneous slow requests: exactly one 429, units not lost', async () => {
    const { key, id } = await slowKey(2, 10);
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_000 });
    const results = await Promise.all(Array.from({ length: 3 }, (_, i) => call(api, TEXT, { input: `s${i}` }, { key })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, results.map((r) => r.text).join('\n')).toEqual([200, 200, 429]);
    const limited = results.find((r) => r.status === 429)!;
    expectEnvelope(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The minute's count is told on this 429 too (the limit is the package's requests per minute).
    expect(limited.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(fake.callCount).toBe(2);
    expect(fake.maxActive).toBeLessThanOrEqual(2);
    expect(await remainingUnits(id)).toBe(8);
    expect(await inFlight(id)).toBe(0);
    // the slots are free again; the refused request counted in the minute (it reached the rate
    // step), so that refused requests stay bounded: 3 + this one
    fake.setMode({ kind: 'ok' });
    const after = await call(api, TEXT, { input: 'after' }, { key });
    expect(textGenerateResponse.parse(after.json).usage).toEqual({ charged_units: 1, remaining_units: 7 });
    expect(Number(after.headers.get('ratelimit-remaining'))).toBe(Number(after.headers.get('ratelimit-limit')) - 4);
    fake.reset();
  });

  it("a concurrency 429 that spent the minute's last point says to wait for the minute, not 1 s (limits audit)", async () => {
    const { key } = await createTestKey({
      quota: 10,
      concurrency: 1,
      rpm: 2,
      providers: { fakerate: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } },
      operations: { 'text.generate': { engine: 'fakerate:model-slow', units: 1 } },
    });
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_000 });
    const results = await Promise.all([0, 1].map((i) => call(api, TEXT, { input: `m${i}` }, { key })));
    const limited = results.find((r) => r.status === 429)!;
    expectEnvelope(limited, 429, 'rate_limited');
    expect(limited.json.error.message).toContain('Concurrent request limit');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThan(50);
    expect(Number(limited.headers.get('retry-after'))).toBe(reset);
    fake.reset();
  });

  it('never more than `concurrency` running at once under a burst, every unit accounted for', async () => {
    const { key, id } = await slowKey(3, 100);
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 600 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(api, TEXT, { input: `b${i}` }, { key })));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(12);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(ok.length).toBeLessThanOrEqual(12);
    for (const r of limited) expectEnvelope(r, 429, 'rate_limited');
    expect(fake.maxActive).toBeLessThanOrEqual(3);
    expect(fake.callCount).toBe(ok.length);
    expect(await remainingUnits(id)).toBe(100 - ok.length);
    expect(await inFlight(id)).toBe(0);
    fake.reset();
  });

  it('a failed slow request frees its slot and its units', async () => {
    const { key, id } = await slowKey(1, 5);
    fake.reset();
    fake.setMode({ kind: 'status', status: 503 });
    expectEnvelope(await call(api, TEXT, { input: 'x' }, { key }), 503, 'provider_unavailable');
    expect(await inFlight(id)).toBe(0);
    expect(await remainingUnits(id)).toBe(5);
    fake.setMode({ kind: 'ok' });
    expect((await call(api, TEXT, { input: 'x' }, { key })).status).toBe(200);
    fake.reset();
  });
});
