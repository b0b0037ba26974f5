import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPool } from '@/server/db/client';
import { consumeRequest } from '@/server/domain/rate-limit/request-rate';
import { redisWindowStore } from '@/server/domain/rate-limit/sliding-window';
import { getSqlDb } from '@/server/db/client';
import { freePort } from '@/server/db/free-port';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits } from '../helpers/api';
import { RedisServer } from './support/redis-server';
import { expectExactUnderRace, expectSlidingAcrossEdge, expectWaitWithinWindow } from '../helpers/sliding-window-edge';

// REDIS_URL set: the requests-per-minute counts live in Redis (a real redis-server on
// 127.0.0.1), not in PostgreSQL and not in the process; a Redis that is down refuses paid
// requests with 503 (fail closed), charging nothing.

const TEXT = '/v1/text/generate';
let redis: RedisServer;
let admin: Redis;

beforeAll(async () => {
  redis = new RedisServer(await freePort());
  await redis.start();
  process.env.REDIS_URL = redis.url;
  resetConfigForTests();
  admin = new Redis(redis.port, '127.0.0.1');
  admin.on('error', () => {}); // Redis is stopped on purpose below; ioredis reconnects by itself
});

afterAll(async () => {
  admin.disconnect();
  await disconnectDb();
  await redis.stop();
  delete process.env.REDIS_URL;
  resetConfigForTests();
});

describe('requests per minute in Redis (REDIS_URL)', () => {
  it('counts in Redis, not in PostgreSQL: the (n+1)th request is 429, and forgetting Redis forgets the count', async () => {
    const { key, id } = await createTestKey({ rpm: 3, quota: 100 });
    for (let i = 0; i < 3; i++) {
      const ok = await call(api, TEXT, { input: `r${i}` }, { key });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await call(api, TEXT, { input: 'r3' }, { key });
    expectEnvelope(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    expect(await admin.hvals(`rpm:${id}`).then((counts) => counts.reduce((sum, n) => sum + Number(n), 0))).toBe(3); // the 429 is not counted
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM rate_windows WHERE key LIKE $1', [`%${id}`]);
    expect(rows[0].n).toBe(0);

    await admin.del(`rpm:${id}`); // the state is Redis's alone: every instance sees this
    expect((await call(api, TEXT, { input: 'after' }, { key })).status).toBe(200);
    expect(await remainingUnits(id)).toBe(96);
  });

  it("a sliding window: across a window's edge, two instances (two connections) never take more than the limit in any 60 s", async () => {
    const other = new Redis(redis.port, '127.0.0.1');
    try {
      await expectSlidingAcrossEdge(redisWindowStore(admin), redisWindowStore(other));
      await expectExactUnderRace(redisWindowStore(admin), redisWindowStore(other));
    } finally {
      other.disconnect();
    }
  });

  it("a 429 never names more than the window: Retry-After 60 at a second's start, exact to the second after", async () => {
    await expectWaitWithinWindow(redisWindowStore(admin));
    const id = `wait-${Date.now()}`;
    const t0 = 1_800_000_300_000;
    await consumeRequest(getSqlDb(), id, 1, t0);
    const refused = await consumeRequest(getSqlDb(), id, 1, t0).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfter: 60 });
    const later = await consumeRequest(getSqlDb(), id, 1, t0 + 58_500).catch((error: unknown) => error);
    expect(later).toMatchObject({ code: 'rate_limited', retryAfter: 2 });
    expect(await consumeRequest(getSqlDb(), id, 1, t0 + 60_000)).toMatchObject({ remaining: 0, resetSeconds: 60 });
  });

  it('a bucket written before its latest hit was kept counts until the end of its second plus the window', async () => {
    const key = `legacy:${Date.now()}`;
    const second = 1_800_000_400;
    await admin.hset(key, String(second), '1'); // as the previous script left it: no latest key
    const store = redisWindowStore(admin);
    expect(await store.take(key, 1, 60, second * 1000 + 200)).toEqual({ allowed: false, used: 1, waitMs: 60_799 });
    expect(await store.take(key, 1, 60, second * 1000 + 60_999)).toMatchObject({ allowed: true, used: 1 });
  });

  it('a replay gives its point back in Redis too', async () => {
    const { key, id } = await createTestKey({ rpm: 2, quota: 100 });
    const idempotencyKey = newIdempotencyKey();
    expect((await call(api, TEXT, { input: 'once' }, { key, idempotencyKey })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await call(api, TEXT, { input: 'once' }, { key, idempotencyKey })).headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await admin.hvals(`rpm:${id}`).then((counts) => counts.reduce((sum, n) => sum + Number(n), 0))).toBe(1);
    expect((await call(api, TEXT, { input: 'second' }, { key })).status).toBe(200);
  });

  it('a stalled Redis: the requests it kept waiting are 503 and count nothing, though it runs their commands once it wakes', async () => {
    const { key, id } = await createTestKey({ rpm: 3, quota: 100 });
    redis.pause();
    try {
      const stalled = await Promise.all([0, 1].map((i) => call(api, TEXT, { input: `stalled ${i}` }, { key })));
      for (const answer of stalled) expectEnvelope(answer, 503, 'provider_unavailable');
    } finally {
      redis.resume();
    }
    // Redis audit: the woken Redis counted both, and their retries were 429 for a minute.
    let counted = -1;
    for (let waited = 0; counted !== 0 && waited < 40; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      counted = await admin.hvals(`rpm:${id}`).then((counts) => counts.reduce((sum, n) => sum + Number(n), 0));
    }
    expect(counted).toBe(0);
    for (let i = 0; i < 3; i++) expect((await call(api, TEXT, { input: `after ${i}` }, { key })).status).toBe(200);
    expectEnvelope(await call(api, TEXT, { input: 'one more' }, { key }), 429, 'rate_limited');
    expect(await remainingUnits(id)).toBe(97);
  });

  it('Redis down: 503 with Retry-After, nothing charged, the key free; back up: served again', async () => {
    const { key, id } = await createTestKey({ rpm: 100, quota: 10 });
    const finished = newIdempotencyKey();
    const first = await call(api, TEXT, { input: 'before' }, { key, idempotencyKey: finished });
    expect(first.status).toBe(200);
    await redis.stop();

    // Step 8 comes before step 9 (CONTRACT.md §3): a finished request's retry is its replay, Redis
    // or not, and the same key with another body 422 (outside audit: both were 503).
    const replay = await call(api, TEXT, { input: 'before' }, { key, idempotencyKey: finished });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([200, 'true', first.text]);
    expectEnvelope(await call(api, TEXT, { input: 'another body' }, { key, idempotencyKey: finished }), 422, 'idempotency_key_reused');

    const idempotencyKey = newIdempotencyKey();
    const down = await call(api, TEXT, { input: 'while down' }, { key, idempotencyKey });
    expectEnvelope(down, 503, 'provider_unavailable');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await remainingUnits(id)).toBe(9);

    await redis.start();
    let again = await call(api, TEXT, { input: 'while down' }, { key, idempotencyKey });
    for (let attempt = 0; again.status === 503 && attempt < 20; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250)); // the client reconnects by itself
      again = await call(api, TEXT, { input: 'while down' }, { key, idempotencyKey });
    }
    expect(again.status, again.text).toBe(200);
    expect(await remainingUnits(id)).toBe(8);
  });
});
