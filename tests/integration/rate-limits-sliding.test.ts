import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { getSqlDb } from '@/server/db/client';
import { deleteIdleRateWindows, postgresWindowStore } from '@/server/domain/rate-limit/sliding-window';
import { expectExactUnderRace, expectSlidingAcrossEdge } from '../helpers/sliding-window-edge';

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

  it('housekeeping deletes the windows whose hits have all left, and only those', async () => {
    const store = postgresWindowStore(poolA);
    await store.take('idle:old', 5, 60, Date.now() - 62_000);
    await store.take('idle:recent', 5, 60);
    await deleteIdleRateWindows(getSqlDb());
    const { rows } = await poolA.query<{ key: string }>("SELECT key FROM rate_windows WHERE key LIKE 'idle:%' ORDER BY key");
    expect(rows.map((row) => row.key)).toEqual(['idle:recent']);
  });
});
