import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { getSqlDb } from '@/server/db/client';
import { consumeRequest } from '@/server/domain/rate-limit/request-rate';
import { deleteIdleRateWindows, postgresWindowStore } from '@/server/domain/rate-limit/sliding-window';
import { expectExactUnderRace, expectSlidingAcrossEdge, expectWaitWithinWindow } from '../helpers/sliding-window-edge';

// The sliding window in PostgreSQL (no REDIS_URL), seen by two instances: each its own pool
// on the one database. The Redis store runs the same checks in rate-limits-redis.test.ts.

const poolA = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const poolB = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

afterAll(async () => {
  await poolA.end();
  await poolB.end();
});

describe('sliding-window rate limit in PostgreSQL', () => {
  it("across a window's edge, two instances never take more than the limit in any 60 s", async () => {
    await expectSlidingAcrossEdge(postgresWindowStore(poolA), postgresWindowStore(poolB));
  });

  it('concurrent hits from two instances: exactly the limit is taken', async () => {
    await expectExactUnderRace(postgresWindowStore(poolA), postgresWindowStore(poolB));
  });

  it("a 429 never names more than the window: Retry-After 60 at a second's start, exact to the second after", async () => {
    await expectWaitWithinWindow(postgresWindowStore(poolA));
    const id = `wait-${Date.now()}`;
    const t0 = 1_800_000_300_000;
    await consumeRequest(getSqlDb(), id, 1, t0);
    const refused = await consumeRequest(getSqlDb(), id, 1, t0).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfter: 60 });
    const later = await consumeRequest(getSqlDb(), id, 1, t0 + 58_500).catch((error: unknown) => error);
    expect(later).toMatchObject({ code: 'rate_limited', retryAfter: 2 });
    expect(await consumeRequest(getSqlDb(), id, 1, t0 + 60_000)).toMatchObject({ remaining: 0, resetSeconds: 60 });
  });

  it('a window written before latest_ms existed counts its buckets until the end of their second plus the window', async () => {
    const key = `legacy:${Date.now()}`;
    const second = 1_800_000_400;
    await poolA.query(`INSERT INTO rate_windows (key, seconds, counts, latest_ms, expire_second) VALUES ($1, $2, '{1}', '{}', $3)`, [
      key,
      [second],
      second + 61,
    ]);
    const store = postgresWindowStore(poolA);
    expect(await store.take(key, 1, 60, second * 1000 + 200)).toEqual({ allowed: false, used: 1, waitMs: 60_799 });
    expect(await store.take(key, 1, 60, second * 1000 + 60_999)).toMatchObject({ allowed: true, used: 1 });
  });

  it('housekeeping deletes the windows whose hits have all left, and only those', async () => {
    const store = postgresWindowStore(poolA);
    await store.take('idle:old', 5, 60, Date.now() - 62_000);
    await store.take('idle:recent', 5, 60);
    await deleteIdleRateWindows(getSqlDb());
    const { rows } = await poolA.query<{ key: string }>("SELECT key FROM rate_windows WHERE key LIKE 'idle:%' ORDER BY key");
    expect(rows.map((row) => row.key)).toEqual(['idle:recent']);
  });
});
